{#-
    Returns the predicate that limits a dbt test of a CDC base, staging or
    quarantine model to the records landed since the oldest record its
    latest staging run staged (`_landed_at >= <when that one landed>`, a
    literal Iceberg prunes files with; a record replayed from quarantine
    keeps its landing time, so the window reaches back to it), or '' when
    the whole model is to be checked: var cdc_test_scope = 'all', another
    kind of model, or an empty model. So a small incremental build tests
    what it added, not the whole history. A watch that tests after several
    cycles sets var cdc_test_since_micros: then the window reaches back to
    every record staged since then (python_helpers/run/checks.py). With
    `landed`, the same window over the raw landing table
    (`landing_batch >= ...`).
-#}
{% macro cdc_test_window(relation, landed=false) %}
    {{- return(adapter.dispatch('cdc_test_window', 'cdc')(relation, landed)) -}}
{% endmacro %}

{% macro default__cdc_test_window(relation, landed=false) -%}
    {%- if not execute or var('cdc_test_scope', 'latest_run') == 'all' -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set base = _cdc_base_of(relation) -%}
    {%- if base is none -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set since = var('cdc_test_since_micros', none) -%}
    {%- if since is none -%}
        {%- set staged = '_staged_at = (select max(_staged_at) from ' ~ base ~ ')' -%}
    {%- else -%}
        {%- set staged = '_staged_at >= timestamp_micros(' ~ (since | int) ~ ')' -%}
    {%- endif -%}
    {%- set first = run_query(
        'select min(unix_micros(_landed_at)) from ' ~ base ~ ' where ' ~ staged
        ).columns[0].values()[0] -%}
    {%- if first is none -%}
        {{- return('') -}}
    {%- elif landed -%}
        {{- return('landing_batch >= ' ~ (first | int)) -}}
    {%- endif -%}
    {{- return('_landed_at >= timestamp_micros(' ~ (first | int) ~ ')') -}}
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
