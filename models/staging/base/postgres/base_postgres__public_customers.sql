{#- Base of Kafka topic `PostgreSQL_server.public.customers` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgresql_server_public_customers') }}
),

final as (
    {{ cdc_debezium_events('landed', 'PostgreSQL_server.public.customers') }}
)

select * from final
