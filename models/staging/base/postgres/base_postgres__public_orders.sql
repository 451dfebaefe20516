{#- Base of Kafka topic `shop.public.orders` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'shop_public_orders') }}
),

final as (
    {{ cdc_debezium_events('landed', 'shop.public.orders') }}
)

select * from final
