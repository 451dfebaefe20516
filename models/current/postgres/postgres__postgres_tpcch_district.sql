{#- Current state of Kafka topic -#}
{#- `postgres.tpcch.district`, -#}
{#- one row per d_id, d_w_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__postgres_tpcch_district__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
