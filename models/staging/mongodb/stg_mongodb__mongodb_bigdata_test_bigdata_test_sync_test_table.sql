{#- Staging of a Kafka topic (mongodb connector): -#}
{#- `mongodb_bigdata_test.bigdata_test.sync_test_table` -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__mongodb_bigdata_test_bigdata_test_sync_test_table') }}
),

final as (
    {{ cdc_debezium_changes('events', 'mongodb_bigdata_test.bigdata_test.sync_test_table') }}
)

select * from final
