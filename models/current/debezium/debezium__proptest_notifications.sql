{#- Snapshot table scans reported by Kafka topic -#}
{#- `proptest.notifications`: one row per TABLE_SCAN_COMPLETED notification, -#}
{#- with the STARTED one that began its snapshot. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

events as (
    select * from {{ ref('stg_debezium__proptest_notifications') }}
),

final as (
    {{ cdc_snapshot_scans('events') }}
)

select * from final
