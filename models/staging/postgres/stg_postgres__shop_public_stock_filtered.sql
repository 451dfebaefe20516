{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `shop.public.stock_filtered` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__shop_public_stock_filtered') }}
),

final as (
    {{ cdc_debezium_changes('events', 'shop.public.stock_filtered') }}
)

select * from final
