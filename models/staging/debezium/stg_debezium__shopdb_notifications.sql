{#- Staging of a Debezium notification topic: -#}
{#- `shopdb.notifications` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__shopdb_notifications') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'shopdb.notifications') }}
)

select * from final
