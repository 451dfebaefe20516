{#-
    The relation name of a model: dbt's default, except that with the
    project variable `cdc_default_view: consistent` the names analysts query
    by (`cdc_current.<model>`) hold the transaction-consistent views: a
    current-state view that has a consistent sibling is created as
    `<model>__latest`, and the sibling (`<model>__consistent`) as `<model>`.
    dbt models keep choosing by `ref()`, which follows the swap.
-#}
{% macro generate_alias_name(custom_alias_name=none, node=none) -%}
    {%- set siblings = _cdc_consistent_views() -%}
    {%- if custom_alias_name or var('cdc_default_view', 'latest') != 'consistent' -%}
        {{ default__generate_alias_name(custom_alias_name, node) }}
    {%- elif node.name in siblings -%}
        {{ node.name ~ '__latest' }}
    {%- elif node.name.endswith('__consistent')
        and node.name[:-('__consistent' | length)] in siblings -%}
        {{ node.name[:-('__consistent' | length)] }}
    {%- else -%}
        {{ default__generate_alias_name(custom_alias_name, node) }}
    {%- endif -%}
{%- endmacro %}
