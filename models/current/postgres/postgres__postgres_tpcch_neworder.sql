{#- Current state of Kafka topic -#}
{#- `postgres.tpcch.neworder`, -#}
{#- one row per no_o_id, no_d_id, no_w_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__postgres_tpcch_neworder__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
