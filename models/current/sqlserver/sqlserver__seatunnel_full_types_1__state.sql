{#- Merged state of Kafka topic -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `sqlserver__seatunnel_full_types_1`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__seatunnel_full_types_1') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
