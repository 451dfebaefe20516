{#- Staging of a Debezium transaction metadata topic: -#}
{#- `proptx.transaction` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__proptx_transaction') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'proptx.transaction') }}
)

select * from final
