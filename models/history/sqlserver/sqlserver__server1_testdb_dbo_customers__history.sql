{#- History of Kafka topic -#}
{#- `server1.testDB.dbo.customers` (SCD type 2): -#}
{#- one row per version of each id. -#}
{#- Scaffolded by `python -m python_helpers sync` (history: true); edit freely. -#}
{{ config(unique_key=['id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_sqlserver__server1_testdb_dbo_customers') }}
),

final as (
    {{ cdc_history('changes', ['id']) }}
)

select * from final
