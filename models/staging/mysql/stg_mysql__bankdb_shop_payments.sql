{#- Staging of a Kafka topic (mysql connector): -#}
{#- `bankdb.shop.payments` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__bankdb_shop_payments') }}
),

final as (
    {{ cdc_debezium_changes('events', 'bankdb.shop.payments') }}
)

select * from final
