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
    (a run that inserts a key already stored is found), in one read with
    the column rules: each key's copies and each rule's failing rows in
    the window come from one aggregation by key (reading the model once
    per rule kind, as Spark inlines a CTE read twice, took a warm session
    0.72 s against 0.40 s for a state table's test with the profile's
    settings).
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
{#- one read of the rows of the window's keys: each key's copies, and each
    rule's failing rows among those in the window, in one aggregation -#}
{%- if window != 'true' %}

windowed_keys as (
    select distinct
        {%- for column in keys %}
        {{ cdc_ident(column) }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ model }}
    where {{ window }}
),
{%- endif %}

keyed as (
    select
        named_struct(
            {%- for column in keys %}
            {{ cdc_string(column) }}, checked.{{ cdc_ident(column) }}{{ "," if not loop.last }}
            {%- endfor %}
        ) as checked_key,
        {%- for column in keys %}
        checked.{{ cdc_ident(column) }} is null{{ " or" if not loop.last }}
        {%- endfor %} as key_is_null
        {%- for rule in rules %},
        coalesce(({{ window }}) and ({{ rule[3] }}) and ({{ rule[2] }}), false) as failing_{{ loop.index }},
        if(coalesce(({{ window }}) and ({{ rule[3] }}) and ({{ rule[2] }}), false),
            coalesce(cast(checked.{{ cdc_ident(rule[1]) }} as string), 'null'), null)
            as example_{{ loop.index }}
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

per_key as (
    select
        to_json(checked_key) as key_value,
        count(*) as copies,
        key_is_null
        {%- for rule in rules %},
        count_if(failing_{{ loop.index }}) as failing_{{ loop.index }},
        min(example_{{ loop.index }}) as example_{{ loop.index }}
        {%- endfor %}
    from keyed
    group by checked_key, key_is_null
),

totals as (
    select
        count_if(key_is_null) as null_keys,
        sum(if(key_is_null, copies, 0)) as null_key_rows,
        min(if(key_is_null, key_value, null)) as null_key_example,
        count_if(copies > 1 and not key_is_null) as repeated_keys,
        sum(if(copies > 1 and not key_is_null, copies, 0)) as repeated_key_rows,
        min(if(copies > 1 and not key_is_null, key_value, null)) as repeated_key_example
        {%- for rule in rules %},
        sum(failing_{{ loop.index }}) as failing_{{ loop.index }},
        cast(min(example_{{ loop.index }}) as string) as example_{{ loop.index }}
        {%- endfor %}
    from per_key
),

{%- elif rules %}

totals as (
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
{%- endif %}

{%- if key or rules %}

checked_problems as (
    select
        rule,
        column_name,
        failing_rows,
        example
    from (
        select
            stack(
                {{ (2 if key else 0) + rules | length }},
                {%- if key %}
                'key not null', {{ cdc_string(keys | join(', ')) }},
                null_key_rows, null_key_example, null_keys,
                'key unique', {{ cdc_string(keys | join(', ')) }},
                repeated_key_rows, repeated_key_example, repeated_keys{{ "," if rules }}
                {%- endif %}
                {%- for rule in rules %}
                {{ cdc_string(rule[0]) }}, {{ cdc_string(rule[1]) }},
                failing_{{ loop.index }}, example_{{ loop.index }},
                failing_{{ loop.index }}{{ "," if not loop.last }}
                {%- endfor %}
            ) as (rule, column_name, failing_rows, example, found)
        from totals
    ) as stacked
    where found > 0
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
    {%- if key or rules %}
    union all
    select * from checked_problems
    {%- endif %}
    {%- if landed %}
    union all
    select * from accounting_problems
    {%- endif %}
)

select * from final

{% endtest %}
