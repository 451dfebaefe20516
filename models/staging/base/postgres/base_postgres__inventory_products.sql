{#- Base of Kafka topic `fullfillment.inventory.products` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'fullfillment_inventory_products') }}
),

final as (
    {{ cdc_debezium_events('landed', 'fullfillment.inventory.products') }}
)

select * from final
