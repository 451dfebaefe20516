{#- Current state of Kafka topic `shopdb.shop.accounts`, -#}
{#- one row per account_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['account_id']) }}

with

changes as (
    select * from {{ ref('stg_mysql__shopdb_shop_accounts') }}
),

final as (
    {{ cdc_current_state('changes', ['account_id']) }}
)

select * from final
