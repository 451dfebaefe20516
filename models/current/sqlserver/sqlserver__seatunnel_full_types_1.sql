{#- Current state of Kafka topic -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__seatunnel_full_types_1') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
