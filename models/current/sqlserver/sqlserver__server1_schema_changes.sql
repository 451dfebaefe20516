{#- Schema history of Kafka topic `server1`: one row per table change. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

events as (
    select * from {{ ref('stg_sqlserver__server1_schema_changes') }}
),

final as (
    {{ cdc_schema_history('events') }}
)

select * from final
