{#- Landed records that are not change events, of Kafka topic -#}
{#- `typesdemo.public.all_types` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__typesdemo_public_all_types') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
