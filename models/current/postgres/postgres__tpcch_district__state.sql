{#- Merged state of Kafka topic -#}
{#- `postgres.tpcch.district`, -#}
{#- one row per d_id, d_w_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__tpcch_district`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['d_id', 'd_w_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_district') }}
),

final as (
    {{ cdc_current_state('changes', ['d_id', 'd_w_id']) }}
)

select * from final
