{#- Merged state of Kafka topic -#}
{#- `mysql_binlog_source.column_type_test.full_types`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `mysql__flinkcdc_full_types`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_mysql__flinkcdc_full_types') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
