{#- Current state of Kafka topic -#}
{#- `plainflat.inventory.customers`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('flattened__plainflat_inventory_customers__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
