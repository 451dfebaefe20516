{#-
    Project override of dbt-spark's seed reset, which drops the seed's
    table and creates it again. The seeds are tables of the project's
    format (`cdc_table_format`, dbt_project.yml): a plain `drop table`
    of an Iceberg table keeps its files, so the table is dropped with
    `purge` (its files go with it) and created again in the same place.

    Why: a seed stored as a Hive text table (dbt-spark's default format)
    was dropped from the metastore while its folder stayed, so every later
    `dbt seed` failed with LOCATION_ALREADY_EXISTS and the views reading
    the seed with TABLE_OR_VIEW_NOT_FOUND (issue 53). Creating an Iceberg
    table never checks that its folder is empty.
-#}
{% macro spark__reset_csv_table(model, full_refresh, old_relation, agate_table) %}
    {%- if old_relation -%}
        {%- call statement('drop_seed_table') -%}
            drop {{ 'view' if old_relation.is_view else 'table' }} if exists {{ old_relation.render() }}
            {{- '' if old_relation.is_view else ' purge' }}
        {%- endcall -%}
        {%- do adapter.cache_dropped(old_relation) -%}
    {%- endif -%}
    {{ return(create_csv_table(model, agate_table)) }}
{% endmacro %}
