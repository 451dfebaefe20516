{#-
    Pre-hook of the current-state models. A truncate (op t) empties the
    source table at its position: when the batches this run merges hold one,
    every merged row older than the newest such truncate is deleted before
    the merge (cdc_current_state drops the older events of the batch
    itself). Rows written after it (greater _cdc_position) stay. Finds the
    model's staging model (meta.cdc_layer = staging) among its parents;
    returns the DELETE statement, or nothing (no truncate, first build).
-#}
{% macro cdc_apply_truncates() %}
    {{- return(adapter.dispatch('cdc_apply_truncates', 'cdc')()) -}}
{% endmacro %}

{% macro default__cdc_apply_truncates() -%}
    {%- if execute and is_incremental()
        and model.config.meta.get('cdc_kind', 'changes') == 'changes' -%}
        {%- set found = cdc_lookup().truncate_new -%}
        {%- if found -%}
            delete from {{ this }}
            where {{ cdc_position_before('_cdc_position', found) }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}

{#- The relation of the model's staging parent (meta.cdc_layer = staging),
    or none (also in a dbt unit test, whose inputs are fixtures). -#}
{% macro cdc_staging_parent() -%}
    {{- return(cdc_parent_of_layer('staging')) -}}
{%- endmacro %}

{#- The relation of the model's first parent model whose meta.cdc_layer is
    `layer`, or none. -#}
{% macro cdc_parent_of_layer(layer) -%}
    {%- set depends_on = model.get('depends_on') or {} -%}
    {%- for parent_id in depends_on.get('nodes') or [] -%}
        {%- set parent = (graph.get('nodes') or {}).get(parent_id) -%}
        {%- if parent and parent.config.meta.get('cdc_layer') == layer -%}
            {{- return(api.Relation.create(database=parent.database,
                schema=parent.schema, identifier=parent.alias)) -}}
        {%- endif -%}
    {%- endfor -%}
    {{- return(none) -}}
{%- endmacro %}

{#- The newest truncate's `_cdc_position` (as text, e.g. "[34133344, 13]")
    among the staging rows of batches after `watermark`, or none. -#}
{% macro cdc_newest_truncate(staging, watermark) -%}
    {%- if not execute or staging is none or load_relation(staging) is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set looked_up = cdc_lookup() -%}
    {%- if looked_up.get('staging') == staging
        and (looked_up.all_truncates if watermark is none
            else looked_up.truncates and watermark == looked_up.watermark) -%}
        {{- return(looked_up.truncate_all if watermark is none else looked_up.truncate_new) -}}
    {%- endif -%}
    {%- set found = run_query(
        "select cast(max(_cdc_position) as string) from " ~ staging
        ~ " where _cdc_op = 't' and "
        ~ cdc_new_batches_filter('_landing_batch', watermark if watermark is not none else -1)
    ).columns[0].values()[0] -%}
    {{- return(found) -}}
{%- endmacro %}

{#- `<column> < [v0, v1, ...]` spelled out element by element: Iceberg
    cannot turn an array literal into a pushed-down filter. -#}
{% macro cdc_position_before(column, found) -%}
    {%- set values = found | replace('[', '') | replace(']', '') | replace(' ', '') -%}
    {%- set values = values.split(',') -%}
    {%- for index in range(values | length) -%}
        {{ " or " if not loop.first }}(
        {%- for earlier in range(index) -%}
            {{ column }}[{{ earlier }}] = {{ values[earlier] | int }} and {% endfor -%}
        {{ column }}[{{ index }}] < {{ values[index] | int }})
    {%- endfor -%}
{%- endmacro %}
