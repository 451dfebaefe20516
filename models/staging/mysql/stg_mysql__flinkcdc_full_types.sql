{#- Staging of a Kafka topic (mysql connector): -#}
{#- `mysql_binlog_source.column_type_test.full_types` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__flinkcdc_full_types') }}
),

final as (
    {{ cdc_debezium_changes('events', 'mysql_binlog_source.column_type_test.full_types') }}
)

select * from final
