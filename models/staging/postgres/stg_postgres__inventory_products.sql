{#- Staging of Kafka topic `fullfillment.inventory.products` (postgresql connector). -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'fullfillment_inventory_products') }}
),

final as (
    {{ cdc_debezium_changes('landed', 'fullfillment.inventory.products') }}
)

select * from final
