{#-
    Fails when the landed records of a topic are not all accounted for,
    record by record (a record is its landing file and line):
    - every landed record is exactly one row of the base model (`model`),
      and every base row is a landed record;
    - every base row is exactly one row of staging, quarantine or (Huawei
      CDL topics) heartbeats, and none of those has a row that is not a
      base row.
    So it is also the primary-key test (`_landing_file`, `_landing_line`:
    not null and unique) of the base, staging, quarantine and heartbeats
    models. Checks the batches of the latest staging run (var
    cdc_test_scope: latest_run, the default) or every batch (`all`).
    Returns one row per kind of problem, with how many records have it.
-#}
{% test cdc_accounts_for_landed_records(model, landed, staging, quarantine, heartbeats=none) %}

{%- set window = cdc_test_window(quarantine) or 'true' %}
{%- set landed_window = cdc_test_window(quarantine, landed=true) or 'true' %}

with

landed as (
    select
        landing_file as _landing_file,
        landing_line as _landing_line
    from {{ landed }}
    where {{ landed_window }}
),

base as (
    select
        _landing_file,
        _landing_line
    from {{ model }}
    where {{ window }}
),

outcomes as (
    select
        _landing_file,
        _landing_line
    from {{ staging }}
    where {{ window }}
    union all
    select
        _landing_file,
        _landing_line
    from {{ quarantine }}
    where {{ window }}
    {%- if heartbeats %}
    union all
    select
        _landing_file,
        _landing_line
    from {{ heartbeats }}
    where {{ window }}
    {%- endif %}
),

landed_counts as (
    select
        _landing_file,
        _landing_line,
        count(*) as copies
    from landed
    group by _landing_file, _landing_line
),

base_counts as (
    select
        _landing_file,
        _landing_line,
        count(*) as copies
    from base
    group by _landing_file, _landing_line
),

outcome_counts as (
    select
        _landing_file,
        _landing_line,
        count(*) as copies
    from outcomes
    group by _landing_file, _landing_line
),

problems as (
    select
        case
            when landed_counts.copies is null then 'base row that was not landed'
            when base_counts.copies is null then 'landed record missing from base'
            when base_counts._landing_file is null or base_counts._landing_line is null
                then 'base row without landing file or line'
            else 'landed record in base more than once'
        end as problem
    from landed_counts
    full outer join base_counts
        on
            landed_counts._landing_file <=> base_counts._landing_file
            and landed_counts._landing_line <=> base_counts._landing_line
    where
        landed_counts.copies is null
        or base_counts.copies is null
        or base_counts.copies > 1
        or base_counts._landing_file is null
        or base_counts._landing_line is null
    union all
    select
        case
            when base_counts.copies is null then 'staged or quarantined row without a base row'
            when outcome_counts.copies is null then 'base row neither staged nor quarantined'
            else 'base row staged or quarantined more than once'
        end as problem
    from base_counts
    full outer join outcome_counts
        on
            base_counts._landing_file <=> outcome_counts._landing_file
            and base_counts._landing_line <=> outcome_counts._landing_line
    where
        base_counts.copies is null
        or outcome_counts.copies is null
        or outcome_counts.copies > 1
),

final as (
    select
        problem,
        count(*) as records
    from problems
    group by problem
)

select * from final

{% endtest %}
