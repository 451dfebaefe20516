{#-
    Returns the select of a topic's change feed (`<model>__changes`, dbt
    meta `cdc_layer: changes`; a topic declares `changes: true`): one row
    per key whose row in the topic's `__state` table a run inserted,
    updated or deleted, appended by each run, so that a downstream
    incremental model reads only the rows newer than the newest
    `_cdc_feed_snapshot_id` it has seen.

      _cdc_change            insert, update or delete; upsert when the
                             previous row can no longer be read (the
                             snapshot the feed last read was expired by
                             maintenance: run the feed at least every
                             `keep_snapshots` commits of its state table),
      <columns>              the key's new values (a delete: null, but the
                             key and the delete's metadata),
      _cdc_previous_<column> the key's previous value of each source column,
      _cdc_previous_position and the previous row's _cdc_position (null for
                             an insert, an upsert),
      _cdc_feed_snapshot_id  the `__state` table's snapshot the new values
                             were read from,
      _cdc_run_started_at, _cdc_invocation_id  the dbt run that appended it.

    A run reads only the state rows written since the feed last ran (a
    `_landing_batch` newer than the feed holds: Iceberg skips older files
    by their column statistics), and those keys' previous rows from the
    state table as of the snapshot the feed last read (time travel): one
    pass over that snapshot for the changed keys, not a diff of two whole
    versions. When the state's new batches hold a truncate, the keys it
    deleted (live then, without a row now) are deletes too. The first build
    lists every live key as an insert.

    Arguments:
      state (relation): the topic's `__state` table (delete markers kept).
      unique_key (string or list): its key columns.
