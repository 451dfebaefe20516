{#- History of Kafka topic -#}
{#- `shop.public.coupons` (SCD type 2): -#}
{#- one row per version of each coupon_id. -#}
{#- Scaffolded by `python -m python_helpers sync` (history: true); edit freely. -#}
{{ config(unique_key=['coupon_id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_coupons') }}
),

final as (
    {{ cdc_history('changes', ['coupon_id']) }}
)

select * from final
