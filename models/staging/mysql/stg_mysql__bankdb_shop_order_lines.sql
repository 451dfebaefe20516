{#- Staging of a Kafka topic (mysql connector): -#}
{#- `bankdb.shop.order_lines` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__bankdb_shop_order_lines') }}
),

final as (
    {{ cdc_debezium_changes('events', 'bankdb.shop.order_lines') }}
)

select * from final
