{#- Landed records of topic `shopdb.shop.accounts` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__shopdb_shop_accounts') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
