{#- Base of a Kafka topic (mongodb connector): -#}
{#- `mongo2.shop.customers` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mongodb_landing', 'mongo2_shop_customers') }}
),

final as (
    {{ cdc_mongodb_events('landed', 'mongo2.shop.customers') }}
)

select * from final
