{#- Landed records of topic `server1.testDB.dbo.tablea` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

events as (
    select * from {{ ref('base_sqlserver__server1_testdb_dbo_tablea') }}
),

final as (
    {{ cdc_debezium_rejects('events') }}
)

select * from final
