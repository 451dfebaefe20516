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
        scans.aggregate_type,
        scans.scanned_collection,
        scans.scan_status,
        scans.total_rows_scanned,
        scans.started_at,
        scans.completed_at,
        scans.notification_id,
        scans.connector_name,
        scans._kafka_topic,
        scans._kafka_partition,
        scans._kafka_offset,
        scans._landing_file,
        scans._landing_line,
        scans._landing_batch
    from (
        select
            done.aggregate_type,
            done.scanned_collection,
            done.scan_status,
            done.total_rows_scanned,
            max(started.notified_at) as started_at,
            done.notified_at as completed_at,
            done.notification_id,
            done.connector_name,
            done._kafka_topic,
            done._kafka_partition,
            done._kafka_offset,
            done._landing_file,
            done._landing_line,
            {#- the newer of the completion's and its start's landing: the
                scan is known once both landed -#}
            greatest(done._landing_batch, max(started._landing_batch)) as _landing_batch
        from {{ relation }} as done
        left join {{ relation }} as started
            on
                started.notification_type = 'STARTED'
                and started.aggregate_type = done.aggregate_type
                and started.notified_at <= done.notified_at
                and exists(
                    started.data_collections,
                    collection -> lower(collection) = lower(done.scanned_collection)
                )
        where done.notification_type = 'TABLE_SCAN_COMPLETED'
        group by
            done.aggregate_type,
            done.scanned_collection,
            done.scan_status,
            done.total_rows_scanned,
            done.notified_at,
            done.notification_id,
            done.connector_name,
            done._kafka_topic,
            done._kafka_partition,
            done._kafka_offset,
            done._landing_file,
            done._landing_line,
            done._landing_batch
    ) as scans
{%- endmacro %}
