{#-
    Project override of dbt-spark's relation listing, which dbt runs once
    per schema at the start of every `build`, `run` and `test` (to fill its
    relation cache): `show table extended` reads every table's metadata,
    about 1 s per 100 tables, so with hundreds of topics a one-topic watch
    cycle paid seconds for it. These commands only need names and kinds:
    `show tables` and `show views` give them, and every table this project
    writes is of the project's table format (`cdc_table_format`). Other
    commands (`docs generate` reads columns from the listing) keep
    dbt-spark's own.
-#}
{% macro spark__list_relations_without_caching(relation) %}
    {%- if flags.WHICH not in ('build', 'run', 'test') -%}
        {% call statement('list_relations_without_caching', fetch_result=True) -%}
            show table extended in {{ relation.schema }} like '*'
        {%- endcall %}
        {{- return(load_result('list_relations_without_caching').table) -}}
    {%- endif -%}
    {% call statement('list_tables_by_name', fetch_result=True) -%}
        show tables in {{ relation.schema }}
    {%- endcall %}
    {%- set tables = load_result('list_tables_by_name').table -%}
    {% call statement('list_views_by_name', fetch_result=True) -%}
        show views in {{ relation.schema }}
    {%- endcall %}
    {%- set views = load_result('list_views_by_name').table.columns[1].values() -%}
    {%- set table_kind = 'Type: MANAGED\nProvider: ' ~ var('cdc_table_format', 'iceberg') -%}
    {%- set rows = [] -%}
    {%- for row in tables if not row[2] -%}
        {%- do rows.append([
            relation.schema, row[1], row[2], 'Type: VIEW' if row[1] in views else table_kind
        ]) -%}
    {%- endfor -%}
    {{- return(rows) -}}
{% endmacro %}
