{#- Current state of Kafka topic `postgres.tpcch.neworder` with soft -#}
{#- deletes: deleted keys stay, flagged `is_deleted` / `deleted_at`. -#}
{#- Written by hand: the per-model form of the `cdc_soft_deletes` switch. -#}
{{ config(materialized='view', cdc_soft_deletes=true) }}

with

state as (
    select * from {{ ref('postgres__postgres_tpcch_neworder__state') }}
),

final as (
    {{ cdc_current_view('state') }}
)

select * from final
