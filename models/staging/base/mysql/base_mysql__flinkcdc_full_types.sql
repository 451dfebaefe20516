{#- Base of a Kafka topic (mysql connector): -#}
{#- `mysql_binlog_source.column_type_test.full_types` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('mysql_landing', 'mysql_binlog_source_column_type_test_full_types') }}
),

final as (
    {{ cdc_debezium_events('landed', 'mysql_binlog_source.column_type_test.full_types') }}
)

select * from final
