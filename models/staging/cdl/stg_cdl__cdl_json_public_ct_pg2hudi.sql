{#- Staging of Kafka topic `cdl_json.public.ct_pg2hudi` (cdl connector): -#}
{#- one row per change event, typed. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_cdl__cdl_json_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_debezium_changes('events', 'cdl_json.public.ct_pg2hudi') }}
)

select * from final
