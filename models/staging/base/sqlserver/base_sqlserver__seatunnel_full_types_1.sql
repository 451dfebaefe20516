{#- Base of a Kafka topic (sqlserver connector): -#}
{#- `sqlserver_transaction_log_source.dbo.full_types_1` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source(
        'sqlserver_landing',
        'sqlserver_transaction_log_source_dbo_full_types_1'
    ) }}
),

final as (
    {{ cdc_debezium_events('landed', 'sqlserver_transaction_log_source.dbo.full_types_1') }}
)

select * from final
