{#- Staging of a Kafka topic (mongodb connector): -#}
{#- `rw_mongo.inventory.customers` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__rw_mongo_inventory_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'rw_mongo.inventory.customers') }}
)

select * from final
