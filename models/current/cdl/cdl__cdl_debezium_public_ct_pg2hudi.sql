{#- Current state of Kafka topic -#}
{#- `cdl_debezium.public.ct_pg2hudi`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('cdl__cdl_debezium_public_ct_pg2hudi__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
