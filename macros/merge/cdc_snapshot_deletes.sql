{#-
    Vanished keys: a key deleted while the connector was down (or while it
    re-snapshots) produces no delete event; the re-snapshot simply lacks it.
    For a current-state model whose topic declares `snapshot_deletes: true`
    (config `cdc_snapshot_deletes`, else the project variable of that name;
    off by default: a filtered snapshot, Debezium's `additional-conditions`
    or `snapshot.select.statement.overrides`, looks exactly like a full one
    in the events), each complete snapshot of the topic that completes in
    the batches a run merges (its end marker, or the read that fills its
    last gap, is in them) deletes the keys that are in the state (or in the
    merged batches) at a position older than the snapshot's start and absent
    from the snapshot; and a complete snapshot of an earlier run deletes
    again such a key that an older event of the merged batches brings (a
    lagging partition's event of a key never seen before).

    A snapshot of a topic is the set of its read events (op r, source.snapshot
    neither false nor incremental) at one source position: a blocking or
    initial snapshot reads every row at the position it took at its start
    (the Kafka offset, the last part of _cdc_position, tells them apart). It
    is complete when:
      - its end marker landed (`last_in_data_collection`, or `last` for the
        last table of the snapshot), and
      - its start marker landed (`first_in_data_collection`, or `first` for
        the first table), unless the snapshot is one event (a one-row table:
        Debezium marks that row as the end; re-sent copies of it, with the
        same Kafka key, count once), and
      - in every Kafka partition its events hold consecutive offsets: a
        record of it that was quarantined, not landed, or compacted away
        leaves a gap, and a gapped snapshot deletes nothing.
    Incremental (signal-driven) snapshots carry no end marker in the change
    events; their reads are ordered by position like any event (a read
    never overwrites a newer streamed change). One deletes only when the
    connector's notification topic is landed (`cdc_snapshot_scans`: the
    snapshot-scans model of the topic's notification topic and the table's
    data collection, written by sync, notification_groups.py) and reports
    the table's scan complete: a TABLE_SCAN_COMPLETED notification of an
    Incremental Snapshot with status SUCCEEDED or EMPTY, after a STARTED
    one listing the table. Its reads are the incremental reads the
    connector made between the two (`_cdc_processed_at`, the envelope's
    ts_ms, on the connector's clock like the notifications' timestamps);
    its start is the oldest position of the topic's events made since the
    STARTED one (a streamed change made while a chunk was read replaces the
    chunk's read of its key, at a position older than the chunk's reads:
    it must not count as older than the snapshot). It counts as landed
    whole only when, in every Kafka partition of the topic, an event made
    after the scan's end has landed and the offsets from the first event
    made since its start up to that one have no gap: the reads come before
    the notification in the connector's output but may land later (another
    topic, another landing); a quiet table's vanished keys wait for its
    next change.

    The deletion is a delete event made by the merge, at the snapshot's
    first position: it keeps a delete marker like a streamed delete, a newer
    streamed event of the key still wins, an older one landing later does
    not bring the key back. Its `_cdc_source_snapshot` is `vanished`, its
    `_cdc_source_committed_at` the snapshot's newest read time.
-#}

