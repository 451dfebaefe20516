{#- Current state of Kafka topic -#}
{#- `mysql_binlog_source.column_type_test.full_types`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('mysql__flinkcdc_full_types__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
