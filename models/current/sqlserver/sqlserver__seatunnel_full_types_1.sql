{#- Current state of Kafka topic -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('sqlserver__seatunnel_full_types_1__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
