{#- Current state of Kafka topic -#}
{#- `proptest.public.items`, -#}
{#- one row per id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__proptest_public_items__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
