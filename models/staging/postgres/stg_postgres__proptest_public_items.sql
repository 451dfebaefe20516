{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `proptest.public.items` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_debezium_changes('events', 'proptest.public.items') }}
)

select * from final
