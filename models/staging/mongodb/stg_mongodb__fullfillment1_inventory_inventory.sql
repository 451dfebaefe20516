{#- Staging of a Kafka topic (mongodb connector): -#}
{#- `fullfillment1.inventory.inventory` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__fullfillment1_inventory_inventory') }}
),

final as (
    {{ cdc_debezium_changes('events', 'fullfillment1.inventory.inventory') }}
)

select * from final
