{#- Staging of Kafka topic `server1` (Debezium schema-change topic): -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__server1_schema_changes') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'server1') }}
)

select * from final
