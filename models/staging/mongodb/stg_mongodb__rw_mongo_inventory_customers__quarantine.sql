{#- Landed records that are not change events, of Kafka topic -#}
{#- `rw_mongo.inventory.customers` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__rw_mongo_inventory_customers') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
