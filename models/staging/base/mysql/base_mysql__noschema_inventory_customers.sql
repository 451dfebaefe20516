{#- Base of Kafka topic `noschema.inventory.customers` (mysql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'noschema_inventory_customers') }}
),

final as (
    {{ cdc_debezium_events('landed', 'noschema.inventory.customers') }}
)

select * from final
