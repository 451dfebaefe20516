{#-
    Fails when the landed records of a topic are not all accounted for:
    every landed record is exactly one row of the base model (`model`), and
    count(base) = count(staging) + count(quarantine) (+ count(heartbeats) for
    Huawei CDL topics). Checks the batches of
    the latest staging run (var cdc_test_scope: latest_run, the default) or
    every batch (`all`). Returns one row (the counts) on failure.
-#}
{% test cdc_accounts_for_landed_records(model, landed, staging, quarantine, heartbeats=none) %}

{%- set window = cdc_test_window(quarantine) or 'true' %}

with

counts as (
    select
        (
            select count(*) from {{ landed }}
            where {{ window | replace('_landing_batch', 'landing_batch') }}
        ) as landed_records,
        (select count(*) from {{ model }} where {{ window }}) as base_records,
        (
            select count(distinct _landing_file, _landing_line)
            from {{ model }} where {{ window }}
        ) as distinct_base_records,
        (select count(*) from {{ staging }} where {{ window }}) as staged_events,
        (select count(*) from {{ quarantine }} where {{ window }}) as quarantined_records,
        {%- if heartbeats %}
        (select count(*) from {{ heartbeats }} where {{ window }}) as heartbeats
        {%- else %}
        0 as heartbeats
        {%- endif %}
),

final as (
    select *
    from counts
    where
        landed_records != base_records
        or base_records != distinct_base_records
        or base_records != staged_events + quarantined_records + heartbeats
)

select * from final

{% endtest %}
