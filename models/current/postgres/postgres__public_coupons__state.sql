{#- Merged state of Kafka topic -#}
{#- `shop.public.coupons`, -#}
{#- one row per coupon_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__public_coupons`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['coupon_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_coupons') }}
),

final as (
    {{ cdc_current_state('changes', ['coupon_id']) }}
)

select * from final
