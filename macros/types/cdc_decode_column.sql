{#-
    Returns the SQL expression that turns one row-image field, as from_json
    read it (raw JSON type), into its native Spark type. `column` is one entry
    of cdc_topic_spec(topic).columns (or, inside it, a nested decoder):
    its `decoder` names the logical Kafka Connect / Debezium type (decimal,
    date, timestamp_micros, ...), or says that a struct / array / map holds
    fields, items or values to decode, at any depth. Timestamps and dates
    equal to PostgreSQL's infinity sentinels become the bounds of Spark's
    range (see _cdc_max_timestamp); docs/types.md lists them all.
-#}
{% macro cdc_decode_column(expr, column) %}
    {{- return(adapter.dispatch('cdc_decode_column', 'cdc')(expr, column)) -}}
{% endmacro %}

{% macro default__cdc_decode_column(expr, column) -%}
    {{ _cdc_decode_node(expr, column, 0) }}
{%- endmacro %}

{#- One node of the decoder tree; `depth` names the lambda variables of
    nested arrays and maps apart. -#}
{% macro _cdc_decode_node(expr, node, depth) -%}
    {%- set decoder = node.decoder -%}
    {%- set x = 'x' ~ depth -%}
    {%- if decoder == 'struct' -%}
        if({{ expr }} is null, null, named_struct(
        {%- for child in node.fields %}
            {{ cdc_string(child.name) }},
            {{ _cdc_decode_node(_cdc_field_of(expr, child.name), child, depth) }}
            {{- ',' if not loop.last }}
        {%- endfor %}
        ))
    {%- elif decoder == 'array' -%}
        transform({{ expr }}, {{ x }} -> {{ _cdc_decode_node(x, node['items'], depth + 1) }})
    {%- elif decoder == 'map' -%}
        transform_values(
            {{ expr }}, (k{{ depth }}, {{ x }}) -> {{ _cdc_decode_node(x, node['values'], depth + 1) }}
        )
    {%- elif decoder == 'map_entries' -%}
        {#- the JsonConverter's [[key, value], ...] form of a map whose keys
            are not strings: each pair's values were read as JSON text -#}
        map_from_entries(transform({{ expr }}, {{ x }} -> struct(
            {{ _cdc_decode_node(_cdc_from_text(x ~ '[0]', node['keys']), node['keys'], depth + 1) }}
                as key,
            {{ _cdc_decode_node(_cdc_from_text(x ~ '[1]', node['values']), node['values'], depth + 1) }}
                as value
        )))
    {%- elif decoder == 'decimal' -%}
        {{ _cdc_decimal_from_base64(expr, node.type, node.scale) }}
    {%- elif decoder == 'variable_decimal' -%}
        {#- io.debezium.data.VariableScaleDecimal: the unscaled value with
            the row's own scale, into one fixed decimal type -#}
        cast(concat(
            cast({{ _cdc_decimal_from_base64(expr ~ '.value', 'decimal(38,0)', 0) }} as string),
            'e-', {{ expr }}.scale
        ) as {{ node.type }})
    {%- elif decoder in ('text_decimal', 'number_decimal') -%}
        {#- CDL decimal text; a Decimal the converter wrote as a JSON number
            (decimal.format=NUMERIC), which from_json read as its text -#}
        cast({{ expr }} as {{ node.type }})
    {%- elif decoder == 'base64' -%}
        unbase64({{ expr }})
    {%- elif decoder == 'date' -%}
        {#- PostgreSQL's ±infinity, as the real connector writes them
            (Debezium 3.6.3, issue 70): streamed, PostgreSQL's int32 day
            sentinels moved from 2000 to 1970 and wrapped (-2147472692 /
            -2147472691); read by a snapshot, pgjdbc's millisecond
            sentinels as days cut to 32 bits (-622191234 / -625821272) -#}
        case {{ expr }}
            when -2147472692 then {{ _cdc_max_date() }}
            when -622191234 then {{ _cdc_max_date() }}
            when -2147472691 then {{ _cdc_min_date() }}
            when -625821272 then {{ _cdc_min_date() }}
            else date_from_unix_date({{ expr }})
        end
    {%- elif decoder == 'iso_date' -%}
        cast({{ expr }} as date)
    {%- elif decoder == 'timestamp_millis' -%}
        {#- milliseconds: the real connector writes pgjdbc's sentinels in ms
            (9223372036825200 / -9223372036832400, issue 70), and the µs
            values on the wire elsewhere -#}
        {{ _cdc_sentinel_timestamp(expr, ['9223372036825200', '9223372036825200000'],
            ['-9223372036832400', '-9223372036832400000'], 'timestamp_millis(' ~ expr ~ ')') }}
    {%- elif decoder == 'timestamp_micros' -%}
        {{ _cdc_sentinel_timestamp(expr, '9223372036825200000', '-9223372036832400000',
            'timestamp_micros(' ~ expr ~ ')') }}
    {%- elif decoder == 'timestamp_nanos' -%}
        {{ _cdc_sentinel_timestamp(expr, '9223372036854775807', '-9223372036854775808',
            'timestamp_micros(' ~ _cdc_floor_div(expr, 1000) ~ ')') }}
    {%- elif decoder == 'zoned_timestamp' -%}
        {{ _cdc_sentinel_timestamp(expr, "'infinity'", "'-infinity'",
            'cast(' ~ expr ~ ' as timestamp)') }}
    {%- elif decoder == 'iso_timestamp' -%}
        {#- a wall-clock text without zone, read as UTC whatever the
            session time zone -#}
        cast(concat({{ expr }}, 'Z') as timestamp)
    {%- elif decoder == 'time_millis' -%}
        {{ _cdc_time_of_day('cast(' ~ expr ~ ' as bigint) * 1000') }}
    {%- elif decoder == 'time_micros' -%}
        {{ _cdc_time_of_day(expr) }}
    {%- elif decoder == 'time_nanos' -%}
        {{ _cdc_time_of_day(_cdc_floor_div(expr, 1000)) }}
    {%- elif decoder == 'nanos_to_micros' -%}
        {{ _cdc_floor_div(expr, 1000) }}
    {%- elif decoder == 'enum_set' -%}
        filter(split({{ expr }}, ','), {{ x }} -> {{ x }} != '')
    {%- elif decoder == 'none' -%}
        {{ expr }}
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            "cdc_decode_column: unknown decoder '" ~ decoder
            ~ "' for column " ~ (node.name or expr) ~ ": re-run python_helpers sync") }}
    {%- endif -%}
{%- endmacro %}

{#- True when the VariableScaleDecimal `expr` (a struct of `scale` and the
    base64 unscaled `value`; null allowed) decodes exactly into the
    column's fixed type (decimal(38,18)): the unscaled value has at most 38
    digits, at most 20 of them before the point, and any digit past the
    18th after it is zero. False for a value rounded or lost (null): the
    base model lists such columns in `_cdc_inexact_columns`. -#}
{% macro _cdc_variable_decimal_exact(expr, node) -%}
    {%- set unscaled = _cdc_decimal_from_base64(expr ~ '.value', 'decimal(38,0)', 0) -%}
    coalesce({{ expr }} is null or (
        {{ _cdc_decode_node(expr, node, 0) }} is not null
        and (
            {{ expr }}.scale <= 18
            or {{ unscaled }} = 0
            or ({{ expr }}.scale < 56 and pmod(
                {{ unscaled }}, cast(concat('1e', {{ expr }}.scale - 18) as decimal(38, 0))
            ) = 0)
        )
    ), false)
{%- endmacro %}

{#- Field `name` of the struct `expr` (bracket form after a function call,
    which sqlfluff cannot parse with a dot). -#}
{% macro _cdc_field_of(expr, name) -%}
    {%- if expr.endswith(')') -%}
        {{ expr }}[{{ cdc_string(name) }}]
    {%- else -%}
        {{ expr }}.{{ cdc_ident(name) }}
    {%- endif -%}
{%- endmacro %}

{#- A value read as JSON text (a pair of a map_entries map) as its raw
    type: strings as they are, other primitives cast, structures parsed. -#}
{% macro _cdc_from_text(text, node) -%}
    {%- if node.raw_type == 'string' -%}
        {{ text }}
    {%- elif node.raw_type in ('tinyint', 'smallint', 'int', 'bigint', 'float', 'double', 'boolean') -%}
        cast({{ text }} as {{ node.raw_type }})
    {%- else -%}
        from_json({{ text }}, {{ cdc_string(node.raw_type) }})
    {%- endif -%}
{%- endmacro %}

{#- `expr` div `divisor`, rounded towards minus infinity (a time before
    the epoch keeps its sub-unit part). -#}
{% macro _cdc_floor_div(expr, divisor) -%}
    (({{ expr }}) - pmod({{ expr }}, {{ divisor }})) div {{ divisor }}
{%- endmacro %}

{#- PostgreSQL's +infinity / -infinity sentinels (Debezium writes the
    pgjdbc constants, Long.MAX/MIN for nanoseconds, 'infinity' text for
    zoned timestamps) to the last / first microsecond Spark can hold. -#}
{% macro _cdc_sentinel_timestamp(expr, positive, negative, otherwise) -%}
    {%- set positives = [positive] if positive is string else positive -%}
    {%- set negatives = [negative] if negative is string else negative -%}
    case {{ expr }}
        {%- for value in positives %}
        when {{ value }} then {{ _cdc_max_timestamp() }}
        {%- endfor %}
        {%- for value in negatives %}
        when {{ value }} then {{ _cdc_min_timestamp() }}
        {%- endfor %}
        else {{ otherwise }}
    end
{%- endmacro %}

{#- 9999-12-31 23:59:59.999999 UTC and 0001-01-01 00:00:00 UTC, given as
    epoch microseconds so that no session time zone shifts them. -#}
{% macro _cdc_max_timestamp() -%}timestamp_micros(253402300799999999){%- endmacro %}
{% macro _cdc_min_timestamp() -%}timestamp_micros(-62135596800000000){%- endmacro %}
{% macro _cdc_max_date() -%}date_from_unix_date(2932896){%- endmacro %}
{% macro _cdc_min_date() -%}date_from_unix_date(-719162){%- endmacro %}

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
    conv() in one go, and the scale applied by an exact multiplication
    (at most 19 + 18 digits). Longer values are read in two halves (conv()
    stops at 64 bits and saturates silently past it, so more than 32 hex
    digits, beyond any 38-digit number, is null), and the scale is applied
    by reading the unscaled integer's text with an exponent: multiplying a
    decimal(38,0) by 1e-s would need more than 38 digits, and Spark then
    cuts the scale to 6 (12345678901234567890.0123456789 stored as
    ...0123460000: issue 70). -#}
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
    {%- set unscaled -%}
        case
            when {{ digits }} = 0 or {{ digits }} > 32 then null
            when {{ digits }} <= 16
                then {{ low }} - if({{ is_negative }}, {{ modulus }}{{ digits }}), 0)
            {#- a negative value as (high + 1) * 2^64 + (low - 2^64): no
                intermediate result is further from zero than the value, so
                none overflows 38 digits -#}
            when {{ is_negative }}
                then ({{ high }} - {{ modulus }}{{ high_digits }}) + 1bd) * 18446744073709551616bd
                    + ({{ low }} - 18446744073709551616bd)
            else {{ high }} * 18446744073709551616bd + {{ low }}
        end
    {%- endset -%}
    {%- if scale > 0 -%}
    cast(concat(cast({{ unscaled }} as string), 'e-{{ scale }}') as {{ spark_type }})
    {%- else -%}
    cast({{ unscaled }} as {{ spark_type }})
    {%- endif -%}
    {%- endif -%}
{%- endmacro %}
