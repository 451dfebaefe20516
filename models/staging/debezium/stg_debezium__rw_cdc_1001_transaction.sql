{#- Staging of Kafka topic `RW_CDC_1001.transaction` (Debezium transaction metadata topic): -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__rw_cdc_1001_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'RW_CDC_1001.transaction') }}
)

select * from final
