{#- Staging of Kafka topic `dbserver1.inventory.customers` (mysql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__dbserver1_inventory_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'dbserver1.inventory.customers') }}
)

select * from final
