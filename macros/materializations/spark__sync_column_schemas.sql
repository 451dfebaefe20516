{#-
    Project override of dbt's on_schema_change handling for the CDC tables
    (base and current-state models use `append_new_columns`): new columns
    are added (older rows read null there), and a column whose type the
    generated schema widened is altered in place when the table format can
    (int8 → int16 → int32 → int64, float → double, decimal of the same scale
    and a larger precision); a type the table already holds wider is left
    as is. Any other type change stops the run with a
    message naming the column and the way out (a full refresh of the model).
    Columns are never dropped. Other modes behave as dbt's.
-#}
{% macro spark__sync_column_schemas(on_schema_change, target_relation, schema_changes_dict) %}
    {%- if on_schema_change != 'append_new_columns' -%}
        {{- return(default__sync_column_schemas(
            on_schema_change, target_relation, schema_changes_dict)) -}}
    {%- endif -%}
    {%- set added = schema_changes_dict['source_not_in_target'] -%}
    {%- if added | length > 0 -%}
        {%- do alter_relation_add_remove_columns(target_relation, added, none) -%}
    {%- endif -%}
    {%- set widened = [] -%}
    {%- set target_types = {} -%}
    {%- for column in adapter.get_columns_in_relation(target_relation) -%}
        {%- do target_types.update({column.name: column.data_type}) -%}
    {%- endfor -%}
    {%- for change in schema_changes_dict['new_target_types'] -%}
        {%- set old_type = target_types.get(change['column_name'], '') -%}
        {%- if cdc_is_widening(change['new_type'], old_type) -%}
            {#- the table already holds it wider (Iceberg stores tinyint and
                smallint as int): inserts widen it -#}
        {%- elif not cdc_is_widening(old_type, change['new_type']) -%}
            {{ exceptions.raise_compiler_error(
                "column " ~ change['column_name'] ~ " of " ~ target_relation ~ " changed type "
                ~ old_type ~ " -> " ~ change['new_type'] ~ ", which cannot be applied in place:"
                ~ " rebuild it with `dbt run --full-refresh --select "
                ~ target_relation.identifier ~ "+`") }}
        {%- else -%}
            {%- do alter_column_type(target_relation, change['column_name'], change['new_type']) -%}
            {%- do widened.append(change['column_name'] ~ ' ' ~ old_type ~ ' -> '
                ~ change['new_type']) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if added | length > 0 or widened | length > 0 -%}
        {%- do log('In ' ~ target_relation ~ ': columns added '
            ~ added | map(attribute='name') | list ~ ', types widened ' ~ widened, info=true) -%}
    {%- endif -%}
{% endmacro %}

{#- Whether a column of type `old` can become `new` in place (Iceberg's and
    Delta's type widening). -#}
{% macro cdc_is_widening(old, new) -%}
    {%- set integers = ['tinyint', 'smallint', 'int', 'bigint'] -%}
    {%- set old = old | lower | replace(' ', '') -%}
    {%- set new = new | lower | replace(' ', '') -%}
    {%- if old in integers and new in integers -%}
        {{- return(integers.index(new) > integers.index(old)) -}}
    {%- elif old == 'float' and new == 'double' -%}
        {{- return(true) -}}
    {%- elif old.startswith('decimal(') and new.startswith('decimal(') -%}
        {%- set o = old[8:-1].split(',') -%}
        {%- set n = new[8:-1].split(',') -%}
        {{- return(o[1] == n[1] and (n[0] | int) > (o[0] | int)) -}}
    {%- endif -%}
    {{- return(false) -}}
{%- endmacro %}
