{#- Merged state of Kafka topic -#}
{#- `shop.public.orders`, -#}
{#- one row per order_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__public_orders`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['order_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_orders') }}
),

final as (
    {{ cdc_current_state('changes', ['order_id']) }}
)

select * from final
