{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `proptx.public.order_lines` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__proptx_public_order_lines') }}
),

final as (
    {{ cdc_debezium_changes('events', 'proptx.public.order_lines') }}
)

select * from final
