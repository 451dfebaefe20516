{#- Base of a Kafka topic (mongodb connector): -#}
{#- `rw_mongo.inventory.customers` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mongodb_landing', 'rw_mongo_inventory_customers') }}
),

final as (
    {{ cdc_mongodb_events('landed', 'rw_mongo.inventory.customers') }}
)

select * from final
