{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `shop.public.stock` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__shop_public_stock') }}
),

final as (
    {{ cdc_debezium_changes('events', 'shop.public.stock') }}
)

select * from final
