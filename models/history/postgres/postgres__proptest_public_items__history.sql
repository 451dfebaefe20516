{#- History of topic `proptest.public.items` (SCD type 2): one row per -#}
{#- version of each item, opened and closed in source order. -#}
{{ config(unique_key=['id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_postgres__proptest_public_items') }}
),

final as (
    {{ cdc_history('changes', ['id']) }}
)

select * from final
