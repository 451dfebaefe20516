{#- Landed records of topic `shop.public.coupons` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'shop_public_coupons') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'shop.public.coupons') }}
)

select * from final
