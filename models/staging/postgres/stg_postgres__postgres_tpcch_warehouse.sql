{#- Staging of Kafka topic `postgres.tpcch.warehouse` (postgresql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__postgres_tpcch_warehouse') }}
),

final as (
    {{ cdc_debezium_changes('events', 'postgres.tpcch.warehouse') }}
)

select * from final
