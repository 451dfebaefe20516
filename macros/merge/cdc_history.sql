{#-
    Returns the select of an SCD type 2 history model: one row per version
    of each key, a version being opened by a create, snapshot read or update
    and closed by the key's next change (or by a truncate) in source order
    (_cdc_position):

      valid_from_position / valid_from   the opening event's position and
                                         source commit time,
      valid_to_position / valid_to       the closing event's (null: open),
      opened_by_op / closed_by_op        c, r, u / u, d, t (null: open),
      is_current                         the version is open.

    Incremental: the versions of every key with an event in the batches
    landed since the last run are recomputed from all of that key's staged
    events (all keys when those batches hold a truncate), and merged by
    (key, valid_from_position). An event landing late, between two
    versions, therefore splits the version it falls in: the history equals
    the one built from the whole landing in source order, and its open
    versions equal the current-state view. A kept value (cdc_kept_columns:
    Debezium's unavailable-value placeholder, a null an update sets in a
    column of `cdc_ignore_null_updates`) takes the key's previous value.
    With `cdc_history_columns` (history on chosen columns), only a change
    of a tracked column opens a version; any other change updates the open
    version in place (_cdc_history_islands).
    With `cdc_snapshot_deletes`, a key a complete snapshot lacked has its
    version closed by a delete at the snapshot's first position
    (cdc_snapshot_deletes.sql).
    An event re-sent under a new Kafka offset (same key, op, source position
    and values) opens no second version: the first landed copy (landing
    batch, partition, offset) is kept, so written versions never move.

    Arguments:
      relation (relation or CTE name): the staging rows of the topic.
      unique_key (list of strings): the primary-key columns.
-#}
{% macro cdc_history(relation, unique_key) %}
    {{- return(adapter.dispatch('cdc_history', 'cdc')(relation, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_history(relation, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set staging = cdc_staging_parent() -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set new_truncate = cdc_newest_truncate(staging, watermark)
        if watermark is not none else none -%}
    {%- set columns = cdc_staging_columns(staging) -%}
    {%- set fillable = cdc_kept_columns(columns, keys) -%}
    {%- set tracked = cdc_history_tracked_columns(columns, keys) -%}
    {#- with cdc_snapshot_deletes: every complete snapshot of the topic
        closes the versions of the keys it lacks (a synthetic delete at its
        first position); one that completes in the new batches makes the
        run recompute every key, like a truncate -#}
    {%- set snapshots = cdc_completed_snapshots(staging, columns, -1) -%}
    {%- set new_snapshots = snapshots | selectattr('landing_batch', 'gt', watermark) | list
        if watermark is not none else snapshots -%}
    {%- set only_touched = watermark is not none and not new_truncate and not new_snapshots -%}
    {%- set stored = load_relation(this) if watermark is not none and tracked is not none
        else none -%}
    select
        {%- for column in columns %}
        versions.{{ cdc_ident(column.name) }},
        {%- endfor %}
        {%- if not columns %}
        versions.*,
        {%- endif %}
        versions.opening.position as valid_from_position,
        versions.opening.committed_at as valid_from,
        versions.opening.op as opened_by_op,
        versions.closing.position as valid_to_position,
        versions.closing.committed_at as valid_to,
        versions.closing.op as closed_by_op,
        versions.closing.position is null as is_current
    from (
        {%- if tracked is none %}
        select
            filled.*,
            named_struct(
                'position', filled._cdc_position,
                'committed_at', filled._cdc_source_committed_at,
                'op', filled._cdc_op
            ) as opening
        from (
            {{- _cdc_history_events(relation, keys, columns, fillable, snapshots,
                only_touched, watermark) }}
        ) as filled
        where filled._cdc_op in ('c', 'r', 'u')
        {%- else %}
        {{ _cdc_history_islands(relation, keys, columns, fillable, tracked, snapshots,
            only_touched, watermark, stored) }}
        {%- endif %}
    ) as versions
{%- endmacro %}

{#- Every staged event of the keys to recompute (all, or those with an
    event in the new batches: `only_touched`), first landed copies only,
    with the kept values filled (cdc_kept_columns) and `closing`, the
    key's next change or the first truncate after it, whichever is first. -#}
{% macro _cdc_history_events(relation, keys, columns, fillable, snapshots, only_touched,
    watermark) -%}
        select
            {%- for column in columns %}
            {%- if column.name in fillable %}
            {#- a kept value (TOAST, an ignored null update): the key's
                newest known one -#}
            if({{ cdc_keeps_previous('ordered', column.name, fillable[column.name]) }},
                ordered.{{ cdc_ident('_cdc_known_' ~ column.name) }}.v, ordered.{{ cdc_ident(column.name) }})
                as {{ cdc_ident(column.name) }},
            {%- else %}
            ordered.{{ cdc_ident(column.name) }},
            {%- endif %}
            {%- endfor %}
            {%- if not columns %}
            ordered.*,
            {%- endif %}
            case
                when truncated.first_truncate is not null
                    and (ordered.next_change.position is null
                        or truncated.first_truncate.position < ordered.next_change.position)
                    then truncated.first_truncate
                else ordered.next_change
            end as closing
        from (
            select
                events.*,
                {%- for name, rule in fillable.items() %}
                last_value(
                    if({{ cdc_keeps_previous('events', name, rule) }},
                        null, struct(events.{{ cdc_ident(name) }} as v)),
                    true
                ) over (
                    partition by {{ _cdc_key_list('events', keys) }}
                    order by events._cdc_position
                    rows between unbounded preceding and current row
                ) as {{ cdc_ident('_cdc_known_' ~ name) }},
                {%- endfor %}
                lead(named_struct(
                    'position', events._cdc_position,
                    'committed_at', events._cdc_source_committed_at,
                    'op', events._cdc_op
                )) over (
                    partition by {{ _cdc_key_list('events', keys) }}
                    order by events._cdc_position
                ) as next_change
            from (
                {#- an event re-sent under another Kafka offset (a connector
                    restart, a replayed topic): same key, op, source position
                    and values; the first landed copy opens the version, so
                    a version never moves once written -#}
                select
                    sent.*,
                    row_number() over (
                        partition by
                            {{ _cdc_key_list('sent', keys) }},
                            sent._cdc_op,
                            slice(sent._cdc_position, 1, size(sent._cdc_position) - 1),
                            to_json(struct(
                                {%- for column in columns if not cdc_is_metadata_column(column.name) %}
                                sent.{{ cdc_ident(column.name) }}{{ "," if not loop.last }}
                                {%- else %}
                                sent._cdc_position
                                {%- endfor %}
                            ))
                        order by sent._landing_batch, sent._kafka_partition, sent._kafka_offset
                    ) as _cdc_copy
                {%- if snapshots %}
                from (
                    select * from {{ relation }}
                    union all
                    {{ cdc_vanished_key_deletes(relation, none, columns, keys, snapshots, -1) }}
                ) as sent
                {%- else %}
                from {{ relation }} as sent
                {%- endif %}
                {%- if only_touched %}
                left semi join ({{ _cdc_touched_keys(relation, keys, watermark) }}) as touched
                    on {{ _cdc_same_key('sent', 'touched', keys) }}
                {%- endif %}
                where sent._cdc_op != 't'
            ) as events
            where events._cdc_copy = 1
        ) as ordered
        left join (
            {#- the first truncate after each event: rare, so a plain join -#}
            select
                {{ _cdc_key_list('events', keys) }},
                events._cdc_position,
                min_by(named_struct(
                    'position', truncates._cdc_position,
                    'committed_at', truncates._cdc_source_committed_at,
                    'op', 't'
                ), truncates._cdc_position) as first_truncate
            from {{ relation }} as events
            inner join {{ relation }} as truncates
                on truncates._cdc_op = 't' and truncates._cdc_position > events._cdc_position
            where events._cdc_op != 't'
            group by {{ _cdc_key_list('events', keys) }}, events._cdc_position
        ) as truncated
            on {% for key in keys %}ordered.{{ cdc_ident(key) }} <=> truncated.{{ cdc_ident(key) }} and {% endfor -%}
            ordered._cdc_position = truncated._cdc_position
{%- endmacro %}

{#- History on chosen columns: the events of each key in source order fall
    into islands, a new one opened by an event whose tracked columns differ
    from the key's previous event's (or that follows a delete, a truncate
    or nothing); a version is an island's creates, reads and updates: its
    values and metadata are its newest event's (an untracked change
    updates the open version in place), it opens at its first event and
    closes as its newest event does. Incremental runs also return each
    stored version of a recomputed key that no longer opens one (a late
    event moved where its island starts), with opened_by_op null: the
    history models' merge deletes it (merge_delete_condition). -#}
{% macro _cdc_history_islands(relation, keys, columns, fillable, tracked, snapshots,
    only_touched, watermark, stored) -%}
    {%- set stored_names = cdc_stored_names(stored) -%}
    {%- set key_and_start -%}
        {{ _cdc_key_list('candidates', keys) }}, candidates.opening.position
    {%- endset %}
        select candidates.*
        from (
            select
                recomputed.*,
                max(recomputed.opening.op is not null) over (
                    partition by {{ key_and_start | replace('candidates', 'recomputed') }}
                ) as reopened
            from (
                select
                    {%- for column in columns %}
                    islands.newest.{{ cdc_ident(column.name) }},
                    {%- endfor %}
                    islands.newest.closing,
                    islands.opening
                from (
                    select
                        max_by(struct(flagged.*), flagged._cdc_position) as newest,
                        min_by(named_struct(
                            'position', flagged._cdc_position,
                            'committed_at', flagged._cdc_source_committed_at,
                            'op', flagged._cdc_op
                        ), flagged._cdc_position) as opening
                    from (
                        select
                            opened.*,
                            sum(if(opened.opens, 1, 0)) over (
                                partition by {{ _cdc_key_list('opened', keys) }}
                                order by opened._cdc_position
                                rows between unbounded preceding and current row
                            ) as _cdc_island
                        from (
                            select
                                filled.*,
                                coalesce(
                                    lag(filled._cdc_op = 'd' or filled.closing.op = 't')
                                        over keyed
                                    or not (lag({{ _cdc_tracked_struct(tracked) }}) over keyed
                                        <=> {{ _cdc_tracked_struct(tracked) }}),
                                    true
                                ) as opens
                            from (
                                {{- _cdc_history_events(relation, keys, columns, fillable,
                                    snapshots, only_touched, watermark) }}
                            ) as filled
                            window keyed as (
                                partition by {{ _cdc_key_list('filled', keys) }}
                                order by filled._cdc_position
                            )
                        ) as opened
                    ) as flagged
                    where flagged._cdc_op in ('c', 'r', 'u')
                    group by {{ _cdc_key_list('flagged', keys) }}, flagged._cdc_island
                ) as islands
                {%- if stored is not none %}
                {#- the stored versions of the recomputed keys: kept only
                    where no recomputed one opens at the same position #}
                union all
                select
                    {%- for column in columns %}
                    {%- if column.name in stored_names %}
                    stored.{{ cdc_ident(column.name) }},
                    {%- else %}
                    cast(null as {{ column.data_type }}) as {{ cdc_ident(column.name) }},
                    {%- endif %}
                    {%- endfor %}
                    named_struct(
                        'position', stored.valid_to_position,
                        'committed_at', stored.valid_to,
                        'op', stored.closed_by_op
                    ) as closing,
                    named_struct(
                        'position', stored.valid_from_position,
                        'committed_at', stored.valid_from,
                        'op', cast(null as string)
                    ) as opening
                from {{ stored }} as stored
                {%- if only_touched %}
                left semi join ({{ _cdc_touched_keys(relation, keys, watermark) }}) as touched
                    on {{ _cdc_same_key('stored', 'touched', keys) }}
                {%- endif %}
                {%- endif %}
            ) as recomputed
        ) as candidates
        where candidates.opening.op is not null or not candidates.reopened
{%- endmacro %}

{#- `struct(filled.`a`, filled.`b`, ...)`: the tracked columns of an event. -#}
{% macro _cdc_tracked_struct(tracked) -%}
    struct(
        {%- for name in tracked %}filled.{{ cdc_ident(name) }}{{ ", " if not loop.last }}{% endfor -%}
    )
{%- endmacro %}

{#- The distinct keys of the events (not truncates) in the batches landed
    after `watermark`. -#}
{% macro _cdc_touched_keys(relation, keys, watermark) -%}
    select distinct {{ _cdc_key_list('touched', keys) }}
    from {{ relation }} as touched
    where
        touched._cdc_op != 't'
        and {{ cdc_new_batches_filter('touched._landing_batch', watermark) }}
{%- endmacro %}

{#- `a.`k1` <=> b.`k1` and ...`: the same key in two relations. -#}
{% macro _cdc_same_key(left, right, keys) -%}
    {%- for key in keys %}{{ left }}.{{ cdc_ident(key) }} <=> {{ right }}.{{ cdc_ident(key) }}
        {{- " and " if not loop.last }}{% endfor -%}
{%- endmacro %}

{#- The columns whose change opens a new version (none: every change
    does): the model's config `cdc_history_columns`, `{'track': [...]}` or
    `{'except': [...]}` (every column but those; sync writes it from the
    topic's declaration, `history: {track: [...]}`). A listed column the
    relation lacks, or nothing left to track, is an error. -#}
{% macro cdc_history_tracked_columns(columns, keys) -%}
    {%- set setting = config.get('cdc_history_columns') -%}
    {%- if setting is none or not columns -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set names = cdc_value_column_names(columns, keys) -%}
    {%- set listed = setting.get('track', setting.get('except', [])) -%}
    {%- set unknown = listed | reject('in', names) | list -%}
    {%- set tracked = listed if 'track' in setting else names | reject('in', listed) | list -%}
    {%- if unknown or not tracked -%}
        {%- do exceptions.raise_compiler_error(
            'cdc_history_columns ' ~ setting ~ ' of ' ~ this ~ ': '
            ~ ('names ' ~ (unknown | join(', ')) ~ ', not a non-key column' if unknown
                else 'tracks no column') ~ ' (its columns: ' ~ (names | join(', ')) ~ ')') -%}
    {%- endif -%}
    {{- return(tracked) -}}
{%- endmacro %}
