{#- Merged state of Kafka topic -#}
{#- `server1.testDB.dbo.tablea`, -#}
{#- one row per pk, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `sqlserver__server1_testdb_dbo_tablea`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['pk'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__server1_testdb_dbo_tablea') }}
),

final as (
    {{ cdc_current_state('changes', ['pk']) }}
)

select * from final
