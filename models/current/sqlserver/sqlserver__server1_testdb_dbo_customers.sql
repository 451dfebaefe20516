{#- Current state of Kafka topic `server1.testDB.dbo.customers`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__server1_testdb_dbo_customers') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
