{#- Landed records that are not change events, of Kafka topic -#}
{#- `mongo2.shop.customers` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__mongo2_shop_customers') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
