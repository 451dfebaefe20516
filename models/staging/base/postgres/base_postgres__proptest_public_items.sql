{#- Base of a Kafka topic (postgresql connector): -#}
{#- `proptest.public.items` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'proptest_public_items') }}
),

final as (
    {{ cdc_debezium_events('landed', 'proptest.public.items') }}
)

select * from final
