{#-
    Returns the select of a Debezium staging model: one row per change event
    (c, r, u, d, and t for a truncate of the whole table) of `topic`, read
    from `relation` (the landed records). The row image (after for c/r/u,
    before for d, all null for t) comes out as typed columns with
    logical types decoded, followed by the CDC metadata (op, source position,
    flattened `source` block, timestamps) and the Kafka/landing coordinates.
    Records that are not change events go to cdc_debezium_rejects instead.
-#}
{% macro cdc_debezium_changes(relation, topic) %}
    {{- return(adapter.dispatch('cdc_debezium_changes', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_debezium_changes(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    select
        -- row image
        {%- for column in spec.columns %}
        {%- set field = column.name if column.name in spec.primary_key else none %}
        {%- set raw = _cdc_key_expr(column.name, spec, 'events.') if field else 'events._row.`' ~ column.name ~ '`' %}
        {{ cdc_decode_column(raw, column) }} as `{{ column.name }}`,
        {%- endfor %}
        -- change-data-capture metadata
        events._event.op as _cdc_op,
        {{ cdc_source_position(spec, 'events._event.source', 'events.kafka_offset') }}
            as _cdc_position,
        coalesce(
            cast({{ _cdc_present(spec.source_fields, 'snapshot', 'events._event.source', 'string') }}
                as string),
            'false'
        ) != 'false' as _cdc_is_snapshot,
        timestamp_millis({{ _cdc_present(spec.source_fields, 'ts_ms', 'events._event.source', 'bigint') }})
            as _cdc_source_committed_at,
        timestamp_millis({{ _cdc_present(spec.envelope_fields, 'ts_ms', 'events._event', 'bigint') }})
            as _cdc_processed_at,
        {{ _cdc_present(spec.envelope_fields, 'transaction', 'events._event', 'string', '.id') }}
            as _cdc_transaction_id,
        {%- for name in spec.source_fields %}
        events._event.source.`{{ name }}` as {{ cdc_source_column_name(name) }},
        {%- endfor %}
        -- kafka and landing metadata
        events.kafka_topic as _kafka_topic,
        events.kafka_partition as _kafka_partition,
        events.kafka_offset as _kafka_offset,
        timestamp_millis(events.kafka_timestamp_ms) as _kafka_published_at,
        events.kafka_key as _kafka_key,
        events.landing_batch as _landing_batch,
        timestamp_micros(events.landing_batch) as _landed_at
    from ({{ _cdc_debezium_events(relation, topic) }}) as events
    where events._quarantine_reason is null
{%- endmacro %}

{#- `parent.field` when the generated schema has that field, else a typed
    null: envelopes differ across Debezium versions (no `transaction` block
    before 1.x, no `source.snapshot` in some). -#}
{% macro _cdc_present(fields, field, parent, null_type, suffix='') -%}
    {%- if field in fields -%}
        {{ parent }}.`{{ field }}`{{ suffix }}
    {%- else -%}
        cast(null as {{ null_type }})
    {%- endif -%}
{%- endmacro %}
