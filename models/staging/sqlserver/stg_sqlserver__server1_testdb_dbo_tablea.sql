{#- Staging of Kafka topic `server1.testDB.dbo.tablea` (sqlserver connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__server1_testdb_dbo_tablea') }}
),

final as (
    {{ cdc_debezium_changes('events', 'server1.testDB.dbo.tablea') }}
)

select * from final
