{#- Staging of a Kafka topic (sqlserver connector): -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__seatunnel_full_types_1') }}
),

final as (
    {{ cdc_debezium_changes('events', 'sqlserver_transaction_log_source.dbo.full_types_1') }}
)

select * from final
