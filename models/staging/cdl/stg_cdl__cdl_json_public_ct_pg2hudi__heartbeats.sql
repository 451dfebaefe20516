{#- Heartbeats of Huawei CDL topic `cdl_json.public.ct_pg2hudi`: counted, not staged. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_cdl__cdl_json_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_heartbeats('events') }}
)

select * from final
