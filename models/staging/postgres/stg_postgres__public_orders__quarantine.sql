{#- Landed records of topic `shop.public.orders` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__public_orders') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
