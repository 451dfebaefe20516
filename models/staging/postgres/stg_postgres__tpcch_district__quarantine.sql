{#- Landed records of topic `postgres.tpcch.district` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_postgres__tpcch_district') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
