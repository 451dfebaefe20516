{#- Staging of Kafka topic `shopdb.shop.accounts` (mysql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__shopdb_shop_accounts') }}
),

final as (
    {{ cdc_debezium_changes('events', 'shopdb.shop.accounts') }}
)

select * from final
