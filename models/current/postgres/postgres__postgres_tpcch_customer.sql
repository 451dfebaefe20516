{#- Current state of Kafka topic -#}
{#- `postgres.tpcch.customer`, -#}
{#- one row per c_id, c_d_id, c_w_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__postgres_tpcch_customer__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
