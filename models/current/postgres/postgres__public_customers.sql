{#- Current state of `public_customers` from topic `PostgreSQL_server.public.customers`, -#}
{#- one row per id. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(unique_key=['id']) }}

with

changes as (
    select * from {{ ref('stg_postgres__public_customers') }}
),

final as (
    {{ cdc_current_state('changes', ['id']) }}
)

select * from final
