{#-
    A topic's state as of a point of its source log, from its history model.

    cdc_as_of(history, position=none, at=none) returns the select of the
    versions of `history` (a relation: the topic's `__history` model) that
    were current at that point: one row per key live then. A key deleted or
    truncated before the point, or created after it, has no row. Give one of:

      position  a source position as `_cdc_position` holds it (PostgreSQL
                [lsn, offset]; MySQL [binlog, pos, row, offset]; SQL Server
                [commit LSN parts, change LSN parts, serial, offset]) or a
                prefix of one, as a list of numbers or a SQL expression of an
                array<bigint>. Positions compare on the point's length: [lsn]
                is the state after every event at that LSN.
      at        a SQL expression of a timestamp, e.g. "timestamp '2026-05-01
                00:00:00'": by source commit time (valid_from / valid_to);
                the versions opened by an event without a commit time are
                left out.

    cdc_valid_at(versions, position=none, at=none) is its condition on the
    history rows aliased `versions`, for joining a history with a table of
    points (models/examples/proptest_items_as_of.sql).
-#}
{% macro cdc_as_of(history, position=none, at=none) -%}
    select versions.*
    from {{ history }} as versions
    where {{ cdc_valid_at('versions', position, at) }}
{%- endmacro %}

{% macro cdc_valid_at(versions, position=none, at=none) -%}
    {%- if (position is none) == (at is none) -%}
        {{- exceptions.raise_compiler_error('cdc_as_of: give one of position or at') -}}
    {%- endif -%}
    {%- if position is not none -%}
        {%- set point = position if position is string
            else 'cast(array(' ~ (position | join(', ')) ~ ') as array<bigint>)' -%}
        slice({{ versions }}.valid_from_position, 1, size({{ point }})) <= {{ point }}
        and (
            {{ versions }}.valid_to_position is null
            or slice({{ versions }}.valid_to_position, 1, size({{ point }})) > {{ point }}
        )
    {%- else -%}
        {{ versions }}.valid_from <= {{ at }}
        and ({{ versions }}.valid_to is null or {{ versions }}.valid_to > {{ at }})
    {%- endif -%}
{%- endmacro %}

{#-
    A current-state table as an earlier run left it, through Iceberg's time
    travel: cdc_state_at_run(state, run_id) returns the select of the rows
    of `state` (a `<model>__state` relation) that were live when run
    `run_id` ended (its `run_ended_at` in the run metrics,
    source('cdc_ops', '_run_metrics')), delete markers left out as in the
    current view. A run is reachable while the table keeps the snapshot
    that was current then: the pipeline's maintenance expires all but the
    newest `keep_snapshots` (20) once a table has more than `max_snapshots`
    (100), and `maintain` keeps the newest 20 (docs/watch-and-maintenance.md).
-#}
{% macro cdc_state_at_run(state, run_id) -%}
    {%- set metrics = source('cdc_ops', '_run_metrics') -%}
    {%- if not execute -%}
        select kept.* from {{ state }} as kept
    {%- else -%}
        {%- set ended = run_query(
            "select cast(max(run_ended_at) as string) from " ~ metrics
            ~ " where run_id = " ~ (run_id | int)
        ).columns[0].values()[0] -%}
        {%- if ended is none -%}
            {{- exceptions.raise_compiler_error(
                'cdc_state_at_run: no run ' ~ run_id ~ ' in ' ~ metrics) -}}
        {%- endif -%}
        select kept.*
        from {{ state }} timestamp as of '{{ ended }}' as kept
        where kept._cdc_op != 'd'
    {%- endif -%}
{%- endmacro %}
