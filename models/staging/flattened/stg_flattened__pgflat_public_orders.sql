{#- Staging of a Kafka topic (flattened connector): -#}
{#- `pgflat.public.orders` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_flattened__pgflat_public_orders') }}
),

final as (
    {{ cdc_debezium_changes('events', 'pgflat.public.orders') }}
)

select * from final
