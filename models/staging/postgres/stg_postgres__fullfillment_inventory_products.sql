{#- Staging of Kafka topic `fullfillment.inventory.products` (postgresql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__fullfillment_inventory_products') }}
),

final as (
    {{ cdc_debezium_changes('events', 'fullfillment.inventory.products') }}
)

select * from final
