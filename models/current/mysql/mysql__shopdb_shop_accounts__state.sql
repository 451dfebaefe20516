{#- Merged state of Kafka topic -#}
{#- `shopdb.shop.accounts`, -#}
{#- one row per account_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `mysql__shopdb_shop_accounts`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['account_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_mysql__shopdb_shop_accounts') }}
),

final as (
    {{ cdc_current_state('changes', ['account_id']) }}
)

select * from final
