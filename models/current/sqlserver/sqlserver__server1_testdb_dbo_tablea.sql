{#- Current state of Kafka topic `server1.testDB.dbo.tablea`, -#}
{#- one row per pk. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['pk']) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__server1_testdb_dbo_tablea') }}
),

final as (
    {{ cdc_current_state('changes', ['pk']) }}
)

select * from final
