{#-
    Returns the select of a notification topic's snapshot-scans model: one
    row per table scan a snapshot reported complete (a TABLE_SCAN_COMPLETED
    notification of `relation`, the staged notifications), with the
    STARTED notification of its snapshot: the newest one of the same kind
    (`aggregate_type`: Incremental Snapshot, Initial Snapshot) at or before
    the scan's end that lists the scanned table in its `data_collections`.
    `started_at` is null when no such STARTED notification landed (a
    signal naming its tables by a regular expression, or one lost): such a
    scan deletes nothing (cdc_snapshot_deletes.sql). Primary key: the
    completion's landed record (`_landing_file`, `_landing_line`).
-#}
{% macro cdc_snapshot_scans(relation) %}
    {{- return(adapter.dispatch('cdc_snapshot_scans', 'cdc')(relation)) -}}
{% endmacro %}

{% macro default__cdc_snapshot_scans(relation) -%}
    select
        done.aggregate_type,
        done.scanned_collection,
        done.scan_status,
        done.total_rows_scanned,
        starts.started_at,
        done.notified_at as completed_at,
        done.notification_id,
        done.connector_name,
        done._kafka_topic,
        done._kafka_partition,
        done._kafka_offset,
        done._landing_file,
        done._landing_line,
        {#- the newer of the completion's and its start's landing: the scan
            is known once both landed -#}
        greatest(done._landing_batch, starts._landing_batch) as _landing_batch
    from {{ relation }} as done
    left join (
        select
            scan._landing_file,
            scan._landing_line,
            max(started.notified_at) as started_at,
            max_by(started._landing_batch, started.notified_at) as _landing_batch
        from {{ relation }} as scan
        inner join {{ relation }} as started
            on
                started.notification_type = 'STARTED'
                and started.aggregate_type = scan.aggregate_type
                and started.notified_at <= scan.notified_at
                and exists(
                    started.data_collections,
                    collection -> lower(collection) = lower(scan.scanned_collection)
                )
        where scan.notification_type = 'TABLE_SCAN_COMPLETED'
        group by scan._landing_file, scan._landing_line
    ) as starts
        on done._landing_file = starts._landing_file and done._landing_line = starts._landing_line
    where done.notification_type = 'TABLE_SCAN_COMPLETED'
{%- endmacro %}
