{#- Merged state of Kafka topic -#}
{#- `noschema.inventory.customers`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `mysql__noschema_inventory_customers`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_mysql__noschema_inventory_customers') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
