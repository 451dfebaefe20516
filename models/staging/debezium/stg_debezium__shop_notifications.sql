{#- Staging of a Debezium notification topic: -#}
{#- `shop.notifications` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__shop_notifications') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'shop.notifications') }}
)

select * from final
