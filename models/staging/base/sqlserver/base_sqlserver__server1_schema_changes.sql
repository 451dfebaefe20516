{#- Base of Kafka topic `server1` (Debezium schema-change topic): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('sqlserver_landing', 'server1') }}
),

final as (
    {{ cdc_metadata_events('landed', 'server1') }}
)

select * from final
