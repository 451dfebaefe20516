{#- Current state of Kafka topic -#}
{#- `proptx.public.order_lines`, -#}
{#- one row per item_id: the merged state without its delete markers. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(materialized='view') }}

with

state as (
    select * from {{ ref('postgres__proptx_public_order_lines__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
