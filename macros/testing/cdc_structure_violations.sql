{#-
    The project's structure rules, in the spirit of dbt-project-evaluator,
    checked on dbt's graph (no table is read). Returns the select of one row
    per violation of `rule` (columns `rule`, `node`, `problem`), no rows when
    the project keeps it:
    - `source_outside_staging`: only the base models (the first layer,
      models/generated/base/) read a source();
    - `primary_key_untested`: every model has a primary-key test: `unique`
      and `not_null` on one column, `cdc_unique_combination`, or
      `cdc_checks` with a `key`, or with the accounting (which tests the
      landing file and line of the base, staging, quarantine and
      heartbeats models);
    - `undocumented`: every model, source and source table has a
      description, and so has every column declared for them, except a
      column declared for its tests only (what it means is said once: on
      the topic's staging or current-state model, or for a metadata column
      on the docs site's overview);
    - `later_layer_dependency`: a model depends on no model of a later layer
      (base, then staging and quarantine, current state, history and change
      feeds, then the operators' summaries and the examples: models that read
      the tables as an analyst would), and
      every model is in one of those folders (_cdc_layer).
    Used by the singular tests in tests/dbt/structure/.
-#}
{% macro cdc_structure_violations(rule) -%}
    {%- set found = [] -%}
    {%- if execute -%}
        {%- set models = graph.nodes.values() | selectattr('resource_type', 'equalto', 'model') | list -%}
        {%- if rule == 'source_outside_staging' -%}
            {%- do found.extend(_cdc_sources_outside_staging(models)) -%}
        {%- elif rule == 'primary_key_untested' -%}
            {%- do found.extend(_cdc_primary_keys_untested(models)) -%}
        {%- elif rule == 'undocumented' -%}
            {%- do found.extend(_cdc_undocumented(models, graph.sources.values())) -%}
        {%- elif rule == 'later_layer_dependency' -%}
            {%- do found.extend(_cdc_later_layer_dependencies(models)) -%}
        {%- else -%}
            {{ exceptions.raise_compiler_error('cdc_structure_violations: unknown rule ' ~ rule) }}
        {%- endif -%}
    {%- endif -%}
    {%- if found %}
    select
        '{{ rule }}' as rule,
        node,
        problem
    from values
        {%- for violation in found %}
        ('{{ violation[0] }}', '{{ violation[1] | replace("'", "\\'") }}'){{ "," if not loop.last }}
        {%- endfor %}
        as violations (node, problem)
    {%- else %}
    select
        '{{ rule }}' as rule,
        cast(null as string) as node,
        cast(null as string) as problem
    where false
    {%- endif %}
{%- endmacro %}

{#- The layer of a model by its folder: 0 base, 1 staging (a person's)
    and the quarantine and heartbeat views, 2 current state (a person's
    views, the generated state tables and the views beside them), 3 history
    and change feeds, 4 the operators' summaries (cdc_quarantine_summary)
    and examples; none outside them. -#}
{% macro _cdc_layer(model) -%}
    {%- set path = model.original_file_path -%}
    {%- for prefix, layer in [('models/generated/base/', 0), ('models/staging/', 1),
        ('models/generated/quarantine/', 1), ('models/generated/heartbeats/', 1),
        ('models/current/', 2), ('models/generated/state/', 2),
        ('models/generated/consistent/', 2), ('models/generated/progress/', 2),
        ('models/generated/history/', 3), ('models/generated/changes/', 3),
        ('models/generated/ops/', 4), ('models/ops/', 4),
        ('models/examples/', 4)] -%}
        {%- if path.startswith(prefix) -%}{{- return(layer) -}}{%- endif -%}
    {%- endfor -%}
    {{- return(none) -}}
{%- endmacro %}

{% macro _cdc_sources_outside_staging(models) -%}
    {%- set found = [] -%}
    {%- for model in models if _cdc_layer(model) != 0 -%}
        {%- for parent in model.depends_on.nodes if parent.startswith('source.') -%}
            {%- do found.append([model.name, 'reads ' ~ parent ~ ' outside models/generated/base/']) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{% macro _cdc_primary_keys_untested(models) -%}
    {%- set unique = {} -%}
    {%- set not_null = {} -%}
    {%- set keyed = [] -%}
    {%- for test in graph.nodes.values() if test.resource_type == 'test' and test.test_metadata -%}
        {%- set name = test.test_metadata.name -%}
        {%- set column = test.column_name or test.test_metadata.kwargs.get('column_name') -%}
        {%- if name in ('unique', 'not_null') and test.attached_node and column -%}
            {%- set into = unique if name == 'unique' else not_null -%}
            {%- do into.setdefault(test.attached_node, []).append(column) -%}
        {%- elif name == 'cdc_unique_combination' and test.attached_node -%}
            {%- do keyed.append(test.attached_node) -%}
        {%- elif name == 'cdc_checks' and test.test_metadata.kwargs.get('landed') -%}
            {%- do keyed.extend(test.depends_on.nodes) -%}
        {%- elif name == 'cdc_checks' and test.test_metadata.kwargs.get('key')
            and test.attached_node -%}
            {%- do keyed.append(test.attached_node) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set found = [] -%}
    {%- for model in models if model.unique_id not in keyed -%}
        {%- set both = unique.get(model.unique_id, []) | select('in', not_null.get(model.unique_id, [])) | list -%}
        {%- if not both -%}
            {%- do found.append([model.name, 'no primary-key test (unique and not_null on one column,'
                ~ ' cdc_unique_combination, or cdc_checks with a key or the accounting)']) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{% macro _cdc_undocumented(models, sources) -%}
    {%- set tested = {} -%}
    {%- for test in graph.nodes.values() if test.resource_type == 'test' and test.attached_node
        and test.column_name -%}
        {%- do tested.setdefault(test.attached_node, []).append(test.column_name) -%}
    {%- endfor -%}
    {%- set found = [] -%}
    {%- for node in models | list + sources | list -%}
        {%- set name = node.name if node.resource_type == 'model' else node.source_name ~ '.' ~ node.name -%}
        {%- if not (node.description or '') | trim -%}
            {%- do found.append([name, node.resource_type ~ ' has no description']) -%}
        {%- endif -%}
        {%- if node.resource_type == 'source' and not (node.source_description or '') | trim -%}
            {%- do found.append([name, 'source ' ~ node.source_name ~ ' has no description']) -%}
        {%- endif -%}
        {%- for column in node.columns.values() if not (column.description or '') | trim
            and column.name not in tested.get(node.unique_id, []) -%}
            {%- do found.append([name, 'column ' ~ column.name ~ ' has no description']) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{% macro _cdc_later_layer_dependencies(models) -%}
    {%- set layers = {} -%}
    {%- for model in models -%}
        {%- do layers.update({model.unique_id: _cdc_layer(model)}) -%}
    {%- endfor -%}
    {%- set found = [] -%}
    {%- for model in models -%}
        {%- set layer = layers[model.unique_id] -%}
        {%- if layer is none -%}
            {%- do found.append([model.name, model.original_file_path ~ ' is in no layer folder'
                ~ ' (models/staging, current, examples, generated/<layer>)']) -%}
        {%- else -%}
            {%- for parent in model.depends_on.nodes if layers.get(parent) is not none
                and layers[parent] > layer -%}
                {%- do found.append([model.name, 'depends on ' ~ parent ~ ', a later layer']) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}
