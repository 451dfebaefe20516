{#- Staging of a Debezium transaction metadata topic: -#}
{#- `bank.transaction` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__bank_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'bank.transaction') }}
)

select * from final