{#- The complete snapshots that bear on the staging batches after
    `watermark` (-1 or none: all): those with a read in them (the snapshot
    completes with them: its end marker, or a read that fills its last gap,
    landed there; `is_new`) and those that started after the oldest event
    in them (an older event landing late, e.g. from a lagging partition: a
    key it brings that the snapshot lacks is deleted again). Dicts of
    `started_at` (the first position, as text), `prefix` (the position
    without the offset, as text), `landing_batch`, `read_at` and `is_new`.
    Empty unless enabled, and when the select is not sent (nothing new:
    cdc_select_is_sent). Its cost: one pass over three columns (op,
    snapshot marker, position) of every staged batch for the end markers,
    like the truncates' pass. -#}
{% macro cdc_completed_snapshots(staging, columns, watermark) -%}
    {%- set names = columns | map(attribute='name') | list -%}
    {%- if not execute or staging is none or '_cdc_source_snapshot' not in names
        or not config.get('cdc_snapshot_deletes', var('cdc_snapshot_deletes', false))
        or not cdc_select_is_sent() -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set since = watermark if watermark is not none else -1 -%}
    {%- set ended = run_query(
        "select distinct " ~ _cdc_snapshot_prefix('_cdc_position') ~ " from " ~ staging
        ~ " where _cdc_op = 'r' and _cdc_source_snapshot in ('last', 'last_in_data_collection')"
    ).columns[0].values() -%}
    {%- set scans = config.get('cdc_snapshot_scans') -%}
    {%- if not ended and not scans -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set found -%}
        select
            complete.prefix,
            cast(complete.started_at as string) as started_at,
            complete.landing_batch,
            cast(complete.read_at as string) as read_at,
            cast(complete.reads_from as string) as reads_from
        from (
            {%- if ended %}
            {{ cdc_complete_snapshots(staging, ended) }}
            {%- endif %}
            {%- if ended and scans %}
            union all
            {%- endif %}
            {%- if scans %}
            {{ cdc_complete_incremental_scans(staging, scans) }}
            {%- endif %}
        ) as complete
        cross join (
            select min(batch._cdc_position) as oldest
            from {{ staging }} as batch
            where batch._cdc_op != 't' and {{ cdc_new_batches_filter('batch._landing_batch', since) }}
        ) as batch
        where complete.landing_batch > {{ since }} or complete.started_at > batch.oldest
    {%- endset -%}
    {%- set complete = [] -%}
    {%- for row in run_query(found).rows -%}
        {%- do complete.append({'prefix': row[0], 'started_at': row[1],
            'landing_batch': row[2] | int, 'read_at': row[3], 'reads_from': row[4],
            'is_new': row[2] | int > since}) -%}
    {%- endfor -%}
    {{- return(complete) -}}
{%- endmacro %}

{#- The complete snapshots among the staged reads of `staging` (only those
    whose prefix is in `prefixes`, when given), one row each: `prefix`,
    `started_at` (its first position), `landing_batch` (of its newest read),
    `read_at` (its newest read time) and `reads_from` (null: its reads are
    those at its position). Complete as the header says: end marker, start
    marker (or a single read), no offset gap per partition. -#}
{% macro cdc_complete_snapshots(staging, prefixes=none) -%}
    select
        snapshots.prefix,
        min(snapshots.started_at) as started_at,
        max(snapshots.landing_batch) as landing_batch,
        max(snapshots.read_at) as read_at,
        cast(null as timestamp) as reads_from
    from (
        select
            {{ _cdc_snapshot_prefix('reads._cdc_position') }} as prefix,
            min(reads._cdc_position) as started_at,
            max(reads._landing_batch) as landing_batch,
            max(reads._cdc_source_committed_at) as read_at,
            count(distinct reads._kafka_offset)
            = max(reads._kafka_offset) - min(reads._kafka_offset) + 1 as is_gapless,
            count_if(reads._cdc_source_snapshot in ('first', 'first_in_data_collection'))
            > 0 as has_start,
            count_if(reads._cdc_source_snapshot in ('last', 'last_in_data_collection'))
            > 0 as has_end,
            {#- distinct records: a re-sent copy of a one-row table's only
                read (same Kafka key) is still one read -#}
            count(distinct coalesce(reads._kafka_key, cast(reads._kafka_offset as string)))
            as events
        from {{ staging }} as reads
        where
            {{ _cdc_is_snapshot_read('reads') }}
            {%- if prefixes is not none %}
            and {{ _cdc_snapshot_prefix('reads._cdc_position') }} in (
                {%- for prefix in prefixes %}{{ cdc_string(prefix) }}{{ ", " if not loop.last }}{% endfor -%}
            )
            {%- endif %}
        group by 1, reads._kafka_partition
    ) as snapshots
    group by snapshots.prefix
    having bool_and(snapshots.is_gapless)
        and bool_or(snapshots.has_end)
        and (bool_or(snapshots.has_start) or sum(snapshots.events) = 1)
{%- endmacro %}

{#- The synthetic delete events (rows shaped like the staging `columns`) of
    the keys that the complete `snapshots` (cdc_completed_snapshots) lack,
    in one query whatever their number: for each snapshot, keys of `stored`
    rows (for a snapshot completing in the batch, `is_new`) and of the
    batch's events in `relation` older than its start (and not older than
    `truncated_at`, the newest truncate: a truncated key is gone already)
    whose newest such event is not a delete (a key deleted before it is
    gone already), and that it did not read. -#}
{% macro cdc_vanished_key_deletes(relation, stored, columns, keys, snapshots, watermark,
    truncated_at=none) -%}
    {#- the snapshots as one table, read by every join below -#}
    select * from (
        with listed_snapshots as (
            {{ _cdc_snapshot_values(snapshots) }}
        )
        select
            {%- for column in columns %}
            {%- set name = column.name %}
            {%- if name in keys %}
            candidates.{{ cdc_ident(name) }}
            {%- elif name == '_cdc_op' %}
            'd'
            {%- elif name == '_cdc_position' %}
            snapshots.started_at
            {%- elif name == '_cdc_is_snapshot' %}
            true
            {%- elif name == '_cdc_source_snapshot' %}
            'vanished'
            {%- elif name == '_cdc_source_committed_at' %}
            snapshots.read_at
            {%- elif name == '_landing_batch' %}
            {#- the newer of the snapshot's and the key's event's: a delete made
                again by an earlier snapshot belongs to the batch that brought
                the key -#}
            greatest(snapshots.landing_batch, candidates._landing_batch)
            {%- elif name == '_staged_at' %}
            {{ cdc_staged_at() }}
            {%- else %}
            cast(null as {{ column.data_type }})
            {%- endif %} as {{ cdc_ident(name) }}{{ "," if not loop.last }}
            {%- endfor %}
        from (
            select
                found.snapshot_id,
                {{ _cdc_key_list('found', keys) }},
                max(found._landing_batch) as _landing_batch
            from (
                {%- if stored is not none %}
                select
                    snapshots.snapshot_id,
                    {{ _cdc_key_list('kept', keys) }},
                    cast(null as bigint) as _landing_batch,
                    kept._cdc_op,
                    kept._cdc_position
                from {{ stored }} as kept
                inner join listed_snapshots as snapshots
                    on snapshots.is_new and kept._cdc_position < snapshots.started_at
                union all
                {%- endif %}
                select
                    snapshots.snapshot_id,
                    {{ _cdc_key_list('older', keys) }},
                    older._landing_batch,
                    older._cdc_op,
                    older._cdc_position
                from {{ relation }} as older
                inner join listed_snapshots as snapshots
                    on older._cdc_position < snapshots.started_at
                where
                    older._cdc_op != 't'
                    and {{ cdc_new_batches_filter('older._landing_batch', watermark) }}
                    {%- if truncated_at %}
                    and not ({{ cdc_position_before('older._cdc_position', truncated_at) }})
                    {%- endif %}
            ) as found
            group by found.snapshot_id, {{ _cdc_key_list('found', keys) }}
            {#- live just before the snapshot: its newest older event (stored
                or in the batch) is not a delete -#}
            having max_by(found._cdc_op, found._cdc_position) != 'd'
        ) as candidates
        inner join listed_snapshots as snapshots
            on candidates.snapshot_id = snapshots.snapshot_id
        left anti join (
            {#- a blocking snapshot's reads: at its position #}
            select snapshots.snapshot_id, {{ _cdc_key_list('reads', keys) }}
            from {{ relation }} as reads
            inner join listed_snapshots as snapshots
                on snapshots.reads_from is null
                and {{ _cdc_snapshot_prefix('reads._cdc_position') }} = snapshots.prefix
            where {{ _cdc_is_snapshot_read('reads') }}
            union all
            {#- an incremental scan's: the incremental reads made between its
                snapshot's start and its end #}
            select snapshots.snapshot_id, {{ _cdc_key_list('reads', keys) }}
            from {{ relation }} as reads
            inner join listed_snapshots as snapshots
                on reads._cdc_processed_at between snapshots.reads_from and snapshots.read_at
            where reads._cdc_op = 'r' and reads._cdc_source_snapshot = 'incremental'
            union all
            {#- and, for an incremental scan, a key with a change since its start
                exists (or its delete deletes it), even when the change replaced
                the read of its chunk #}
            select snapshots.snapshot_id, {{ _cdc_key_list('since', keys) }}
            from {{ relation }} as since
            inner join listed_snapshots as snapshots
                on snapshots.reads_from is not null and since._cdc_position >= snapshots.started_at
            where
                since._cdc_op != 't'
                and {{ cdc_new_batches_filter('since._landing_batch', watermark) }}
        ) as snapshot_keys
            on candidates.snapshot_id = snapshot_keys.snapshot_id
            {%- for key in keys %}
            and candidates.{{ cdc_ident(key) }} <=> snapshot_keys.{{ cdc_ident(key) }}
            {%- endfor %}
    ) as vanished
{%- endmacro %}

{#- The complete incremental scans of the table `scans.table` that the
    snapshot-scans model `scans.model` reports, with the columns of
    cdc_complete_snapshots (`prefix`: the scan's end as text, `read_at`:
    its end, `reads_from`: its snapshot's start; `landing_batch`: the run
    it became complete in, the newest of the notifications' and of the
    topic's events up to the first one after its end). Complete and landed
    whole as the header says. -#}
{% macro cdc_complete_incremental_scans(staging, scans) -%}
    select
        cast(partitions.completed_at as string) as prefix,
        min(partitions.started_at) as started_at,
        max(partitions.landing_batch) as landing_batch,
        partitions.completed_at as read_at,
        partitions.reads_from
    from (
        select
            scans.completed_at,
            scans.started_at as reads_from,
            events._kafka_partition,
            min(events._cdc_position) as started_at,
            {#- the run it became complete in: the newest landing of its
                notifications, of the events up to its end and of the first
                one after it (later events do not make it new again) -#}
            greatest(
                max(scans._landing_batch),
                max(events._landing_batch) filter (
                    where events._cdc_processed_at <= scans.completed_at
                ),
                min_by(events._landing_batch, events._kafka_offset) filter (
                    where events._cdc_processed_at > scans.completed_at
                )
            ) as landing_batch,
            min(events._kafka_offset) as first_offset,
            min(events._kafka_offset) filter (
                where events._cdc_processed_at > scans.completed_at
            ) as proof_offset,
            max(events._kafka_offset) filter (
                where events._cdc_processed_at <= scans.completed_at
            ) as last_offset,
            count(distinct events._kafka_offset) filter (
                where events._cdc_processed_at <= scans.completed_at
            ) as offsets
        from {{ ref(scans.model) }} as scans
        inner join {{ staging }} as events
            on events._cdc_processed_at >= scans.started_at
        where
            scans.aggregate_type = 'Incremental Snapshot'
            and scans.scan_status in ('SUCCEEDED', 'EMPTY')
            and lower(scans.scanned_collection) = lower({{ cdc_string(scans.table) }})
            and events._cdc_op != 't'
        group by scans.completed_at, scans.started_at, events._kafka_partition
    ) as partitions
    group by partitions.completed_at, partitions.reads_from
    having
        bool_and(
            partitions.proof_offset is not null
            and partitions.offsets = partitions.proof_offset - partitions.first_offset
            and coalesce(partitions.last_offset, -1) < partitions.proof_offset
        )
        and count(*) = (select count(distinct every._kafka_partition) from {{ staging }} as every)
{%- endmacro %}

{#- `snapshots` (cdc_completed_snapshots) as an inline table: snapshot_id,
    started_at (the position), read_at, landing_batch, is_new, reads_from
    (null for a blocking snapshot) and prefix. -#}
{% macro _cdc_snapshot_values(snapshots) -%}
    select * from values
    {%- for snapshot in snapshots %}
        (
            {{ loop.index }},
            cast(array({{ snapshot.started_at[1:-1] }}) as array<bigint>),
            {{ _cdc_timestamp_or_null(snapshot.read_at) }},
            cast({{ snapshot.landing_batch }} as bigint),
            {{ 'true' if snapshot.is_new else 'false' }},
            {{ _cdc_timestamp_or_null(snapshot.reads_from) }},
            {{ cdc_string(snapshot.prefix) }}
        ){{ "," if not loop.last }}
    {%- endfor %}
    as listed (snapshot_id, started_at, read_at, landing_batch, is_new, reads_from, prefix)
{%- endmacro %}

{% macro _cdc_timestamp_or_null(text) -%}
    {%- if text is none -%}
        cast(null as timestamp)
    {%- else -%}
        cast('{{ text }}' as timestamp)
    {%- endif -%}
{%- endmacro %}

{#- A read of a blocking or initial snapshot (not of an incremental one). -#}
{% macro _cdc_is_snapshot_read(alias) -%}
    {{ alias }}._cdc_op = 'r'
    and {{ alias }}._cdc_source_snapshot not in ('false', 'incremental')
{%- endmacro %}

{#- The position without its last part (the Kafka offset), as text: the
    same for every read of one snapshot. -#}
{% macro _cdc_snapshot_prefix(position) -%}
    cast(slice({{ position }}, 1, size({{ position }}) - 1) as string)
{%- endmacro %}
