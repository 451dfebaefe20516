{#-
    Returns the select of a current-state model: the newest change event per
    `unique_key` (by _cdc_position, i.e. source order) among the staging
    rows of `relation`. On a first build, keys whose newest event is a
    delete are left out; on incremental runs only batches landed after the
    newest one already merged are read, and deletes are kept so that the
    project's merge (spark__get_merge_sql) removes those rows. Truncates
    (op t) are not rows of any key: cdc_apply_truncates (a post-hook) applies
    them after the merge.
-#}
{% macro cdc_current_state(relation, unique_key) %}
    {{- return(adapter.dispatch('cdc_current_state', 'cdc')(relation, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_current_state(relation, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    select newest.*
    from (
        select max_by(struct(changes.*), changes._cdc_position) as newest
        from {{ relation }} as changes
        where
            changes._cdc_op != 't'
            {%- if is_incremental() %}
            and changes._landing_batch > (
                select coalesce(max(merged._landing_batch), -1) from {{ this }} as merged
            )
            {%- endif %}
        group by {% for key in keys %}changes.`{{ key }}`{{ ", " if not loop.last }}{% endfor %}
    ) as latest
    {%- if not is_incremental() %}
    where latest.newest._cdc_op != 'd'
    {%- endif %}
{%- endmacro %}
