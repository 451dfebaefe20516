{#- Merged state of Kafka topic -#}
{#- `fullfillment.inventory.products`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__inventory_products`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__inventory_products') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
