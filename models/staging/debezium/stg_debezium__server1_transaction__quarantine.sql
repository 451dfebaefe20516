{#- Landed records of topic `server1.transaction` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__server1_transaction') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
