{#- Base of Kafka topic `dbserver1.inventory.customers` (mysql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'dbserver1_inventory_customers') }}
),

final as (
    {{ cdc_debezium_events('landed', 'dbserver1.inventory.customers') }}
)

select * from final
