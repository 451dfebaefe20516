{#- Schema history of Kafka topic `RW_CDC_0`: one row per table change. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

events as (
    select * from {{ ref('stg_mysql__rw_cdc_0_schema_changes') }}
),

final as (
    {{ cdc_schema_history('events') }}
)

select * from final
