{#-
    on-run-start hook. Creates, for every source table whose meta names a
    `cdc_topic`, an external JSON table over the folder that
    `python -m python_helpers land` fills (var cdc_raw_dir). Spark runs one
    statement at a time, so the statements run here and the hook itself
    renders to nothing. Does nothing when var cdc_manage_landing is false
    (landing tables managed by a Kafka sink on a cluster).
-#}
{% macro cdc_create_landing_tables() %}
    {%- do adapter.dispatch('cdc_create_landing_tables', 'cdc')() -%}
{% endmacro %}

{% macro default__cdc_create_landing_tables() %}
    {%- if execute and var('cdc_manage_landing') -%}
        {%- set raw_root = _cdc_absolute_path(var('cdc_raw_dir')) -%}
        {%- set schemas = [] -%}
        {%- for node in graph.sources.values() if node.meta.get('cdc_topic') -%}
            {%- if node.schema not in schemas -%}
                {%- do schemas.append(node.schema) -%}
                {%- do run_query('create database if not exists ' ~ node.schema) -%}
            {%- endif -%}
            {%- do run_query(_cdc_landing_table_ddl(node, raw_root)) -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}

{% macro _cdc_landing_table_ddl(node, raw_root) -%}
    create table if not exists {{ node.schema }}.{{ node.identifier }} (
        kafka_topic string,
        kafka_partition int,
        kafka_offset bigint,
        kafka_timestamp_ms bigint,
        kafka_key string,
        kafka_value string,
        landing_file string,
        landing_line bigint,
        landing_error string,
        landing_batch bigint
    )
    using json
    location '{{ raw_root }}/{{ node.identifier }}'
{%- endmacro %}

{#- Spark resolves a relative LOCATION against the database folder, not
    the working directory: anchor a relative path at the Spark driver's
    working directory (the project root dbt runs from). -#}
{% macro _cdc_absolute_path(path) -%}
    {%- if path.startswith('/') or ':' in path -%}
        {{- return(path) -}}
    {%- endif -%}
    {%- set cwd = run_query(
        "select reflect('java.lang.System', 'getProperty', 'user.dir')"
    ).columns[0].values()[0] -%}
    {{- return(cwd ~ '/' ~ path) -}}
{%- endmacro %}
