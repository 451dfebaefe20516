{#-
    Returns the select of a current-state model: the newest change event per
    `unique_key` (by _cdc_position, i.e. source order) among the staging
    rows of `relation`. On incremental runs only batches landed after the
    newest one already merged are read (a literal filter Iceberg prunes
    files with); the project's merge (spark__get_merge_sql) lands a change
    on a stored row only if it is newer.

    Deletes: in a model configured `cdc_delete_markers=true` (the scaffolded
    `<model>__state` tables) a delete is kept as its key's row, `_cdc_op =
    'd'`, with its position: a late or replayed older event of that key then
    meets a newer stored row and changes nothing, so a deleted key cannot
    come back (the analysts' view, cdc_current_view, hides the markers).
    Without it, deletes remove rows and a first build leaves out keys whose
    newest event is a delete.

    Truncates (op t): every event older than the newest truncate of the
    topic (in any batch, landed before or with this one) is dropped here,
    and the pre-hook cdc_apply_truncates deletes the stored rows older than a
    truncate in the batches this run merges.
-#}
{% macro cdc_current_state(relation, unique_key) %}
    {{- return(adapter.dispatch('cdc_current_state', 'cdc')(relation, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_current_state(relation, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set markers = config.get('cdc_delete_markers', false) -%}
    {#- all batches: a late event older than a truncate merged by an earlier
        run must not come back either -#}
    {%- set truncated_at = cdc_newest_truncate(cdc_staging_parent(), none) -%}
    select latest.newest.*
    from (
        select max_by(struct(changes.*), changes._cdc_position) as newest
        from {{ relation }} as changes
        where
            changes._cdc_op != 't'
            and {{ cdc_new_batches_filter('changes._landing_batch', watermark) }}
        group by {% for key in keys %}changes.`{{ key }}`{{ ", " if not loop.last }}{% endfor %}
    ) as latest
    where
        true
        {%- if watermark is none and not markers %}
        and latest.newest._cdc_op != 'd'
        {%- endif %}
        {%- if truncated_at %}
        and not ({{ cdc_position_before('latest.newest._cdc_position', truncated_at) }})
        {%- endif %}
{%- endmacro %}
