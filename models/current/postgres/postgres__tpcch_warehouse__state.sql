{#- Merged state of Kafka topic -#}
{#- `postgres.tpcch.warehouse`, -#}
{#- one row per w_id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__tpcch_warehouse`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['w_id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_warehouse') }}
),

final as (
    {{ cdc_current_state('changes', ['w_id']) }}
)

select * from final
