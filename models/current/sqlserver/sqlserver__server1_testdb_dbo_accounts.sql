{#- Current state of Kafka topic -#}
{#- `server1.testDB.dbo.accounts`, -#}
{#- one row per account_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('sqlserver__server1_testdb_dbo_accounts__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
