{#- Merged state of Kafka topic -#}
{#- `cdl_json.public.ct_pg2hudi`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `cdl__cdl_json_public_ct_pg2hudi`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_cdl__cdl_json_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
