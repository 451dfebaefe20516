{#- Current state of `tpcch_customer` from topic `postgres.tpcch.customer`, -#}
{#- one row per c_id, c_d_id, c_w_id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['c_id', 'c_d_id', 'c_w_id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_customer') }}
),

final as (
    {{ cdc_current_state('changes', ['c_id', 'c_d_id', 'c_w_id']) }}
)

select * from final
