{#- Current state of `tpcch_warehouse` from topic `postgres.tpcch.warehouse`, -#}
{#- one row per w_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['w_id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_warehouse') }}
),

final as (
    {{ cdc_current_state('changes', ['w_id']) }}
)

select * from final
