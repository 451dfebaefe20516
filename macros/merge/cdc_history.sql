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
    versions equal the current-state view. A column holding Debezium's
    unavailable-value placeholder (TOAST) takes the key's previous value.
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
    {%- set toastable = cdc_toastable_columns(columns, keys) -%}
    {#- with cdc_snapshot_deletes: every complete snapshot of the topic
        closes the versions of the keys it lacks (a synthetic delete at its
        first position); one that completes in the new batches makes the
        run recompute every key, like a truncate -#}
    {%- set snapshots = cdc_completed_snapshots(staging, columns, -1) -%}
    {%- set new_snapshots = snapshots | selectattr('landing_batch', 'gt', watermark) | list
        if watermark is not none else snapshots -%}
    select
        {%- for column in columns %}
        {%- if column.name in toastable %}
        {#- an unavailable (TOASTed) value: the key's newest known one -#}
        if({{ cdc_is_unavailable('versions.`' ~ column.name ~ '`', toastable[column.name]) }},
            versions.`_cdc_known_{{ column.name }}`.v, versions.`{{ column.name }}`)
            as `{{ column.name }}`,
        {%- else %}
        versions.`{{ column.name }}`,
        {%- endif %}
        {%- endfor %}
        {%- if not columns %}
        versions.*,
        {%- endif %}
        versions._cdc_position as valid_from_position,
        versions._cdc_source_committed_at as valid_from,
        versions._cdc_op as opened_by_op,
        versions.closing.position as valid_to_position,
        versions.closing.committed_at as valid_to,
        versions.closing.op as closed_by_op,
        versions.closing.position is null as is_current
    from (
        select
            ordered.*,
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
                {%- for name, data_type in toastable.items() %}
                last_value(
                    if({{ cdc_is_unavailable('events.`' ~ name ~ '`', data_type) }},
                        null, struct(events.`{{ name }}` as v)),
                    true
                ) over (
                    partition by {{ _cdc_key_list('events', keys) }}
                    order by events._cdc_position
                    rows between unbounded preceding and current row
                ) as `_cdc_known_{{ name }}`,
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
                                {%- for column in columns if not column.name.startswith('_') %}
                                sent.`{{ column.name }}`{{ "," if not loop.last }}
                                {%- else %}
                                sent._cdc_position
                                {%- endfor %}
                            ))
                        order by sent._landing_batch, sent._kafka_partition, sent._kafka_offset
                    ) as _cdc_copy
                {%- if snapshots %}
                from (
                    select * from {{ relation }}
                    {%- for snapshot in snapshots %}
                    union all
                    {{ cdc_vanished_key_deletes(relation, none, columns, keys, snapshot, -1) }}
                    {%- endfor %}
                ) as sent
                {%- else %}
                from {{ relation }} as sent
                {%- endif %}
                {%- if watermark is not none and not new_truncate and not new_snapshots %}
                left semi join (
                    select distinct {{ _cdc_key_list('touched', keys) }}
                    from {{ relation }} as touched
                    where
                        touched._cdc_op != 't'
                        and {{ cdc_new_batches_filter('touched._landing_batch', watermark) }}
                ) as touched
                    on {% for key in keys %}sent.`{{ key }}` <=> touched.`{{ key }}`
                    {{- " and " if not loop.last }}{% endfor %}
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
            on {% for key in keys %}ordered.`{{ key }}` <=> truncated.`{{ key }}` and {% endfor -%}
            ordered._cdc_position = truncated._cdc_position
    ) as versions
    where versions._cdc_op in ('c', 'r', 'u')
{%- endmacro %}
