{#- Staging of Kafka topic `postgres.tpcch.customer` (postgresql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__postgres_tpcch_customer') }}
),

final as (
    {{ cdc_debezium_changes('events', 'postgres.tpcch.customer') }}
)

select * from final
