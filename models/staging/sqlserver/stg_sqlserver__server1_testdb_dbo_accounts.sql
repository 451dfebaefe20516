{#- Staging of a Kafka topic (sqlserver connector): -#}
{#- `server1.testDB.dbo.accounts` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__server1_testdb_dbo_accounts') }}
),

final as (
    {{ cdc_debezium_changes('events', 'server1.testDB.dbo.accounts') }}
)

select * from final
