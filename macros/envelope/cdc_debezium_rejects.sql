{#-
    Returns the select of a quarantine model: every landed record of `topic`
    that is not a change event (tombstone, malformed JSON, unsupported op,
    missing primary key, unreadable landing line), with the reason and the
    record exactly as landed, so nothing is lost.
-#}
{% macro cdc_debezium_rejects(relation, topic) %}
    {{- return(adapter.dispatch('cdc_debezium_rejects', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_debezium_rejects(relation, topic) -%}
    select
        events._quarantine_reason,
        events._quarantine_detail,
        events.kafka_topic as _kafka_topic,
        events.kafka_partition as _kafka_partition,
        events.kafka_offset as _kafka_offset,
        timestamp_millis(events.kafka_timestamp_ms) as _kafka_published_at,
        events.kafka_key as _kafka_key,
        events.kafka_value as _kafka_value,
        events.landing_file as _landing_file,
        events.landing_line as _landing_line,
        events.landing_batch as _landing_batch,
        timestamp_micros(events.landing_batch) as _landed_at
    from ({{ _cdc_debezium_events(relation, topic) }}) as events
    where events._quarantine_reason is not null
{%- endmacro %}
