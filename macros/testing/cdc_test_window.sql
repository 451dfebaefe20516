{#-
    Returns the predicate that limits a dbt test of a CDC base, staging or
    quarantine model to the batches of its latest staging run
    (`_landing_batch >= <first batch that run staged>`, a literal Iceberg
    prunes files with), or '' when the whole model is to be checked: var
    cdc_test_scope = 'all', another kind of model, or an empty model. So a
    small incremental build tests what it added, not the whole history.
-#}
{% macro cdc_test_window(relation) %}
    {{- return(adapter.dispatch('cdc_test_window', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_test_window(relation) -%}
    {%- if not execute or var('cdc_test_scope', 'latest_run') == 'all' -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set base = _cdc_base_of(relation) -%}
    {%- if base is none -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set first = run_query(
        'select min(_landing_batch) from ' ~ base ~ ' where _staged_at = ('
        ~ 'select max(_staged_at) from ' ~ base ~ ')').columns[0].values()[0] -%}
    {{- return('' if first is none else '_landing_batch >= ' ~ (first | int)) -}}
{%- endmacro %}

{#- The base model relation behind a base, staging or quarantine model
    (found by meta.cdc_layer in the graph), or none. -#}
{% macro _cdc_base_of(relation) -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model'
        and node.schema == relation.schema and node.alias == relation.identifier -%}
        {%- set layer = node.config.meta.get('cdc_layer') -%}
        {%- if layer == 'base' -%}
            {{- return(relation) -}}
        {%- elif layer in ('staging', 'quarantine', 'heartbeats') -%}
            {%- for parent_id in node.depends_on.nodes -%}
                {%- set parent = graph.nodes.get(parent_id) -%}
                {%- if parent and parent.config.meta.get('cdc_layer') == 'base' -%}
                    {{- return(api.Relation.create(database=parent.database,
                        schema=parent.schema, identifier=parent.alias)) -}}
                {%- endif -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(none) -}}
{%- endmacro %}

{#- Project override of dbt's test relation: the test's own `where` config
    and the CDC test window, both applied. -#}
{% macro spark__get_where_subquery(relation) -%}
    {%- set filters = [config.get('where'), cdc_test_window(relation)] | select | list -%}
    {%- if filters -%}
        {%- do return('(select * from ' ~ relation ~ ' where ' ~ filters | join(' and ')
            ~ ') dbt_subquery') -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}
