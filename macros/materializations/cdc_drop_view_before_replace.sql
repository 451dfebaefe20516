{#-
    Pre-hook of every model (dbt_project.yml). Returns `drop view if exists
    <this>` when the model is a view that already exists, nothing otherwise
    (tables, first builds). Why: with Iceberg's SparkSessionCatalog (1.10,
    Hive metastore), `create or replace view` of an existing view stores the new
    column list but keeps the old query text, so a view whose columns grew
    (a column added by a new schema version) fails on every later read with
    INCOMPATIBLE_VIEW_SCHEMA_CHANGE. Dropping it first makes dbt's create a
    plain `create view`. Nothing reads the view between the two statements
    in a dbt run.
-#}
{% macro cdc_drop_view_before_replace() %}
    {{- return(adapter.dispatch('cdc_drop_view_before_replace', 'cdc')()) -}}
{% endmacro %}

{% macro default__cdc_drop_view_before_replace() -%}
    {%- if execute and model.config.materialized == 'view' -%}
        {%- set existing = load_relation(this) -%}
        {%- if existing is not none and existing.is_view -%}
            drop view if exists {{ this }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
