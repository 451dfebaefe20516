{#- Staging of Kafka topic `shop.public.coupons` (postgresql connector). -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'shop_public_coupons') }}
),

final as (
    {{ cdc_debezium_changes('landed', 'shop.public.coupons') }}
)

select * from final
