{#-
    Returns the select of a quarantine model: every landed record of the
    topic whose base model `relation` found it is not a change event
    (tombstone, malformed JSON, a type contradicting the schema, unsupported
    op, missing primary key, unreadable landing line), with the reason and
    the value exactly as landed, so nothing is lost. Heartbeats (reason
    `heartbeat`) have their own model (cdc_heartbeats).
-#}
{% macro cdc_debezium_rejects(relation) %}
    {{- return(adapter.dispatch('cdc_debezium_rejects', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_debezium_rejects(relation) -%}
    select
        events._quarantine_reason,
        events._quarantine_detail,
        events._kafka_topic,
        events._kafka_partition,
        events._kafka_offset,
        events._kafka_published_at,
        events._kafka_key,
        events._kafka_value,
        events._landing_file,
        events._landing_line,
        events._landing_batch,
        events._landed_at,
        events._staged_at
    from {{ relation }} as events
    where events._quarantine_reason is not null and events._quarantine_reason != 'heartbeat'
{%- endmacro %}

{#-
    Returns the select of a heartbeats model (Huawei CDL topics): the
    records of `relation` (the base model) that are heartbeats, i.e. carry a
    HEARTBEAT_IDENTIFIER and no row image. They are counted here, never
    staged as table rows, and are not in the quarantine either.
-#}
{% macro cdc_heartbeats(relation) %}
    {{- return(adapter.dispatch('cdc_heartbeats', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_heartbeats(relation) -%}
    select
        events._cdc_heartbeat_identifier,
        events._cdc_source_committed_at,
        events._kafka_topic,
        events._kafka_partition,
        events._kafka_offset,
        events._kafka_published_at,
        events._landing_batch,
        events._landed_at,
        events._staged_at,
        events._landing_file,
        events._landing_line
    from {{ relation }} as events
    where events._quarantine_reason = 'heartbeat'
{%- endmacro %}
