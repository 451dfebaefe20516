{#- Staging of a Kafka topic (postgresql connector): -#}
{#- `typesdemo.public.all_types` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__typesdemo_public_all_types') }}
),

final as (
    {{ cdc_debezium_changes('events', 'typesdemo.public.all_types') }}
)

select * from final
