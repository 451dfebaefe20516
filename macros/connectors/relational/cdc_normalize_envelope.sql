{#-
    Returns the change event of one parsed value (`event`, a struct) in the
    Debezium envelope's shape: before, after, source, op, ts_ms, and the
    extra fields of the topic's layout (spec.envelope). Debezium envelopes
    already have it; a connector with a layout of its own maps it in its
    macro folder (macros/connectors/<connector>/cdc_normalize__<envelope>).
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
