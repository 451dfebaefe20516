{#- Staging of Kafka topic `RW_CDC_0` (Debezium schema-change topic): -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__rw_cdc_0_schema_changes') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'RW_CDC_0') }}
)

select * from final
