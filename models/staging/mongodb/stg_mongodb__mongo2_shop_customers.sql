{#- Staging of a Kafka topic (mongodb connector): -#}
{#- `mongo2.shop.customers` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__mongo2_shop_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'mongo2.shop.customers') }}
)

select * from final
