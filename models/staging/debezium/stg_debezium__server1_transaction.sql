{#- Staging of Kafka topic `server1.transaction` (Debezium transaction metadata topic): -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__server1_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'server1.transaction') }}
)

select * from final
