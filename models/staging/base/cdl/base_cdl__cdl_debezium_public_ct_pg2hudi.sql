{#- Base of Kafka topic `cdl_debezium.public.ct_pg2hudi` (cdl connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('cdl_landing', 'cdl_debezium_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_debezium_events('landed', 'cdl_debezium.public.ct_pg2hudi') }}
)

select * from final
