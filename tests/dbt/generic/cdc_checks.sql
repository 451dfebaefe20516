{#-
    Every check of one model in one dbt test (one node per model, not one
    per rule and column). Returns one row per broken rule: `rule`,
    `column_name`, `failing_rows` (how many rows break it) and `example`
    (one offending value or record), so the failure names what broke.

    Rules, each from its argument:
    - `key` (columns): never null, and no two rows share it;
    - `not_null` (columns): never null;
    - `accepted_values` ({column: [values]}): one of the values (a null is
      not judged: `not_null` says whether it may be one); `live`: the model is a current-state view, whose rows flagged
      `is_deleted` (var `cdc_soft_deletes`) are exempt;
    - accounting (`landed`, `staging`, `quarantine`, `heartbeats`, on a
      base model): every landed record is exactly one base row and every
      base row exactly one staging, quarantine or heartbeat row, by landing
      file and line (so also the primary key of those models); every
      quarantine row has a `_quarantine_reason`; `staging_ops`: every
      staging row's `_cdc_op` is one of them.

    What is read: the window of cdc_test_window — the rows of the topic's
    latest staging run (a watch: every run since var
    `cdc_test_since_micros`) — or every row with var `cdc_test_scope: all`.
    A key is checked against the whole model, for the keys in the window
    (a run that inserts a key already stored is found, reading only the
    key columns of the rest).
-#}
{% test cdc_checks(model, key=none, not_null=none, accepted_values=none, live=false,
    landed=none, staging=none, quarantine=none, heartbeats=none, staging_ops=none) %}
{{ config(cdc_own_window=true) }}

{%- set since = cdc_test_window_start(model, merged=true) %}
{%- set window = _cdc_window_predicate(since) or 'true' %}
{%- set rules = [] %}
{%- set live_filter = 'not is_deleted' if live and var('cdc_soft_deletes', false) else 'true' %}
{%- for column in not_null or [] %}
    {%- do rules.append(('not_null', column, cdc_ident(column) ~ ' is null', 'true')) %}
{%- endfor %}
{%- for column, values in (accepted_values or {}).items() %}
    {%- set quoted = [] %}
    {%- for value in values %}{% do quoted.append(cdc_string(value | string)) %}{% endfor %}
    {#- a null is not judged here (not_null says whether it may be) -#}
    {%- do rules.append(('accepted_values', column,
        cdc_ident(column) ~ ' not in (' ~ quoted | join(', ') ~ ')',
        live_filter)) %}
{%- endfor %}

with

{%- if key %}
{%- set keys = [key] if key is string else key %}

windowed_keys as (
    select distinct
        {%- for column in keys %}
        {{ cdc_ident(column) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ model }}
    where {{ window }}
),

keyed as (
    select
        {%- for column in keys %}
        checked.{{ cdc_ident(column) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ model }} as checked
    {%- if window != 'true' %}
    left semi join windowed_keys
        on
            {%- for column in keys %}
            checked.{{ cdc_ident(column) }} <=> windowed_keys.{{ cdc_ident(column) }}
            {{- " and" if not loop.last }}
            {%- endfor %}
    {%- endif %}
),

repeated as (
    select
        to_json(named_struct(
            {%- for column in keys %}
            {{ cdc_string(column) }}, {{ cdc_ident(column) }}{{ "," if not loop.last }}
            {%- endfor %}
        )) as key_value,
        count(*) as copies,
        {%- for column in keys %}
        {{ cdc_ident(column) }} is null{{ " or" if not loop.last }}
        {%- endfor %} as is_null
    from keyed
    group by
        {%- for column in keys %}
        {{ cdc_ident(column) }}{{ "," if not loop.last }}
        {%- endfor %}
),

key_problems as (
    select
        'key not null' as rule,
        {{ cdc_string(keys | join(', ')) }} as column_name,
        sum(copies) as failing_rows,
        min(key_value) as example
    from repeated
    where is_null
    having count(*) > 0
    union all
    select
        'key unique' as rule,
        {{ cdc_string(keys | join(', ')) }} as column_name,
        sum(copies) as failing_rows,
        min(key_value) as example
    from repeated
    where copies > 1 and not is_null
    having count(*) > 0
),
{%- endif %}

{%- if rules %}

tallies as (
    select
        {%- for rule in rules %}
        count_if(({{ rule[3] }}) and ({{ rule[2] }})) as failing_{{ loop.index }},
        cast(min(if(({{ rule[3] }}) and ({{ rule[2] }}),
            coalesce(cast({{ cdc_ident(rule[1]) }} as string), 'null'), null)) as string)
            as example_{{ loop.index }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ model }}
    where {{ window }}
),

column_problems as (
    select
        rule,
        column_name,
        failing_rows,
        example
    from (
        select
            stack(
                {{ rules | length }},
                {%- for rule in rules %}
                {{ cdc_string(rule[0]) }}, {{ cdc_string(rule[1]) }},
                failing_{{ loop.index }}, example_{{ loop.index }}{{ "," if not loop.last }}
                {%- endfor %}
            ) as (rule, column_name, failing_rows, example)
        from tallies
    ) as stacked
    where failing_rows > 0
),
{%- endif %}

{%- if landed %}
{{ _cdc_accounting_ctes(model, since, landed, staging, quarantine, heartbeats, staging_ops) }}
{%- endif %}

final as (
    select
        cast(null as string) as rule,
        cast(null as string) as column_name,
        cast(null as bigint) as failing_rows,
        cast(null as string) as example
    where false
    {%- if key %}
    union all
    select * from key_problems
    {%- endif %}
    {%- if rules %}
    union all
    select * from column_problems
    {%- endif %}
    {%- if landed %}
    union all
    select * from accounting_problems
    {%- endif %}
)

select * from final

{% endtest %}
