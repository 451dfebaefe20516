{#-
    Fails when the landed records of a topic are not all accounted for:
    count(landed) must equal count(staging model) + count(quarantine).
    Returns one row (the three counts) on failure.
-#}
{% test cdc_accounts_for_landed_records(model, landed, quarantine) %}

with

counts as (
    select
        (select count(*) from {{ landed }}) as landed_records,
        (select count(*) from {{ model }}) as staged_events,
        (select count(*) from {{ quarantine }}) as quarantined_records
),

final as (
    select *
    from counts
    where landed_records != staged_events + quarantined_records
)

select * from final

{% endtest %}
