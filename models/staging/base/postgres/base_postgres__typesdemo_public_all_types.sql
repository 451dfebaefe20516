{#- Base of a Kafka topic (postgresql connector): -#}
{#- `typesdemo.public.all_types` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'typesdemo_public_all_types') }}
),

final as (
    {{ cdc_debezium_events('landed', 'typesdemo.public.all_types') }}
)

select * from final
