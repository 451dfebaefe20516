{#- Staging of a Kafka topic (mysql connector): -#}
{#- `shopdb.shop.stock` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__shopdb_shop_stock') }}
),

final as (
    {{ cdc_debezium_changes('events', 'shopdb.shop.stock') }}
)

select * from final
