{#- Merged state of Kafka topic -#}
{#- `proptest.public.items`, -#}
{#- one row per id, deleted keys kept as delete markers -#}
{#- (`_cdc_op = 'd'`): analysts read the view `postgres__proptest_public_items`. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id'], cdc_delete_markers=true) }}

with

changes as (
    select * from {{ ref('stg_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
