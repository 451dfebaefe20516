{#- Landed records of topic `shop.public.orders` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'shop_public_orders') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'shop.public.orders') }}
)

select * from final
