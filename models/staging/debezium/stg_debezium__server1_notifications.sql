{#- Staging of a Debezium notification topic: -#}
{#- `server1.notifications` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__server1_notifications') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'server1.notifications') }}
)

select * from final
