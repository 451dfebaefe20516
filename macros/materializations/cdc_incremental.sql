{#-
    The project's materialization for its generated incremental models
    (base and merged-state tables; dbt_project.yml sets it). An incremental
    run is the model's one look-up (cdc_lookup, run while its select is
    compiled) and one statement — none when its input holds nothing newer
    than the table (cdc_nothing_new):

      append  insert into <this> by name select * from (<select>)
      merge   merge into <this> using (<select>) ... (spark__get_merge_sql;
              a merge none of whose source rows can match is the insert it
              amounts to)

    A first build: one `create or replace table ... as <select>` (comment,
    table properties and format from the config); a `--full-refresh` or a
    view in the way drops the relation first, as dbt-spark does (a Hive
    metastore refuses a replace that changes a column's type in place).
    No temporary view, no `describe`: dbt-spark's
    `incremental` stages every run through a temporary view (its analysis
    alone 0.6-0.8 s warm) and describes the target three to five times.

    Schema changes (`on_schema_change: append_new_columns`): the columns
    the model's table should hold (cdc_expected_columns: the staging
    view's for a model with a staging parent, else what the topic's spec
    says: its row columns and source-block fields; for a model whose
    columns are its select's own — a MongoDB current state, a transaction
    topic's transactions and progress — the select's, read by one more
    statement that analyses it and reads no row) are compared with the
    table's, from the look-up; when a column is missing or a type was
    widened (or the look-up could not read a type exactly), that run goes
    dbt's way once: a temporary view of the select, the project's schema
    change handling (spark__sync_column_schemas: add, widen in place, or
    stop naming the column), then the insert or merge from the view.

    Hooks, grants, `is_incremental()` (macros/materializations/
    is_incremental.sql), the relation cache and the docs are dbt's.
