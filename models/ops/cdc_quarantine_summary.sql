-- Quarantine at a glance: every topic's quarantine by reason
-- (cdc_quarantine_counts, kept by each run) with what the reason means,
-- whether it needs a person, and what to do (the seed cdc_quarantine_reasons).
with

counted as (
    select * from {{ ref('cdc_quarantine_counts') }}
),

reasons as (
    select * from {{ ref('cdc_quarantine_reasons') }}
),

final as (
    select
        counted.*,
        reasons.what_to_do,
        coalesce(reasons.needs_attention, true) as needs_attention,
        coalesce(reasons.meaning, 'a reason cdc_quarantine_reasons does not list') as meaning
    from counted
    left join reasons
        on counted.reason = reasons.reason
)

select * from final
