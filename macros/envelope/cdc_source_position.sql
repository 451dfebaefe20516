{#-
    Returns an array<bigint> that orders the change events of one key in
    source order: the connector's own position first (PostgreSQL: the WAL
    lsn), the Kafka offset as tie-breaker. Arrival order alone is never used
    when the source says better. Connectors without a known position fall
    back to source.ts_ms.
-#}
{% macro cdc_source_position(spec, source, kafka_offset) %}
    {{- return(adapter.dispatch('cdc_source_position', 'cdc')(spec, source, kafka_offset)) -}}
{% endmacro %}

{% macro default__cdc_source_position(spec, source, kafka_offset) -%}
    {%- if spec.connector == 'postgresql' and 'lsn' in spec.source_fields -%}
        {%- set position = source ~ '.lsn' -%}
    {%- elif 'ts_ms' in spec.source_fields -%}
        {%- set position = source ~ '.ts_ms' -%}
    {%- else -%}
        {%- set position = 'cast(null as bigint)' -%}
    {%- endif -%}
    array(
        cast(coalesce({{ position }}, -1) as bigint),
        cast({{ kafka_offset }} as bigint)
    )
{%- endmacro %}

{#- `_cdc_source_<field>` in snake case (txId -> _cdc_source_tx_id). -#}
{% macro cdc_source_column_name(field) -%}
    _cdc_source_{{ modules.re.sub('([a-z0-9])([A-Z])', '\\1_\\2', field) | lower }}
{%- endmacro %}
