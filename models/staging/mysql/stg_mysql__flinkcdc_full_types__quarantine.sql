{#- Landed records that are not change events, of Kafka topic -#}
{#- `mysql_binlog_source.column_type_test.full_types` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mysql__flinkcdc_full_types') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
