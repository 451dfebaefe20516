{#- Base of a Kafka topic (mongodb connector): -#}
{#- `fullfillment1.inventory.inventory` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mongodb_landing', 'fullfillment1_inventory_inventory') }}
),

final as (
    {{ cdc_mongodb_events('landed', 'fullfillment1.inventory.inventory') }}
)

select * from final
