{#- Base of Kafka topic `shopdb.shop.accounts` (mysql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'shopdb_shop_accounts') }}
),

final as (
    {{ cdc_debezium_events('landed', 'shopdb.shop.accounts') }}
)

select * from final
