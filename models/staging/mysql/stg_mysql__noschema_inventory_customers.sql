{#- Staging of Kafka topic `noschema.inventory.customers` (mysql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__noschema_inventory_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'noschema.inventory.customers') }}
)

select * from final
