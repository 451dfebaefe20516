{#- Landed records that are not change events, of Kafka topic -#}
{#- `fullfillment1.inventory.inventory` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__fullfillment1_inventory_inventory') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
