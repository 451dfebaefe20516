{#- Landed records of topic `postgres.tpcch.neworder` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__tpcch_neworder') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
