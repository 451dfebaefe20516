{#- Current state of Kafka topic -#}
{#- `mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('mysql__seatunnel_all_types__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
