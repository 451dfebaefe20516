{#- Current state of Kafka topic -#}
{#- `bank1.testDB.dbo.payments`, -#}
{#- one row per item_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('sqlserver__bank1_testdb_dbo_payments__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
