{#-
    Returns the custom schema as written (cdc_staging, cdc_current, ...)
    instead of dbt's default "<target schema>_<custom schema>", so the
    databases have the same names locally and on a cluster.
-#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema | trim }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
