{#- Landed records of topic `cdl_debezium.public.ct_pg2hudi` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_cdl__cdl_debezium_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
