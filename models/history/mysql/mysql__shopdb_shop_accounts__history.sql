{#- History of Kafka topic -#}
{#- `shopdb.shop.accounts` (SCD type 2): -#}
{#- one row per version of each account_id. -#}
{#- Scaffolded by `python -m python_helpers sync` (history: true); edit freely. -#}
{{ config(unique_key=['account_id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_mysql__shopdb_shop_accounts') }}
),

final as (
    {{ cdc_history('changes', ['account_id']) }}
)

select * from final
