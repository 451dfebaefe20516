{#- Current state of `tpcch_district` from topic `postgres.tpcch.district`, -#}
{#- one row per d_id, d_w_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['d_id', 'd_w_id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_district') }}
),

final as (
    {{ cdc_current_state('changes', ['d_id', 'd_w_id']) }}
)

select * from final
