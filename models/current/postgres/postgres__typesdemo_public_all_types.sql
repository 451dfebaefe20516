{#- Current state of Kafka topic -#}
{#- `typesdemo.public.all_types`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__typesdemo_public_all_types') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
