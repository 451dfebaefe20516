{#-
    Returns the select of a Debezium staging model: one row per change event
    (c, r, u, d, and t for a truncate of the whole table) of `topic`, read
    from `relation` (the topic's base model, where each value was parsed
    once). The row image as typed columns, then the CDC metadata (op,
    source position, flattened `source` block, timestamps), then the Kafka
    and landing coordinates. Records that are not change events are in the
    quarantine model instead (cdc_debezium_rejects).
-#}
{% macro cdc_debezium_changes(relation, topic) %}
    {{- return(adapter.dispatch('cdc_debezium_changes', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_debezium_changes(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    select
        -- row image
        {%- for column in spec.columns %}
        events.{{ cdc_ident(column.name) }},
        {%- endfor %}
        -- change-data-capture metadata
        {%- if spec.columns | selectattr('decoder', 'equalto', 'variable_decimal') | list %}
        events._cdc_inexact_columns,
        {%- endif %}
        events._cdc_op,
        events._cdc_position,
        events._cdc_is_snapshot,
        events._cdc_source_committed_at,
        events._cdc_processed_at,
        events._cdc_transaction_id,
        events._cdc_transaction_total_order,
        events._cdc_transaction_collection_order,
        {%- for name in spec.source_fields %}
        events.{{ cdc_source_column_name(name) }},
        {%- endfor %}
        {%- for name in cdc_extra_fields(spec) %}
        events.{{ cdc_extra_column_name(name) }},
        {%- endfor %}
        {{ cdc_indent(_cdc_kafka_columns('events'), 4) }}
    from {{ relation }} as events
    where events._quarantine_reason is null
{%- endmacro %}
