{#-
    Post-hook of the current-state models. A truncate (op t) empties the
    source table at its position, so every merged row older than the newest
    truncate is deleted; rows written after it (greater _cdc_position) stay.
    Runs after each merge and is idempotent. Finds the model's staging
    model (meta.cdc_layer = staging) among its parents; returns the DELETE
    statement, or nothing when the topic has no truncate.
-#}
{% macro cdc_apply_truncates() %}
    {{- return(adapter.dispatch('cdc_apply_truncates', 'cdc')()) -}}
{% endmacro %}

{% macro default__cdc_apply_truncates() -%}
    {%- if execute -%}
        {%- for parent_id in model.depends_on.nodes -%}
            {%- set parent = graph.nodes.get(parent_id) -%}
            {%- if parent and parent.config.meta.get('cdc_layer') == 'staging' -%}
                {%- set staging = api.Relation.create(
                    database=parent.database, schema=parent.schema,
                    identifier=parent.alias) -%}
                {%- set found = run_query(
                    "select cast(max(_cdc_position) as string) from " ~ staging
                    ~ " where _cdc_op = 't'").columns[0].values()[0] -%}
                {%- if found -%}
                    delete from {{ this }}
                    where {{ _cdc_position_before(found) }}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
{%- endmacro %}

{#- `_cdc_position < [v0, v1, ...]` spelled out element by element: Iceberg
    cannot turn an array literal into a pushed-down filter. -#}
{% macro _cdc_position_before(found) -%}
    {%- set values = found | replace('[', '') | replace(']', '') | replace(' ', '') -%}
    {%- set values = values.split(',') -%}
    {%- for index in range(values | length) -%}
        {{ " or " if not loop.first }}(
        {%- for earlier in range(index) -%}
            _cdc_position[{{ earlier }}] = {{ values[earlier] | int }} and {% endfor -%}
        _cdc_position[{{ index }}] < {{ values[index] | int }})
    {%- endfor -%}
{%- endmacro %}
