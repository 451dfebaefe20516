{#- Landed records of topic `dbserver1.inventory.customers` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__dbserver1_inventory_customers') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
