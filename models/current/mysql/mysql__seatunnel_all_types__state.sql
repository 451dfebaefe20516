{#- Merged state of Kafka topic -#}
{#- `mysql_cdc_1.mysql_cdc.mysql_cdc_e2e_source_table`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `mysql__seatunnel_all_types`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_mysql__seatunnel_all_types') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
