{#- Base of Kafka topic `postgres.tpcch.customer` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_customer') }}
),

final as (
    {{ cdc_debezium_events('landed', 'postgres.tpcch.customer') }}
)

select * from final
