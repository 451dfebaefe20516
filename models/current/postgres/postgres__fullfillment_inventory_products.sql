{#- Current state of Kafka topic -#}
{#- `fullfillment.inventory.products`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__fullfillment_inventory_products__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
