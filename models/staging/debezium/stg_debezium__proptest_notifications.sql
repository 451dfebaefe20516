{#- Staging of a Debezium notification topic: -#}
{#- `proptest.notifications` -#}
{#- one row per event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__proptest_notifications') }}
),

final as (
    {{ cdc_metadata_accepted('events', 'proptest.notifications') }}
)

select * from final
