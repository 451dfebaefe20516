{#- Merged state of Kafka topic -#}
{#- `postgres.tpcch.customer`, -#}
{#- one row per c_id, c_d_id, c_w_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__tpcch_customer`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['c_id', 'c_d_id', 'c_w_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_customer') }}
),

final as (
    {{ cdc_current_state('changes', ['c_id', 'c_d_id', 'c_w_id']) }}
)

select * from final
