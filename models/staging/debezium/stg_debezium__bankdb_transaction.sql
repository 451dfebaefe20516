{#- Staging of a Debezium transaction metadata topic: -#}
{#- `bankdb.transaction` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__bankdb_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'bankdb.transaction') }}
)

select * from final
