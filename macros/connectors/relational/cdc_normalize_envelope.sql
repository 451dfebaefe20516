{#-
    Returns the change event of one parsed value (`event`, a struct) in the
    Debezium envelope's shape: before, after, source, op, ts_ms, and the
    extra fields of the topic's layout (spec.envelope). Debezium envelopes
    and CDL's open-source Debezium JSON (message_version 2.0) already have
    it. Huawei CDL JSON (message_version 1.0) is mapped field by field as
    the CDL format page's field table says: data -> after,
    DATA_STORE -> source.connector, SEG_OWNER -> source.schema,
    TABLE_NAME -> source.table, TIMESTAMP -> source.ts_ms, the
    transaction.properties pairs lsn / txId -> source.lsn / source.txId,
    OPERATION INSERT/UPDATE/DELETE -> op c/u/d (any other value stays as it
    is and is quarantined as an unsupported op). Flattened topics
    (ExtractNewRecordState): cdc_normalize__flattened.
-#}
{% macro cdc_normalize_envelope(spec, event, record=none) %}
    {{- return(adapter.dispatch('cdc_normalize_envelope', 'cdc')(spec, event, record)) -}}
{% endmacro %}

{#- A layout of its own has the macro `cdc_normalize__<envelope>(spec,
    event, record)` (`record`: the landed record's alias, for layouts that
    read its Kafka columns); the Debezium layouts are read as they are. -#}
{% macro default__cdc_normalize_envelope(spec, event, record=none) -%}
    {%- set by_layout = context.get('cdc_normalize__' ~ spec.envelope) -%}
    {%- if by_layout is not none -%}
    {{ by_layout(spec, event, record) }}
    {%- else -%}
    {{ event }}
    {%- endif -%}
{%- endmacro %}

{% macro cdc_normalize__cdl_json(spec, event, record=none) -%}
    if({{ event }} is null, null, named_struct(
        'before', {{ event }}.before,
        'after', {{ event }}.data,
        'source', named_struct(
            'connector', lower({{ event }}.DATA_STORE),
            'schema', {{ event }}.SEG_OWNER,
            'table', {{ event }}.TABLE_NAME,
            'ts_ms', cast({{ event }}.`TIMESTAMP` as bigint),
            'lsn', {{ _cdc_property(event ~ '.`transaction`.properties', 'lsn') }},
            'txId', {{ _cdc_property(event ~ '.`transaction`.properties', 'txId') }}
        ),
        'op', case upper({{ event }}.OPERATION)
            when 'INSERT' then 'c'
            when 'UPDATE' then 'u'
            when 'DELETE' then 'd'
            else {{ event }}.OPERATION
        end
        {%- for name in spec.envelope_fields if name not in ('before', 'after', 'source', 'op') %},
        {{ cdc_string(name) }}, {{ event }}.{{ cdc_ident(name) }}
        {%- endfor %}
    ))
{%- endmacro %}

{#- The bigint value of the name/value pair called `name` in a CDL
    transaction.properties array, or null. -#}
{% macro _cdc_property(properties, name) -%}
    cast(get(filter({{ properties }}, property -> property.name = {{ cdc_string(name) }}), 0).value as bigint)
{%- endmacro %}

{#- Envelope fields of the topic's layout staged as `_cdc_<snake_case>`
    columns (CDL: message_version, message_type, LOB_COLUMNS,
    HEARTBEAT_IDENTIFIER). -#}
{% macro cdc_extra_fields(spec) -%}
    {%- set extras = [] -%}
    {%- for name in ('message_version', 'message_type', 'LOB_COLUMNS', 'HEARTBEAT_IDENTIFIER') -%}
        {%- if name in spec.envelope_fields -%}{%- do extras.append(name) -%}{%- endif -%}
    {%- endfor -%}
    {{- return(extras) -}}
{%- endmacro %}

{% macro _cdc_extra_expr(name, event) -%}
    cast({{ event }}.{{ cdc_ident(name) }} as string)
{%- endmacro %}

{% macro cdc_extra_column_name(name) -%}
    _cdc_{{ name | lower }}
{%- endmacro %}

{#- The columns a layout computes once per landed record, beside its parsed
    value, for its `cdc_normalize__<envelope>` to read (each as
    `, <expression> as <name>`): a layout's `cdc_record_columns__<envelope>
    (record)`, none for the Debezium layouts. -#}
{% macro cdc_layout_record_columns(spec, record) -%}
    {%- set by_layout = context.get('cdc_record_columns__' ~ spec.envelope) -%}
    {%- if by_layout is not none -%}
    {{ by_layout(record) }}
    {%- endif -%}
{%- endmacro %}