-#}
{% macro cdc_changes(state, unique_key) %}
    {{- return(adapter.dispatch('cdc_changes', 'cdc')(state, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_changes(state, unique_key) -%}
    {%- if not cdc_select_is_sent() -%}
    {#- a run with nothing new sends no statement: the state's columns and
        Iceberg snapshots are not looked up for a select never sent -#}
    select * from {{ this }} where false
    {%- else -%}
    {{- _cdc_changes_select(state, unique_key) -}}
    {%- endif -%}
{%- endmacro %}

{% macro _cdc_changes_select(state, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set columns = cdc_staging_columns(state) | rejectattr('name', 'eq', '_cdc_value_positions')
        | list -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set current = cdc_current_snapshot(state) -%}
    {%- set before = cdc_feed_previous_snapshot(state) if watermark is not none else none -%}
    {%- set truncated = cdc_newest_truncate(cdc_staging_parent(), watermark)
        if before is not none and before.id is not none else none -%}
    {%- set value_names = cdc_value_column_names(columns, keys) -%}
    {%- set values = columns | selectattr('name', 'in', value_names) | list -%}
    {%- set changed_keys -%}
        select {{ _cdc_key_list('written', keys) }}
        from {{ state }} as written
        where written._landing_batch > {{ watermark }}
    {%- endset -%}
    {%- if watermark is none or before.id is none %}
    {#- the first build, or nothing listed yet: every live key is new -#}
    {{ _cdc_change_rows(state, columns, values, keys, current, "'insert'") }}
    where
        changed._cdc_op != 'd'
        {%- if watermark is not none %}
        and changed._landing_batch > {{ watermark }}
        {%- endif %}
    {%- else %}
    {%- set kind -%}
        case
            when changed._cdc_op = 'd' then 'delete'
            {%- if before.expired %}
            else 'upsert'
            {%- else %}
            when earlier._cdc_op is null or earlier._cdc_op = 'd' then 'insert'
            else 'update'
            {%- endif %}
        end
    {%- endset %}
    {{ _cdc_change_rows(state, columns, values, keys, current, kind,
        none if before.expired else before.id, changed_keys) }}
    where
        changed._landing_batch > {{ watermark }}
        {%- if not before.expired %}
        and not (changed._cdc_op = 'd' and (earlier._cdc_op is null or earlier._cdc_op = 'd'))
        {%- endif %}
    {%- if truncated and not before.expired %}
    {#- the keys a truncate deleted: live before, without a row now #}
    union all
    {{ _cdc_change_rows(state ~ ' version as of ' ~ before.id, columns, values, keys, current,
        "'delete'", gone=true) }}
    left anti join {{ state }} as now
        on {{ _cdc_same_key('changed', 'now', keys) }}
    where changed._cdc_op != 'd'
    {%- endif %}
    {%- endif %}
{%- endmacro %}

{#- `select <the feed's columns> from <rows> as changed`: `kind`, the SQL
    of `_cdc_change`; the previous values from `earlier` (the rows of
    `changed_keys` as of snapshot `earlier_id`, joined when given), else
    from the row itself when it is `gone` (a key a truncate deleted: its
    new values null), else null. -#}
{% macro _cdc_change_rows(rows, columns, values, keys, current, kind, earlier_id=none,
    changed_keys=none, gone=false) -%}
    {%- set value_names = values | map(attribute='name') | list -%}
    {%- set previous = 'earlier' if earlier_id is not none else ('changed' if gone else none) -%}
    select
        {{ kind }} as _cdc_change,
        {%- for column in columns %}
        {%- if column.name in value_names %}
        {%- if gone %}
        cast(null as {{ column.data_type }}) as {{ cdc_ident(column.name) }},
        {%- else %}
        if(changed._cdc_op = 'd', null, changed.{{ cdc_ident(column.name) }}) as {{ cdc_ident(column.name) }},
        {%- endif %}
        {%- elif gone and column.name == '_cdc_op' %}
        'd' as _cdc_op,
        {%- else %}
        changed.{{ cdc_ident(column.name) }},
        {%- endif %}
        {%- endfor %}
        {%- for column in values + [{'name': '_cdc_position', 'data_type': 'array<bigint>'}] %}
        {#- `_cdc_previous_<column>`; `_cdc_position` gives `_cdc_previous_position` (a
            `_cdc_` inside a source column's name stays: its name is the source's) -#}
        {%- set target = '_cdc_previous_'
            ~ (column.name[5:] if column.name.startswith('_cdc_') else column.name) %}
        {%- if previous is none %}
        cast(null as {{ column.data_type }}) as {{ cdc_ident(target) }},
        {%- else %}
        if({{ previous }}._cdc_op = 'd', null, {{ previous }}.{{ cdc_ident(column.name) }})
            as {{ cdc_ident(target) }},
        {%- endif %}
        {%- endfor %}
        cast({{ current if current is not none else 'null' }} as bigint) as _cdc_feed_snapshot_id,
        {{ cdc_staged_at() }} as _cdc_run_started_at,
        '{{ invocation_id }}' as _cdc_invocation_id
    from {{ rows }} as changed
    {%- if earlier_id is not none %}
    left join (
        select earlier.*
        from {{ rows }} version as of {{ earlier_id }} as earlier
        left semi join ({{ changed_keys }}) as written
            on {{ _cdc_same_key('earlier', 'written', keys) }}
    ) as earlier
        on {{ _cdc_same_key('changed', 'earlier', keys) }}
    {%- endif %}
{%- endmacro %}

{#- The id of `relation`'s current Iceberg snapshot (none before it has one). -#}
{% macro cdc_current_snapshot(relation) -%}
    {%- if not execute or load_relation(relation) is none -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set found = run_query('select snapshot_id from ' ~ relation
        ~ '.snapshots order by committed_at desc limit 1').columns[0].values() -%}
    {{- return(found[0] if found else none) -}}
{%- endmacro %}

{#- The snapshot of `state` this feed (`this`) last read: `id` (none when
    the feed holds no row yet: everything is new to it) and `expired` (the
    state table no longer has it). -#}
{% macro cdc_feed_previous_snapshot(state) -%}
    {%- set recorded = run_query('select max_by(_cdc_feed_snapshot_id, _cdc_run_started_at) from '
        ~ this).columns[0].values()[0] -%}
    {%- if recorded is none -%}
        {{- return({'id': none, 'expired': false}) -}}
    {%- endif -%}
    {%- set kept = run_query('select count(*) from ' ~ state ~ '.snapshots where snapshot_id = '
        ~ recorded).columns[0].values()[0] -%}
    {{- return({'id': recorded, 'expired': kept == 0}) -}}
{%- endmacro %}
