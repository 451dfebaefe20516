{#- Merged state of Kafka topic -#}
{#- `typesdemo.public.all_types`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__typesdemo_public_all_types`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__typesdemo_public_all_types') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
