{#- Staging of a Kafka topic (flattened connector): -#}
{#- `plainflat.inventory.customers` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_flattened__plainflat_inventory_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'plainflat.inventory.customers') }}
)

select * from final
