{#- Current state of `public_orders` from topic `shop.public.orders`, -#}
{#- one row per order_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['order_id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_orders') }}
),

final as (
    {{ cdc_current_state('changes', ['order_id']) }}
)

select * from final
