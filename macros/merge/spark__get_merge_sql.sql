{#-
    Project override of dbt-spark's merge. Same statement, plus three
    optional model configs the CDC models set (dbt_project.yml, current/):
      merge_matched_condition  guard on every matched branch (newer only),
      merge_delete_condition   matched rows meeting it are deleted,
      merge_insert_condition   unmatched source rows are inserted only if met;
    and `cdc_delete_markers` (the `__state` models): deletes are written as
    rows (delete markers) instead, so the last two do not apply.
    (Debezium's TOAST placeholder never reaches a merge: cdc_current_state
    resolves it against the stored row.)
    Without them it behaves as dbt-spark's. `when matched and ... then
    delete` is supported by Iceberg and Delta alike.

    With `incremental_predicates` (the base models: only a quarantined
    `schema_not_covered` row can be replaced), when no stored row meets
    them no source row can match, and the merge is the insert it amounts
    to (`cdc_insert_when_nothing_matches`): one pass over the source
    instead of a join whose runtime filter evaluates the source (every
    value's JSON parse) a second time. The look costs one query that
    Iceberg's column statistics answer from the few files such rows are in.
-#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) %}
    {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
    {%- set keys = [] if unique_key is none else ([unique_key] if unique_key is string else unique_key) -%}
    {%- for key in keys -%}
        {%- do predicates.append('DBT_INTERNAL_SOURCE.' ~ key ~ ' = DBT_INTERNAL_DEST.' ~ key) -%}
    {%- endfor -%}
    {%- if not keys -%}{%- do predicates.append('FALSE') -%}{%- endif -%}
    {%- set update_columns = none -%}
    {%- if config.get('merge_update_columns') or config.get('merge_exclude_columns') -%}
        {%- set update_columns = get_merge_update_columns(
            config.get('merge_update_columns'), config.get('merge_exclude_columns'),
            adapter.get_columns_in_relation(target)) -%}
    {%- endif -%}
    {%- set matched = config.get('merge_matched_condition') -%}
    {%- set delete = config.get('merge_delete_condition') -%}
    {%- set insert = config.get('merge_insert_condition') -%}
    {%- if config.get('cdc_delete_markers', false) -%}
        {#- a delete turns the row into its key's delete marker (update) or
            writes one (insert): see cdc_current_state -#}
        {%- set delete, insert = none, none -%}
    {%- endif -%}
    {%- set guard = (' and (' ~ matched ~ ')') if matched else '' -%}
    {%- if incremental_predicates and not cdc_any_row_meets(target, incremental_predicates) %}
    {{ cdc_insert_when_nothing_matches(target, source, insert) }}
    {%- else %}

    merge into {{ target }} as DBT_INTERNAL_DEST
    using {{ source }} as DBT_INTERNAL_SOURCE
    on {{ predicates | join(' and ') }}
    {%- if delete %}
    when matched{{ guard }} and ({{ delete }}) then delete
    {%- endif %}
    when matched{{ guard }} then update set
    {%- if update_columns %}
        {%- for column_name in update_columns %}
        {{ column_name }} = DBT_INTERNAL_SOURCE.{{ column_name }}{{ "," if not loop.last }}
        {%- endfor %}
    {%- else %} *
    {%- endif %}
    when not matched{{ (' and (' ~ insert ~ ')') if insert else '' }} then insert *
    {%- endif %}
{% endmacro %}

{#- Whether a row of `target` meets every one of `predicates` (written on
    the alias DBT_INTERNAL_DEST): the model's look-up answered it when it
    ran (cdc_lookup), else one query that Iceberg's column statistics
    answer from the few files such rows are in. -#}
{% macro cdc_any_row_meets(target, predicates) -%}
    {%- set looked_up = cdc_lookup_if_run() -%}
    {%- if looked_up and looked_up.incremental -%}
        {{- return(looked_up.replay) -}}
    {%- endif -%}
    {%- set found = run_query(
        'select 1 from ' ~ target ~ ' as DBT_INTERNAL_DEST where ('
        ~ (predicates | join(') and (')) ~ ') limit 1') -%}
    {{- return(found.rows | length > 0) -}}
{%- endmacro %}

{#- A merge none of whose source rows can match: insert the source rows
    (meeting `insert`, the insert branch's condition, if any) by name. -#}
{% macro cdc_insert_when_nothing_matches(target, source, insert) -%}
    insert into {{ target }} by name
    select * from {{ source }} as DBT_INTERNAL_SOURCE
    {%- if insert %}
    where {{ insert }}
    {%- endif %}
{%- endmacro %}
