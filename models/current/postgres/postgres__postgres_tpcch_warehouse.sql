{#- Current state of Kafka topic -#}
{#- `postgres.tpcch.warehouse`, -#}
{#- one row per w_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__postgres_tpcch_warehouse__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
