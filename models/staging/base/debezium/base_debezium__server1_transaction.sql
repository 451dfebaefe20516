{#- Base of Kafka topic `server1.transaction` (Debezium transaction metadata topic): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('debezium_landing', 'server1_transaction') }}
),

final as (
    {{ cdc_metadata_events('landed', 'server1.transaction') }}
)

select * from final
