{#- Landed records that are not change events, of Kafka topic -#}
{#- `proptest.public.items` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
