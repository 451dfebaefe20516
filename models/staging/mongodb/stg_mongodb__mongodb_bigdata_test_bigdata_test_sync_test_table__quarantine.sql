{#- Landed records that are not change events, of Kafka topic -#}
{#- `mongodb_bigdata_test.bigdata_test.sync_test_table` -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_mongodb__mongodb_bigdata_test_bigdata_test_sync_test_table') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
