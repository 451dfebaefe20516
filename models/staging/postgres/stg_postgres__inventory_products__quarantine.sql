{#- Landed records of topic `fullfillment.inventory.products` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'fullfillment_inventory_products') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'fullfillment.inventory.products') }}
)

select * from final
