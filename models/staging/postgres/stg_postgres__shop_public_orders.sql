{#- Staging of Kafka topic `shop.public.orders` (postgresql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__shop_public_orders') }}
),

final as (
    {{ cdc_debezium_changes('events', 'shop.public.orders') }}
)

select * from final
