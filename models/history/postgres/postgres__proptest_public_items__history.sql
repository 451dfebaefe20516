{#- History of Kafka topic -#}
{#- `proptest.public.items` (SCD type 2): -#}
{#- one row per version of each id. -#}
{#- Scaffolded by `python -m python_helpers sync` (history: true); edit freely. -#}
{{ config(unique_key=['id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_history('changes', ['id']) }}
)

select * from final
