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
    {{- return(_cdc_window_predicate(cdc_test_window_start(relation), landed)) -}}
{%- endmacro %}

{#- The predicate of a window starting at `first` (micros; none: '', every
    row): over `_landed_at`, or with `landed` the raw table's `landing_batch`. -#}
{% macro _cdc_window_predicate(first, landed=false) -%}
    {%- if first is none -%}
        {{- return('') -}}
    {%- elif landed -%}
        {{- return('landing_batch >= ' ~ first) -}}
    {%- endif -%}
    {{- return('_landed_at >= timestamp_micros(' ~ first ~ ')') -}}
{%- endmacro %}

{#- The start of a test's window (see cdc_test_window), micros since the
    epoch, or none when the whole model is checked; `merged`: a merged
    state table and the current-state view over it have one too (cdc_checks
    checks their keys against the whole table). -#}
{% macro cdc_test_window_start(relation, merged=false) -%}
    {%- if not execute or var('cdc_test_scope', 'latest_run') == 'all' -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set base = _cdc_base_of(relation, merged) -%}
    {%- if base is none -%}
        {{- return(none) -}}
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
    {{- return(none if first is none else first | int) -}}
{%- endmacro %}

{#- The base model relation behind a base, staging, quarantine or
    heartbeats model, and with `merged` a merged state table and the
    current-state view over it (their rows carry the `_landed_at` of the
    record they came from), found by meta.cdc_layer and meta.cdc_topic in
    the graph; or none. -#}
{% macro _cdc_base_of(relation, merged=false) -%}
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
        {%- elif merged and layer in ('state', 'current') -%}
            {{- return(_cdc_merged_base(node.config.meta.get('cdc_topic'))) -}}
        {%- endif -%}
    {%- endfor -%}
    {{- return(none) -}}
{%- endmacro %}

{#- The base model of `topic` when the topic has a merged state table, or none. -#}
{% macro _cdc_merged_base(topic) -%}
    {%- set found = {} -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model'
        and node.config.meta.get('cdc_topic') == topic -%}
        {%- do found.update({node.config.meta.get('cdc_layer'): node}) -%}
    {%- endfor -%}
    {%- if 'state' not in found or 'base' not in found -%}
        {{- return(none) -}}
    {%- endif -%}
    {{- return(api.Relation.create(database=found.base.database,
        schema=found.base.schema, identifier=found.base.alias)) -}}
{%- endmacro %}

{#- Project override of dbt's test relation: the test's own `where` config
    and the CDC test window, both applied (a test configured
    `cdc_own_window`, cdc_checks, applies the window itself). -#}
{% macro spark__get_where_subquery(relation) -%}
    {%- set window = '' if config.get('cdc_own_window', false) else cdc_test_window(relation) -%}
    {%- set filters = [config.get('where'), window] | select | list -%}
    {%- if filters -%}
        {%- do return('(select * from ' ~ relation ~ ' where ' ~ filters | join(' and ')
            ~ ') dbt_subquery') -%}
    {%- else -%}
        {%- do return(relation) -%}
    {%- endif -%}
{%- endmacro %}
