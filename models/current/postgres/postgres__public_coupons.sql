{#- Current state of `public_coupons` from topic `shop.public.coupons`, -#}
{#- one row per coupon_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['coupon_id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_coupons') }}
),

final as (
    {{ cdc_current_state('changes', ['coupon_id']) }}
)

select * from final
