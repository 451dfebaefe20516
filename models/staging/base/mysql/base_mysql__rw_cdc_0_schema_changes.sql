{#- Base of Kafka topic `RW_CDC_0` (Debezium schema-change topic): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'rw_cdc_0') }}
),

final as (
    {{ cdc_metadata_events('landed', 'RW_CDC_0') }}
)

select * from final
