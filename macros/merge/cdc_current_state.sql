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

    PostgreSQL TOAST: a text, binary or text-array column holding Debezium's
    unavailable-value placeholder keeps the key's previous value (the newest
    known one in the batch, else the stored one: see spark__get_merge_sql;
    null when none was ever seen); the placeholder is never written.

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
    {%- set staging = cdc_staging_parent() -%}
    {%- set truncated_at = cdc_newest_truncate(staging, none) -%}
    {%- set columns = cdc_staging_columns(staging) -%}
    {%- set toastable = cdc_toastable_columns(columns, keys) -%}
    select
        {%- if toastable %}
        {%- for column in columns %}
        {%- set field = 'latest.newest.`' ~ column.name ~ '`' %}
        {%- if column.name in toastable %}
        {#- an unavailable (TOASTed, unchanged) value: the newest known one of
            the batch; else, on a first build, null; else the placeholder,
            which the merge replaces with the stored value -#}
        case
            when not {{ cdc_is_unavailable(field, toastable[column.name]) }} then {{ field }}
            when latest.`_cdc_known_{{ column.name }}` is not null
                then latest.`_cdc_known_{{ column.name }}`.v
            {%- if watermark is none %}
            else null
            {%- else %}
            else {{ field }}
            {%- endif %}
        end as `{{ column.name }}`{{ "," if not loop.last }}
        {%- else %}
        {{ field }}{{ "," if not loop.last }}
        {%- endif %}
        {%- endfor %}
        {%- else %}
        latest.newest.*
        {%- endif %}
    from (
        select
            max_by(struct(changes.*), changes._cdc_position) as newest
            {%- for name, data_type in toastable.items() %},
            max_by(
                struct(changes.`{{ name }}` as v),
                if({{ cdc_is_unavailable('changes.`' ~ name ~ '`', data_type) }},
                    null, changes._cdc_position)
            ) as `_cdc_known_{{ name }}`
            {%- endfor %}
        from {{ relation }} as changes
        where
            changes._cdc_op != 't'
            and {{ cdc_new_batches_filter('changes._landing_batch', watermark) }}
        group by {{ _cdc_key_list('changes', keys) }}
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

{#- The columns of a staging relation (none when not executing or not
    built yet). -#}
{% macro cdc_staging_columns(staging) -%}
    {%- if not execute or staging is none or load_relation(staging) is none -%}
        {{- return([]) -}}
    {%- endif -%}
    {{- return(adapter.get_columns_in_relation(staging)) -}}
{%- endmacro %}

{#- Of `columns` (a relation's, from adapter.get_columns_in_relation), those
    that can hold Debezium's unavailable-value placeholder (an unchanged
    TOASTed PostgreSQL value, an unavailable Oracle LOB): name -> Spark type,
    for text, binary and text-array columns that are not keys. -#}
{% macro cdc_toastable_columns(columns, keys) -%}
    {%- set found = {} -%}
    {%- for column in columns -%}
        {%- set data_type = column.data_type | lower | replace(' ', '') -%}
        {%- if not column.name.startswith('_') and column.name not in keys
            and data_type in ('string', 'binary', 'array<string>') -%}
            {%- do found.update({column.name: data_type}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{#- True when `expr` (of Spark type `data_type`) is the unavailable-value
    placeholder (var cdc_unavailable_value_placeholder, Debezium's default
    `__debezium_unavailable_value`): the text, its bytes, or a one-item
    array of it. Never null. -#}
{% macro cdc_is_unavailable(expr, data_type) -%}
    {%- set placeholder = var('cdc_unavailable_value_placeholder', '__debezium_unavailable_value')
        | replace("'", "\\'") -%}
    {%- if data_type == 'binary' -%}
        coalesce({{ expr }} = cast('{{ placeholder }}' as binary), false)
    {%- elif data_type == 'array<string>' -%}
        coalesce({{ expr }} = array('{{ placeholder }}'), false)
    {%- else -%}
        coalesce({{ expr }} = '{{ placeholder }}', false)
    {%- endif -%}
{%- endmacro %}

{#- `alias.`k1`, alias.`k2`, ...`: the key columns of `keys`. -#}
{% macro _cdc_key_list(alias, keys) -%}
    {%- for key in keys %}{{ alias }}.`{{ key }}`{{ ", " if not loop.last }}{% endfor -%}
{%- endmacro %}
