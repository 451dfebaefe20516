{#- Landed records that are not change events, of Kafka topic -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__seatunnel_full_types_1') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
