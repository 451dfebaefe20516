{#- Base of Kafka topic `postgres.tpcch.neworder` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_neworder') }}
),

final as (
    {{ cdc_debezium_events('landed', 'postgres.tpcch.neworder') }}
)

select * from final
