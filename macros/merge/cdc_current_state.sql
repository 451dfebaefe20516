{#-
    Returns the select of a current-state model: the newest change event per
    `unique_key` (by _cdc_position, i.e. source order) among the staging
    rows of `relation`. On incremental runs only batches landed after the
    newest one already merged are read (a literal filter Iceberg prunes
    files with), and deletes are kept so that the project's merge
    (spark__get_merge_sql) removes those rows; on a first build keys whose
    newest event is a delete are left out. A truncate (op t) in the batches
    read drops every event older than it here, and the pre-hook
    cdc_apply_truncates deletes the merged rows older than it.
-#}
{% macro cdc_current_state(relation, unique_key) %}
    {{- return(adapter.dispatch('cdc_current_state', 'cdc')(relation, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_current_state(relation, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set truncated_at = cdc_newest_truncate(cdc_staging_parent(), watermark) -%}
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
        {%- if watermark is none %}
        and latest.newest._cdc_op != 'd'
        {%- endif %}
        {%- if truncated_at %}
        and not ({{ cdc_position_before('latest.newest._cdc_position', truncated_at) }})
        {%- endif %}
{%- endmacro %}
