{#- Current state of MongoDB topic -#}
{#- `rw_mongo.inventory.customers`: -#}
{#- one row per live document, its change events replayed in source order -#}
{#- (patches applied to the previous document) on top of the stored state. -#}
{#- Reads the base model: updates the replay cannot apply are quarantined -#}
{#- there, and flagged on their document here. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='cdc_incremental', unique_key=['_id']) }}

with

events as (
    select * from {{ ref('base_mongodb__rw_mongo_inventory_customers') }}
),

final as (
    {{ cdc_mongodb_current_state('events', 'rw_mongo.inventory.customers') }}
)

select * from final
