{#- Current state of Kafka topic `noschema.inventory.customers`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_mysql__noschema_inventory_customers') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
