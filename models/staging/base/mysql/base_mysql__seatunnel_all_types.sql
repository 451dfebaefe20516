{#- Base of Kafka topic `mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table` (mysql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'mysql_cdc_1_mysql_cdc_mysql_cdc_e2e_source_table') }}
),

final as (
    {{ cdc_debezium_events('landed', 'mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table') }}
)

select * from final
