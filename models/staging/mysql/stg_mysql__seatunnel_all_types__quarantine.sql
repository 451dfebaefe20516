{#- Landed records that are not change events, of Kafka topic -#}
{#- `mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__seatunnel_all_types') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
