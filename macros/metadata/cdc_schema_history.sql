{#-
    Returns the select of a schema-history model: one row per table change
    (tableChanges entry) of the schema-change topic whose staged events are
    `relation`, in source order (`_cdc_position`): the change type
    (CREATE/ALTER/DROP), the table id, its primary key and columns after the
    change, the DDL when the connector gives one (SQL Server never does),
    and when it happened. Primary key: the landed record (`_landing_file`,
    `_landing_line`: plain-form lines have no Kafka coordinates) and
    `table_change_index`.
-#}
{% macro cdc_schema_history(relation) %}
    {{- return(adapter.dispatch('cdc_schema_history', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_schema_history(relation) -%}
    select
        events.database_name,
        events.schema_name,
        changed.change.table_id,
        coalesce(changed.change_index, 0) as table_change_index,
        changed.change.change_type,
        changed.change.primary_key_columns,
        changed.change.columns,
        changed.change.default_charset_name,
        events.ddl,
        events._cdc_position,
        events._cdc_source_committed_at,
        events._kafka_topic,
        events._kafka_partition,
        events._kafka_offset,
        events._landing_batch,
        events._landing_file,
        events._landing_line
    from {{ relation }} as events
    lateral view outer posexplode(events.table_changes) changed as change_index, change
{%- endmacro %}
