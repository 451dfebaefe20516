{#- Staging of a Kafka topic (mysql connector): -#}
{#- `bankdb.shop.orders` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__bankdb_shop_orders') }}
),

final as (
    {{ cdc_debezium_changes('events', 'bankdb.shop.orders') }}
)

select * from final
