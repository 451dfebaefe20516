{#- Merged state of Kafka topic -#}
{#- `postgres.tpcch.neworder`, -#}
{#- one row per no_o_id, no_d_id, no_w_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__tpcch_neworder`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['no_o_id', 'no_d_id', 'no_w_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_neworder') }}
),

final as (
    {{ cdc_current_state('changes', ['no_o_id', 'no_d_id', 'no_w_id']) }}
)

select * from final
