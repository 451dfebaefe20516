{#- Landed records of topic `RW_CDC_1001.transaction` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_debezium__rw_cdc_1001_transaction') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
