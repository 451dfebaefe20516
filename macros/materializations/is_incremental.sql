{#-
    Project override of dbt's `is_incremental()`: also true for a model
    materialized `cdc_incremental` (the project's materialization for its
    generated tables, cdc_incremental.sql) when its table exists and the
    run is not a full refresh; otherwise dbt's own answer.
-#}
{% macro is_incremental() %}
    {%- if not execute -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set relation = adapter.get_relation(this.database, this.schema, this.table) -%}
    {{- return(relation is not none
        and relation.type == 'table'
        and model.config.materialized in ('incremental', 'cdc_incremental')
        and not should_full_refresh()) -}}
{% endmacro %}
