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
-#}
{% macro spark__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates) %}
    {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
    {%- set keys = [] if unique_key is none else ([unique_key] if unique_key is string else unique_key) -%}
    {%- for key in keys -%}
        {%- do predicates.append('DBT_INTERNAL_SOURCE.' ~ key ~ ' = DBT_INTERNAL_DEST.' ~ key) -%}
    {%- endfor -%}
    {%- if not keys -%}{%- do predicates.append('FALSE') -%}{%- endif -%}
    {%- set dest_columns = adapter.get_columns_in_relation(target) -%}
    {%- set update_columns = get_merge_update_columns(
        config.get('merge_update_columns'), config.get('merge_exclude_columns'), dest_columns) -%}
    {%- set matched = config.get('merge_matched_condition') -%}
    {%- set delete = config.get('merge_delete_condition') -%}
    {%- set insert = config.get('merge_insert_condition') -%}
    {%- if config.get('cdc_delete_markers', false) -%}
        {#- a delete turns the row into its key's delete marker (update) or
            writes one (insert): see cdc_current_state -#}
        {%- set delete, insert = none, none -%}
    {%- endif -%}
    {%- set guard = (' and (' ~ matched ~ ')') if matched else '' -%}

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
{% endmacro %}
