{#- Base of Kafka topic `server1.testDB.dbo.tablea` (sqlserver connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('sqlserver_landing', 'server1_testdb_dbo_tablea') }}
),

final as (
    {{ cdc_debezium_events('landed', 'server1.testDB.dbo.tablea') }}
)

select * from final
