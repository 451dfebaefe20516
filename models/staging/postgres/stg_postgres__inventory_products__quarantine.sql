{#- Landed records of topic `fullfillment.inventory.products` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__inventory_products') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
