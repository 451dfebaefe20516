{#- Current state of Kafka topic -#}
{#- `shop.public.coupons`, -#}
{#- one row per coupon_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__shop_public_coupons__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
