{#- Landed records of topic `RW_CDC_0` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__rw_cdc_0_schema_changes') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
