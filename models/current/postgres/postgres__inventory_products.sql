{#- Current state of `inventory_products` from topic `fullfillment.inventory.products`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__inventory_products') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
