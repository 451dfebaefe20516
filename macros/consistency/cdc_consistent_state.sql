{#-
    Returns the rows of a topic's `__state` table (`state`) as of the
    newest point where every transaction up to it has landed whole: the
    transaction-consistent state (with delete markers, like `state`; read
    it through cdc_current_view).

    `progress` is the transaction-progress table of the topic's connector
    (cdc_transaction_progress). Transactions are in commit order by
    `order_offset`; the cut is the first one still `open`. A transaction is
    visible when it is `complete` or `stalled` and before the cut; an event
    without a transaction (snapshot reads, changes made before transaction
    metadata was on) is always visible, one whose transaction the progress
    table does not know yet never is.

    A key whose stored row came from a transaction that is not visible is
    shown as its newest visible staged event says (`staging`, read only for
    those keys): its row image, a delete hiding it, no visible event
    leaving it out. Such a row carries no TOAST-filled values: an unchanged
    TOASTed column of that event reads null. And it is left out when a
    visible truncate of the topic, or (with `cdc_snapshot_deletes`, as the
    state model has it) a complete snapshot, began after that event: the
    state applied them to the key before its hidden change, so as of the
    cut the key is gone (a vanished key is left out rather than shown as a
    delete marker: with `cdc_soft_deletes` it is not listed as deleted).

    Arguments:
      state, staging, progress (relations): the topic's state and staging
        models and its connector's progress model.
      unique_key (string or list): the key columns.
      match (string): how a transaction id is matched (cdc_transaction_key).
-#}
{% macro cdc_consistent_state(state, staging, progress, unique_key, match) %}
    {{- return(adapter.dispatch('cdc_consistent_state', 'cdc')(
        state, staging, progress, unique_key, match)) -}}
{% endmacro %}

{% macro default__cdc_consistent_state(state, staging, progress, unique_key, match) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set columns = cdc_staging_columns(state) -%}
    {%- set staged = {} -%}
    {%- for column in cdc_staging_columns(staging) -%}
        {%- do staged.update({column.name: column.data_type}) -%}
    {%- endfor -%}
    {%- set toastable = cdc_toastable_columns(columns, keys) -%}
    with

    cut as (
        select min(progress.order_offset) as order_offset
        from {{ progress }} as progress
        where progress.status = 'open'
    ),

    visible as (
        select progress.transaction_key
        from {{ progress }} as progress
        cross join cut
        where
            progress.status != 'open'
            and (
                cut.order_offset is null
                or progress.order_offset is null
                or progress.order_offset < cut.order_offset
            )
    ),

    held as (
        select {{ _cdc_key_list('state', keys) }}
        from {{ state }} as state
        left anti join visible
            on {{ cdc_transaction_key('state._cdc_transaction_id', match) }}
                = visible.transaction_key
        where state._cdc_transaction_id is not null
    ),

    shown as (
        select state.*
        from {{ state }} as state
        left anti join held
            on {% for key in keys %}state.{{ cdc_ident(key) }} <=> held.{{ cdc_ident(key) }}
            {{- " and " if not loop.last }}{% endfor %}
    ),

    {#- the staged events of visible transactions, and those without one -#}
    shown_events as (
        select events.*
        from {{ staging }} as events
        left join visible
            on {{ cdc_transaction_key('events._cdc_transaction_id', match) }}
                = visible.transaction_key
        where events._cdc_transaction_id is null or visible.transaction_key is not null
    ),

    before_held as (
        select max_by(struct(events.*), events._cdc_position) as newest
        from shown_events as events
        left semi join held
            on {% for key in keys %}events.{{ cdc_ident(key) }} <=> held.{{ cdc_ident(key) }}
            {{- " and " if not loop.last }}{% endfor %}
        where events._cdc_op != 't'
        group by {{ _cdc_key_list('events', keys) }}
    ),

    {#- positions before which a held key's older visible event no longer
        stands: visible truncates and complete snapshots, incremental scans
        included (which would have read the key, had it still existed) -#}
    barriers as (
        select events._cdc_position as position
        from shown_events as events
        where events._cdc_op = 't'
        {%- if config.get('cdc_snapshot_deletes', var('cdc_snapshot_deletes', false))
            and '_cdc_source_snapshot' in staged %}
        union all
        select complete.started_at as position
        from ({{ cdc_complete_snapshots(staging) }}) as complete
        {%- if config.get('cdc_snapshot_scans') %}
        union all
        select scans.started_at as position
        from ({{ cdc_complete_incremental_scans(staging, config.get('cdc_snapshot_scans')) }})
            as scans
        {%- endif %}
        {%- endif %}
    ),

    last_barrier as (
        select max(barriers.position) as position
        from barriers
    ),

    standing as (
        select before_held.newest
        from before_held
        cross join last_barrier
        where
            last_barrier.position is null
            or before_held.newest._cdc_position >= last_barrier.position
    )

    {%- if not columns %}

    select shown.* from shown
    {%- else %}

    select shown.* from shown
    union all
    select
        {%- for column in columns %}
        {%- set name = column.name %}
        {%- set field = 'standing.newest.' ~ cdc_ident(name) %}
        {%- if name == '_cdc_value_positions' %}
        cast(map() as {{ column.data_type }}) as {{ cdc_ident(name) }}
        {%- elif name not in staged %}
        cast(null as {{ column.data_type }}) as {{ cdc_ident(name) }}
        {%- elif name in toastable %}
        if({{ cdc_is_unavailable(field, toastable[name]) }}, null, {{ field }}) as {{ cdc_ident(name) }}
        {%- elif staged[name] != column.data_type %}
        cast({{ field }} as {{ column.data_type }}) as {{ cdc_ident(name) }}
        {%- else %}
        {{ field }} as {{ cdc_ident(name) }}
        {%- endif %}
        {{- "," if not loop.last }}
        {%- endfor %}
    from standing
    {%- endif %}
{%- endmacro %}
