{#- History on chosen columns: the versions of `proptest.public.items` by
    its label only. A change of qty alone updates the open version in place
    (its qty, _cdc_position and valid_to are the newest event's); a change
    of label opens a new version. An update's null qty keeps the previous
    qty (the topic declares `ignore_null_updates: [qty]`); a complete
    snapshot, or incremental scan reported on `proptest.notifications`,
    closes the versions of the keys it lacks. A topic's own
    history model takes the same settings from its declaration
    (`history: {track: [label]}`), with the merge conditions of
    dbt_project.yml's `history:` folder, repeated here. The property tests
    compare it with the reference model. The project's materialization
    (`cdc_incremental`, as the generated models): a run with nothing new in
    the staging view sends no statement. A sample: `init` does not copy
    models/examples. -#}
{{ config(
    materialized='cdc_incremental',
    schema='cdc_examples',
    incremental_strategy='merge',
    file_format=var('cdc_table_format', 'iceberg'),
    unique_key=['id', 'valid_from_position'],
    merge_delete_condition='DBT_INTERNAL_SOURCE.opened_by_op is null',
    merge_insert_condition='DBT_INTERNAL_SOURCE.opened_by_op is not null',
    cdc_snapshot_deletes=true,
    cdc_snapshot_scans={'model': 'debezium__proptest_notifications', 'table': 'public.items'},
    cdc_ignore_null_updates=['qty'],
    cdc_history_columns={'track': ['label']}
) }}
-- its incremental snapshots' scans (the connector's notification topic)
-- depends_on: {{ ref('debezium__proptest_notifications') }}

with

changes as (
    select * from {{ ref('stg_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_history('changes', ['id']) }}
)

select * from final
