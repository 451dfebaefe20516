{#- Current state of Kafka topic `cdl_debezium.public.ct_pg2hudi`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_cdl__cdl_debezium_public_ct_pg2hudi') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
