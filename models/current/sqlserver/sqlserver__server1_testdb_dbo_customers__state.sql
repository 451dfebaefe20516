{#- Merged state of Kafka topic -#}
{#- `server1.testDB.dbo.customers`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `sqlserver__server1_testdb_dbo_customers`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__server1_testdb_dbo_customers') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
