{#-
    The accounting rules of cdc_checks (tests/dbt/generic/cdc_checks.sql)
    as CTEs ending in `accounting_problems` (rule, column_name,
    failing_rows, example), for a topic's base model `base`:
    - every landed record (a landing file and line) is exactly one base
      row, and every base row a landed record;
    - every base row is exactly one staging, quarantine or heartbeat row,
      and none of those has a row that is not a base row;
    - every quarantine row has a `_quarantine_reason`; with `staging_ops`,
      every staging row's `_cdc_op` is one of them.
    `since`: the window's start (micros; none: every row) over `_landed_at`
    and the raw table's `landing_batch`.
-#}
{% macro _cdc_accounting_ctes(base, since, landed, staging, quarantine, heartbeats, staging_ops) -%}
{%- set window = _cdc_window_predicate(since) or 'true' -%}
{%- set landed_window = _cdc_window_predicate(since, landed=true) or 'true' -%}
{%- set ops = [] -%}
{%- for value in staging_ops or [] %}{% do ops.append(cdc_string(value | string)) %}{% endfor -%}
landed_records as (
    select
        landing_file as _landing_file,
        landing_line as _landing_line
    from {{ landed }}
    where {{ landed_window }}
),

base_records as (
    select
        _landing_file,
        _landing_line
    from {{ base }}
    where {{ window }}
),

outcomes as (
    select
        _landing_file,
        _landing_line,
        {%- if ops %}
        coalesce(_cdc_op not in ({{ ops | join(', ') }}), true) as bad_op,
        cast(_cdc_op as string) as op,
        {%- else %}
        false as bad_op,
        cast(null as string) as op,
        {%- endif %}
        false as no_reason
    from {{ staging }}
    where {{ window }}
    union all
    select
        _landing_file,
        _landing_line,
        false as bad_op,
        cast(null as string) as op,
        _quarantine_reason is null as no_reason
    from {{ quarantine }}
    where {{ window }}
    {%- if heartbeats %}
    union all
    select
        _landing_file,
        _landing_line,
        false as bad_op,
        cast(null as string) as op,
        false as no_reason
    from {{ heartbeats }}
    where {{ window }}
    {%- endif %}
),

landed_counts as (
    select
        _landing_file,
        _landing_line,
        count(*) as copies
    from landed_records
    group by _landing_file, _landing_line
),

base_counts as (
    select
        _landing_file,
        _landing_line,
        count(*) as copies
    from base_records
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

record_problems as (
    select
        case
            when landed_counts.copies is null then 'base row that was not landed'
            when base_counts.copies is null then 'landed record missing from base'
            when base_counts._landing_file is null or base_counts._landing_line is null
                then 'base row without landing file or line'
            else 'landed record in base more than once'
        end as problem,
        coalesce(base_counts._landing_file, landed_counts._landing_file) as landing_file,
        coalesce(base_counts._landing_line, landed_counts._landing_line) as landing_line
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
        end as problem,
        coalesce(base_counts._landing_file, outcome_counts._landing_file) as landing_file,
        coalesce(base_counts._landing_line, outcome_counts._landing_line) as landing_line
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

accounting_problems as (
    select
        concat('accounting: ', problem) as rule,
        '_landing_file, _landing_line' as column_name,
        count(*) as failing_rows,
        min(concat(landing_file, ':', cast(landing_line as string))) as example
    from record_problems
    group by problem
    union all
    select
        'accepted_values' as rule,
        '_cdc_op (staging)' as column_name,
        count(*) as failing_rows,
        min(coalesce(op, 'null')) as example
    from outcomes
    where bad_op
    having count(*) > 0
    union all
    select
        'not_null' as rule,
        '_quarantine_reason (quarantine)' as column_name,
        count(*) as failing_rows,
        min(concat(_landing_file, ':', cast(_landing_line as string))) as example
    from outcomes
    where no_reason
    having count(*) > 0
),
{%- endmacro %}
