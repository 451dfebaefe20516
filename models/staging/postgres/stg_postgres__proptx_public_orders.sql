{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `proptx.public.orders` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__proptx_public_orders') }}
),

final as (
    {{ cdc_debezium_changes('events', 'proptx.public.orders') }}
)

select * from final
