{#- Base of a Kafka topic (mongodb connector): -#}
{#- `mongodb_bigdata_test.bigdata_test.sync_test_table` -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source(
        'mongodb_landing',
        'mongodb_bigdata_test_bigdata_test_sync_test_table'
    ) }}
),

final as (
    {{ cdc_mongodb_events('landed', 'mongodb_bigdata_test.bigdata_test.sync_test_table') }}
)

select * from final
