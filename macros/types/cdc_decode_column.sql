{#-
    Returns the SQL expression that turns one row-image field, as from_json
    read it (raw JSON type), into its native Spark type. `column` is one entry
    of cdc_topic_schemas()[topic].columns: its `decoder` names the logical
    Kafka Connect / Debezium type (decimal, date, timestamp_micros, ...).
-#}
{% macro cdc_decode_column(expr, column) %}
    {{- return(adapter.dispatch('cdc_decode_column', 'cdc')(expr, column)) -}}
{% endmacro %}

{% macro default__cdc_decode_column(expr, column) -%}
    {%- set decoder = column.decoder -%}
    {%- if decoder == 'decimal' -%}
        {{ _cdc_decimal_from_base64(expr, column.type, column.scale) }}
    {%- elif decoder == 'base64' -%}
        unbase64({{ expr }})
    {%- elif decoder == 'date' -%}
        date_from_unix_date({{ expr }})
    {%- elif decoder == 'timestamp_millis' -%}
        timestamp_millis({{ expr }})
    {%- elif decoder == 'timestamp_micros' -%}
        timestamp_micros({{ expr }})
    {%- elif decoder == 'timestamp_nanos' -%}
        timestamp_micros(({{ expr }}) div 1000)
    {%- elif decoder == 'zoned_timestamp' -%}
        cast({{ expr }} as timestamp)
    {%- elif decoder == 'time_millis' -%}
        {{ _cdc_time_of_day('(' ~ expr ~ ') * 1000') }}
    {%- elif decoder == 'time_micros' -%}
        {{ _cdc_time_of_day(expr) }}
    {%- elif decoder == 'time_nanos' -%}
        {{ _cdc_time_of_day('(' ~ expr ~ ') div 1000') }}
    {%- elif decoder == 'none' -%}
        {{ expr }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            "cdc_decode_column: unknown decoder '" ~ decoder
            ~ "' for column " ~ column.name ~ ": re-run python_helpers sync") }}
    {%- endif -%}
{%- endmacro %}

{#- timestamp_ntz from microseconds since the epoch, independent of the
    session time zone (used for times of day; timestamps without a zone stay
    `timestamp`, UTC, as Hive metastore views cannot hold timestamp_ntz) (timestampadd takes an int, so add minutes, then the
    microseconds left over). -#}
{% macro _cdc_ntz_from_epoch_micros(expr) -%}
    timestampadd(
        microsecond,
        pmod({{ expr }}, 60000000),
        timestampadd(
            minute,
            ({{ expr }} - pmod({{ expr }}, 60000000)) div 60000000,
            timestamp_ntz '1970-01-01 00:00:00'
        )
    )
{%- endmacro %}

{#- A time of day (microseconds past midnight) as 'HH:mm:ss.SSSSSS' text:
    Spark has no TIME type. -#}
{% macro _cdc_time_of_day(expr) -%}
    date_format({{ _cdc_ntz_from_epoch_micros(expr) }}, 'HH:mm:ss.SSSSSS')
{%- endmacro %}

{#- org.apache.kafka.connect.data.Decimal: the unscaled value as big-endian
    two's complement bytes, base64 in JSON. Up to 18 digits (8 bytes) the
    hex digits are sign-extended to 64 bits and read as a signed number by
    conv() in one go; longer values are read in two halves (conv() stops at
    64 bits). The scale is applied by an exact decimal multiplication, with
    no detour through text. -#}
{% macro _cdc_decimal_from_base64(expr, spark_type, scale) -%}
    {%- set precision = spark_type.split('(')[1].split(',')[0] | int -%}
    {%- set hex = 'hex(unbase64(' ~ expr ~ '))' -%}
    {%- set unit = '1e-' ~ scale ~ 'bd' if scale > 0 else '1bd' -%}
    {%- if precision <= 18 -%}
    cast(
        cast(
            conv(lpad(nullif({{ hex }}, ''), 16, if({{ hex }} >= '8', 'F', '0')), 16, -10)
            as decimal(19, 0)
        ) * {{ unit }}
        as {{ spark_type }}
    )
    {%- else -%}
    {%- set digits = 'length(' ~ hex ~ ')' -%}
    {%- set is_negative = hex ~ ' >= \'8\'' -%}
    {%- set powers = [] -%}
    {%- for nibbles in range(1, 17) -%}
        {%- do powers.append((2 ** (4 * nibbles)) ~ 'bd') -%}
    {%- endfor -%}
    {%- set high_digits = 'greatest(' ~ digits ~ ' - 16, 0)' -%}
    {%- set low = 'cast(conv(right(' ~ hex ~ ', least(' ~ digits ~ ', 16)), 16, 10) as decimal(38, 0))' -%}
    {%- set high = 'cast(conv(substr(' ~ hex ~ ', 1, ' ~ high_digits ~ '), 16, 10) as decimal(38, 0))' -%}
    {%- set modulus = 'element_at(array(' ~ powers | join(', ') ~ '), ' -%}
    cast(
        case
            when {{ digits }} = 0 then null
            when {{ digits }} <= 16
                then {{ low }} - if({{ is_negative }}, {{ modulus }}{{ digits }}), 0)
            else
                ({{ high }} - if({{ is_negative }}, {{ modulus }}{{ high_digits }}), 0))
                * 18446744073709551616bd + {{ low }}
        end * {{ unit }}
        as {{ spark_type }}
    )
    {%- endif -%}
{%- endmacro %}