-#}
{% materialization cdc_incremental, adapter='spark' -%}
    {%- do dbt_spark_validate_get_file_format(config.get('file_format', default='parquet')) -%}
    {%- set strategy = config.get('incremental_strategy') or 'append' -%}
    {%- if strategy not in ('append', 'merge') -%}
        {%- do exceptions.raise_compiler_error(
            "cdc_incremental: incremental_strategy must be append or merge, not " ~ strategy) -%}
    {%- endif -%}
    {%- set on_schema_change = incremental_validate_on_schema_change(
        config.get('on_schema_change'), default='ignore') -%}
    {%- set existing = load_relation(this) -%}
    {%- set full_refresh_mode = should_full_refresh() -%}

    {{ run_hooks(pre_hooks) }}

    {%- if existing is none or existing.is_view or full_refresh_mode -%}
        {#- dropped first, as dbt-spark does: a Hive metastore refuses a
            `create or replace` that changes a column's type in place -#}
        {%- if existing is not none -%}
            {%- do adapter.drop_relation(existing) -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ create_table_as(false, this, compiled_code) }}
        {%- endcall -%}
    {%- elif cdc_nothing_new(cdc_lookup_if_run()) -%}
        {#- its input holds nothing newer than the table: no statement -#}
        {%- do store_raw_result('main', message='OK (nothing new)', code='OK', rows_affected=0) -%}
    {%- else -%}
        {%- set source = '(' ~ compiled_code ~ '\n)' -%}
        {%- if on_schema_change != 'ignore' and cdc_schema_drift(cdc_lookup(), compiled_code) -%}
            {%- set tmp = this.incorporate(path={'identifier': this.identifier ~ '__dbt_tmp'})
                .include(database=false, schema=false) -%}
            {%- call statement('create_tmp_relation') -%}
                {{ create_table_as(true, tmp, compiled_code) }}
            {%- endcall -%}
            {%- do process_schema_changes(on_schema_change, tmp, existing) -%}
            {%- set source = tmp -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {%- if strategy == 'append' %}
            insert into {{ this }} by name
            select * from {{ source }} as DBT_INTERNAL_SOURCE
            {%- else %}
            {{ get_merge_sql(this, source, config.get('unique_key'), none,
                config.get('incremental_predicates')) }}
            {%- endif %}
        {%- endcall -%}
    {%- endif -%}

    {%- do apply_grants(this, config.get('grants'), should_revoke(existing, full_refresh_mode)) -%}

    {{ run_hooks(post_hooks) }}

    {{ return({'relations': [this]}) }}
{%- endmaterialization %}

{#- Whether the model's table lacks a column it should hold, or holds a
    column narrower than it should (cdc_expected_columns; for a model whose
    columns are its select's own, those of `compiled_code`, read by one
    statement), by the model's look-up `looked_up`; true when the table's
    or the select's types could not be read exactly. -#}
{% macro cdc_schema_drift(looked_up, compiled_code) -%}
    {%- if looked_up.this_columns is none -%}
        {{- return(true) -}}
    {%- endif -%}
    {%- set expected = cdc_expected_columns(looked_up) -%}
    {%- if expected is none -%}
        {%- set expected = cdc_select_columns(compiled_code) -%}
        {%- if expected is none -%}
            {{- return(true) -}}
        {%- endif -%}
    {%- endif -%}
    {%- set held = {} -%}
    {%- for column in looked_up.this_columns -%}
        {%- do held.update({column.name | lower: _cdc_type_text(column.data_type)}) -%}
    {%- endfor -%}
    {%- for column in expected -%}
        {%- set stored = held.get(column.name | lower) -%}
        {%- if stored is none -%}
            {{- return(true) -}}
        {%- endif -%}
        {%- set wanted = _cdc_type_text(column.data_type) if column.data_type else stored -%}
        {%- if wanted != stored and not cdc_is_widening(wanted, stored) -%}
            {{- return(true) -}}
        {%- endif -%}
    {%- endfor -%}
    {{- return(false) -}}
{%- endmacro %}

{#- The columns (`name`, `data_type` or none) the model's table must hold:
    none for a model whose columns are its select's own (a MongoDB topic's
    current state, a transaction topic's transactions and progress: the
    caller reads the select's); the staging view's, for a model with a
    staging parent (a merged state, history, change feed); else, for a
    model of a topic (`meta.cdc_topic`), what its spec says the base model
    writes: the row columns and the source-block and envelope fields. -#}
{% macro cdc_expected_columns(looked_up) -%}
    {%- if model.config.meta.get('cdc_layer') in ('current', 'progress') -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- if looked_up.staging is not none -%}
        {%- if looked_up.staging_columns is not none -%}
            {{- return(looked_up.staging_columns) -}}
        {%- endif -%}
        {%- set named = [] -%}
        {%- for name in looked_up.staging_names -%}
            {%- do named.append({'name': name, 'data_type': none}) -%}
        {%- endfor -%}
        {{- return(named) -}}
    {%- endif -%}
    {%- set topic = model.config.meta.get('cdc_topic') -%}
    {%- if topic is none -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set columns = [] -%}
    {%- for column in spec.columns or [] -%}
        {%- do columns.append({'name': column.name, 'data_type': column.type}) -%}
    {%- endfor -%}
    {%- for name in spec.source_fields or [] -%}
        {%- do columns.append({'name': cdc_source_column_name(name) | trim,
            'data_type': (spec.source_types or {}).get(name, 'string')}) -%}
    {%- endfor -%}
    {%- for name in (cdc_extra_fields(spec) if spec.envelope_fields else []) -%}
        {%- do columns.append({'name': cdc_extra_column_name(name) | trim, 'data_type': 'string'}) -%}
    {%- endfor -%}
    {{- return(columns) -}}
{%- endmacro %}

{#- A Spark type as `typeof` writes it: lower case, no blanks or quotes. -#}
{% macro _cdc_type_text(data_type) -%}
    {{- return(data_type | lower | replace(' ', '') | replace('`', '')) -}}
{%- endmacro %}

{#- The columns of the select `compiled_code` (dicts of `name` and
    `data_type`), analysed by one statement that reads no row; none when
    its type text does not read back exactly (cdc_struct_columns). -#}
{% macro cdc_select_columns(compiled_code) -%}
    {%- set row = run_query('select ' ~ _cdc_names_and_type('selected', 'select')
        ~ ' from (select 1) as one left join (select * from (\n' ~ compiled_code
        ~ '\n) limit 0) as selected on true').rows[0] -%}
    {{- return(cdc_struct_columns(fromjson(row['select_names']), row['select_type'])) -}}
{%- endmacro %}
