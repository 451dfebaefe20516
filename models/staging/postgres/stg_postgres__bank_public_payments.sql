{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `bank.public.payments` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__bank_public_payments') }}
),

final as (
    {{ cdc_debezium_changes('events', 'bank.public.payments') }}
)

select * from final
