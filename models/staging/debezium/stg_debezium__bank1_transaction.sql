{#- Staging of a Debezium transaction metadata topic: -#}
{#- `bank1.transaction` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__bank1_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'bank1.transaction') }}
)

select * from final
