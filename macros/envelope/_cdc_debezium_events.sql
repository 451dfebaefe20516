{#-
    Private. Returns a select over the landed records of one topic with the
    event parsed: `_event` (the Debezium envelope payload read with the
    generated DDL), `_key` (the parsed Kafka key, when the topic has a key
    schema), `_row` (after for c/r/u, before for d, null for a truncate t)
    and `_quarantine_reason`
    / `_quarantine_detail` (null for a good change event). Both the staging
    and the quarantine models select from it, so every landed record ends up
    in exactly one of them.

    A value is read with or without the JsonConverter's
    {"schema": ..., "payload": ...} wrapper.
-#}
{% macro _cdc_debezium_events(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set primary_key = spec.primary_key or [] -%}
    select
        parsed.*,
        case
            when parsed.landing_error is not null then 'unreadable_landing_record'
            when parsed.kafka_value is null then 'tombstone'
            when parsed._value_keys is null then 'malformed_json'
            when parsed._payload_text is null then 'null_payload'
            when parsed._event.op is null then 'not_a_change_event'
            when parsed._event.op not in ('c', 'r', 'u', 'd', 't') then 'unsupported_op'
            {%- for key in primary_key %}
            when parsed._event.op != 't' and {{ _cdc_key_expr(key, spec) }} is null
                then 'missing_primary_key'
            {%- endfor %}
        end as _quarantine_reason,
        case
            when parsed.landing_error is not null then parsed.landing_error
            when parsed._event.op not in ('c', 'r', 'u', 'd', 't')
                then concat('op = ', parsed._event.op)
        end as _quarantine_detail
    from (
        select
            decoded.*,
            case
                when decoded._event.op = 'd' then decoded._event.before
                else decoded._event.after
            end as _row
        from (
            select
                unwrapped.*,
                from_json(unwrapped._payload_text, '{{ spec.value_type }}') as _event
                {%- if spec.key_type %},
                coalesce(
                    from_json(
                        unwrapped.kafka_key, 'struct<payload: {{ spec.key_type }}>'
                    ).payload,
                    from_json(unwrapped.kafka_key, '{{ spec.key_type }}')
                ) as _key
                {%- endif %}
            from (
                select
                    landed.*,
                    json_object_keys(landed.kafka_value) as _value_keys,
                    case
                        when
                            size(array_intersect(
                                json_object_keys(landed.kafka_value), array('schema', 'payload')
                            )) = 2
                            then from_json(landed.kafka_value, 'struct<payload: string>').payload
                        else landed.kafka_value
                    end as _payload_text
                from {{ relation }} as landed
            ) as unwrapped
        ) as decoded
    ) as parsed
{%- endmacro %}

{#- The primary-key value of the row image, falling back to the Kafka key
    (a delete without a full `before` image still names its key there). -#}
{% macro _cdc_key_expr(key, spec, prefix='parsed.') -%}
    {%- if key in (spec.key_fields or []) -%}
        coalesce({{ prefix }}_row.`{{ key }}`, {{ prefix }}_key.`{{ key }}`)
    {%- else -%}
        {{ prefix }}_row.`{{ key }}`
    {%- endif -%}
{%- endmacro %}
