{#-
    Returns the select of a current-state view: the rows of a `__state`
    table (built by cdc_current_state with `cdc_delete_markers=true`)
    without its delete markers, so deleted keys are gone (hard deletes, the
    default). With soft deletes — the model's config `cdc_soft_deletes`,
    else the project variable of that name — the deleted keys stay,
    flagged: `is_deleted` is true and `deleted_at` holds the source's commit
    time of the delete (the row keeps the values of the delete's `before`
    image: with PostgreSQL's default replica identity, only the key).

    Arguments:
      relation (relation or CTE name): the `__state` rows to read.
-#}
{% macro cdc_current_view(relation) %}
    {{- return(adapter.dispatch('cdc_current_view', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_current_view(relation) -%}
    {%- if config.get('cdc_soft_deletes', var('cdc_soft_deletes', false)) -%}
    select
        state.*,
        state._cdc_op = 'd' as is_deleted,
        if(state._cdc_op = 'd', state._cdc_source_committed_at, null) as deleted_at
    from {{ relation }} as state
    {%- else -%}
    select state.*
    from {{ relation }} as state
    where state._cdc_op != 'd'
    {%- endif -%}
{%- endmacro %}
