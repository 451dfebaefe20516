{#- Staging of a Kafka topic (sqlserver connector): -#}
{#- `bank1.testDB.dbo.orders` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__bank1_testdb_dbo_orders') }}
),

final as (
    {{ cdc_debezium_changes('events', 'bank1.testDB.dbo.orders') }}
)

select * from final
