{#-
    `cdc_quarantine_counts(quarantines)`: the select of the model
    `cdc_quarantine_counts` (models/generated/ops/, written by sync with every
    topic of the project): for each topic and each reason its quarantine view
    holds, how many records, the oldest and the newest landing, and the
    newest record's coordinates (Kafka partition and offset, landing file
    and line).

    An incremental table, kept by a merge on (topic, reason): a run counts
    again only the topics whose base model it builds (`selected_resources`:
    a run of ten changed topics reads their ten quarantine views, never the
    other topics'), and a reason such a topic no longer holds (a
    `schema_not_covered` record staged after a sync, a topic rebuilt) comes
    out with 0 records, which the merge deletes. A first build or a full
    refresh counts every topic. The var `cdc_quarantine_recount` (base model
    names) counts those topics only: the pipeline's recount after a build
    in which another topic failed (dbt skipped the counts for all).
-#}
{% macro cdc_quarantine_counts(quarantines) %}
    {{- return(adapter.dispatch('cdc_quarantine_counts', 'cdc')(quarantines)) -}}
{% endmacro %}

{% macro default__cdc_quarantine_counts(quarantines) -%}
    {%- set included = [] -%}
    {%- set recount = var('cdc_quarantine_recount', none) -%}
    {%- for topic, quarantine, base in quarantines -%}
        {%- if (recount is not none and base in recount)
            or (recount is none and not is_incremental())
            or ('model.' ~ project_name ~ '.' ~ base) in (selected_resources or []) -%}
            {%- do included.append([topic, quarantine]) -%}
        {%- endif -%}
    {%- endfor %}
    select
        coalesce(counted.topic, existing.topic) as topic,
        coalesce(counted.reason, existing.reason) as reason,
        coalesce(counted.records, 0) as records,
        counted.oldest_landed_at,
        counted.newest_landed_at,
        counted.example_kafka_partition,
        counted.example_kafka_offset,
        counted.example_landing_file,
        counted.example_landing_line,
        current_timestamp() as counted_at
    from (
        {%- for topic, model in included %}
        select
            {{ cdc_string(topic) }} as topic,
            quarantined._quarantine_reason as reason,
            count(*) as records,
            min(quarantined._landed_at) as oldest_landed_at,
            max(quarantined._landed_at) as newest_landed_at,
            {%- for column, source in [
                ('example_kafka_partition', '_kafka_partition'),
                ('example_kafka_offset', '_kafka_offset'),
                ('example_landing_file', '_landing_file'),
                ('example_landing_line', '_landing_line'),
            ] %}
            max_by(
                quarantined.{{ source }},
                struct(
                    quarantined._landing_batch,
                    quarantined._landing_file,
                    quarantined._landing_line
                )
            ) as {{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        from {{ ref(model) }} as quarantined
        group by quarantined._quarantine_reason
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
        {%- if not included %}
        select
            cast(null as string) as topic,
            cast(null as string) as reason,
            cast(0 as bigint) as records,
            cast(null as timestamp) as oldest_landed_at,
            cast(null as timestamp) as newest_landed_at,
            cast(null as int) as example_kafka_partition,
            cast(null as bigint) as example_kafka_offset,
            cast(null as string) as example_landing_file,
            cast(null as bigint) as example_landing_line
        where false
        {%- endif %}
    ) as counted
    {%- if is_incremental() %}
    full outer join (
        select
            stored.topic,
            stored.reason
        from {{ this }} as stored
        {%- if included %}
        where stored.topic in (
            {%- for topic, model in included %}
            {{ cdc_string(topic) }}{{ ',' if not loop.last }}
            {%- endfor %}
        )
        {%- else %}
        where false
        {%- endif %}
    ) as existing
        on counted.topic = existing.topic and counted.reason = existing.reason
    {%- else %}
    left join (
        select
            cast(null as string) as topic,
            cast(null as string) as reason
        where false
    ) as existing
        on false
    {%- endif %}
{%- endmacro %}
