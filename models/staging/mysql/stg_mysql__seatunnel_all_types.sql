{#- Staging of Kafka topic `mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table` (mysql connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__seatunnel_all_types') }}
),

final as (
    {{ cdc_debezium_changes('events', 'mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table') }}
)

select * from final
