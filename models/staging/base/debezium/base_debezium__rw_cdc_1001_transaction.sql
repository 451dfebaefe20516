{#- Base of Kafka topic `RW_CDC_1001.transaction` (Debezium transaction metadata topic): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('debezium_landing', 'rw_cdc_1001_transaction') }}
),

final as (
    {{ cdc_metadata_events('landed', 'RW_CDC_1001.transaction') }}
)

select * from final
