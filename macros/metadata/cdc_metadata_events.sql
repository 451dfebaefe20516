{#-
    Returns the select of the base model of a Debezium metadata topic: the
    transaction metadata topic (spec.kind = 'transactions'), the
    schema-change topic ('schema_changes') or the notification topic
    ('notifications'). One row per landed record of
    `relation` (the raw landing table), its value parsed once with the
    built-in schema, the Kafka/landing coordinates and the quarantine
    verdict, like cdc_debezium_events does for change events.
-#}
{% macro cdc_metadata_events(relation, topic) %}
    {{- return(adapter.dispatch('cdc_metadata_events', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_metadata_events(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set transactions = spec.kind == 'transactions' -%}
    {%- set notifications = spec.kind == 'notifications' -%}
    select
        {%- if notifications %}
        {{ _cdc_notification_columns('events._event') }},
        {%- elif transactions %}
        events._event.id as transaction_id,
        upper(events._event.status) as status,
        cast(events._event.event_count as bigint) as event_count,
        transform(
            events._event.data_collections,
            collection -> named_struct(
                'data_collection', collection.data_collection,
                'event_count', cast(collection.event_count as bigint)
            )
        ) as data_collections,
        timestamp_millis(cast(events._event.ts_ms as bigint)) as event_at,
        {%- else %}
        events._event.databaseName as database_name,
        events._event.schemaName as schema_name,
        events._event.ddl,
        {{ _cdc_table_changes('events._event.tableChanges') }} as table_changes,
        {{ cdc_source_position(spec, 'events._event.source', 'events.kafka_offset') }}
            as _cdc_position,
        timestamp_millis(cast(
            {{ _cdc_present(spec.source_fields, 'ts_ms', 'events._event.source', 'string') }}
            as bigint)) as _cdc_source_committed_at,
        timestamp_millis(cast(events._event.ts_ms as bigint)) as _cdc_processed_at,
        {%- for name in spec.source_fields %}
        cast(events._event.source.{{ cdc_ident(name) }} as {{ spec.source_types.get(name, 'string') }})
            as {{ cdc_source_column_name(name) }},
        {%- endfor %}
        {%- endif %}
        {{ cdc_indent(_cdc_landing_columns('events'), 4) }}
    from (
        select
            parsed.*,
            case
                {{ cdc_indent(_cdc_record_reasons('parsed'), 12) }}
                when parsed._event is null then 'null_payload'
                {%- if notifications %}
                when parsed._event.id is null
                    or parsed._event.aggregate_type is null
                    or parsed._event.type is null
                    or try_cast(parsed._event.timestamp as bigint) is null
                    then 'not_a_notification_event'
                {%- elif transactions %}
                when parsed._event.id is null
                    or upper(parsed._event.status) not in ('BEGIN', 'END')
                    then 'not_a_transaction_event'
                {%- else %}
                when parsed._event.databaseName is null
                    and parsed._event.tableChanges is null
                    then 'not_a_schema_change_event'
                {%- endif %}
            end as _quarantine_reason,
            case
                {{ cdc_indent(_cdc_record_details('parsed', '_quarantine_reason'), 16) }}
                {%- if transactions %}
                when _quarantine_reason = 'not_a_transaction_event'
                    and upper(parsed._event.status) not in ('BEGIN', 'END')
                    then concat('status = ', parsed._event.status)
                {%- endif %}
            end as _quarantine_detail
        from (
            select
                landed.*,
                message as _message,
                {{ _cdc_unwrap('message', spec.parse_fields) }} as _event,
                {{ cdc_indent(_cdc_json_depth_column('landed.message', 'landed.kafka_value'), 16) }}
            from (
                select
                    raw.*,
                    {{ cdc_indent(_cdc_parse_value('raw.kafka_value', spec.value_type), 16) }}
                        as message,
                    {{ cdc_indent(_cdc_repeated_envelope_fields('raw.kafka_value'), 16) }}
                        as _cdc_repeated_fields
                from {{ relation }} as raw
                where {{ cdc_new_batches_filter('raw.landing_batch') }}
            ) as landed
        ) as parsed
    ) as events
{%- endmacro %}

{#- The columns of a notification (`event`: its parsed value). A table
    scan names its table `scanned_collection`; STARTED and IN_PROGRESS list
    the snapshot's tables in `data_collections`, TABLE_SCAN_COMPLETED in
    `data_collection` (both "a, b"). -#}
{% macro _cdc_notification_columns(event) -%}
    {{ event }}.id as notification_id,
        {{ event }}.aggregate_type,
        upper({{ event }}.type) as notification_type,
        element_at({{ event }}.additional_data, 'connector_name') as connector_name,
        transform(
            split(coalesce(
                element_at({{ event }}.additional_data, 'data_collections'),
                element_at({{ event }}.additional_data, 'data_collection')
            ), ','),
            collection -> trim(collection)
        ) as data_collections,
        element_at({{ event }}.additional_data, 'scanned_collection') as scanned_collection,
        upper(element_at({{ event }}.additional_data, 'status')) as scan_status,
        try_cast(element_at({{ event }}.additional_data, 'total_rows_scanned') as bigint)
            as total_rows_scanned,
        {{ event }}.additional_data,
        timestamp_millis(try_cast({{ event }}.timestamp as bigint)) as notified_at
{%- endmacro %}

{#- The tableChanges array of a schema-change event, typed, in snake case. -#}
{% macro _cdc_table_changes(changes) -%}
    transform(
        {{ changes }},
        change -> named_struct(
            'change_type', change.type,
            'table_id', change.id,
            'default_charset_name', change.table.defaultCharsetName,
            'primary_key_columns', change.table.primaryKeyColumnNames,
            'comment', change.table.comment,
            'columns', transform(
                change.table.columns,
                col -> named_struct(
                    'name', col.name,
                    'jdbc_type', cast(col.jdbcType as int),
                    'native_type', cast(col.nativeType as int),
                    'type_name', col.typeName,
                    'type_expression', col.typeExpression,
                    'charset_name', col.charsetName,
                    'length', cast(col.length as int),
                    'scale', cast(col.scale as int),
                    'position', cast(col.position as int),
                    'optional', cast(col.optional as boolean),
                    'auto_incremented', cast(col.autoIncremented as boolean),
                    'generated', cast(col.generated as boolean),
                    'comment', col.comment,
                    'default_value_expression', col.defaultValueExpression,
                    'enum_values', col.enumValues
                )
            )
        )
    )
{%- endmacro %}

{#- The accepted events of a metadata topic's base model (`relation`):
    every column but the quarantine verdict. -#}
{% macro cdc_metadata_accepted(relation, topic) %}
    {{- return(adapter.dispatch('cdc_metadata_accepted', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_metadata_accepted(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    select
        {%- if spec.kind == 'notifications' %}
        events.notification_id,
        events.aggregate_type,
        events.notification_type,
        events.connector_name,
        events.data_collections,
        events.scanned_collection,
        events.scan_status,
        events.total_rows_scanned,
        events.additional_data,
        events.notified_at,
        {%- elif spec.kind == 'transactions' %}
        events.transaction_id,
        events.status,
        events.event_count,
        events.data_collections,
        events.event_at,
        {%- else %}
        events.database_name,
        events.schema_name,
        events.ddl,
        events.table_changes,
        events._cdc_position,
        events._cdc_source_committed_at,
        events._cdc_processed_at,
        {%- for name in spec.source_fields %}
        events.{{ cdc_source_column_name(name) }},
        {%- endfor %}
        {%- endif %}
        {{ cdc_indent(_cdc_kafka_columns('events'), 4) }}
    from {{ relation }} as events
    where events._quarantine_reason is null
{%- endmacro %}
