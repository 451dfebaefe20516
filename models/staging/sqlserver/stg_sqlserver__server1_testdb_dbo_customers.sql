{#- Staging of Kafka topic `server1.testDB.dbo.customers` (sqlserver connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__server1_testdb_dbo_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'server1.testDB.dbo.customers') }}
)

select * from final
