{#- Staging of Kafka topic `PostgreSQL_server.public.customers` (postgresql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__postgresql_server_public_customers') }}
),

final as (
    {{ cdc_debezium_changes('events', 'PostgreSQL_server.public.customers') }}
)

select * from final
