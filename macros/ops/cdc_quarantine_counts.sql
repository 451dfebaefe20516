{#-
    `cdc_quarantine_counts(quarantines)`: the select of the model
    `cdc_quarantine_counts` (models/generated/ops/, written by sync with every
    topic of the project): for each topic and each reason its quarantine view
    holds, how many records, the oldest and the newest landing, and the
    newest record's coordinates (Kafka partition and offset, landing file
    and line).

    An incremental table, kept by a merge on (topic, reason): a run counts
    again the topics whose base model it builds (`selected_resources`: a
    run of ten changed topics reads their ten quarantine views, never the
    other topics'); of those whose base model had nothing new, only the
    ones whose counts are not current (an earlier run that built the topic
    was stopped before its counts), found by two look-up queries; a run in
    which every count is current sends no statement. A reason such a topic
    no longer holds (a `schema_not_covered` record staged after a sync, a
    topic rebuilt) comes out with 0 records, which the merge deletes. A first build or a full
    refresh counts every topic. The var `cdc_quarantine_recount` (base model
    names) counts those topics only: the pipeline's recount after a build
    in which another topic failed (dbt skipped the counts for all).
-#}
{% macro cdc_quarantine_counts(quarantines) %}
    {{- return(adapter.dispatch('cdc_quarantine_counts', 'cdc')(quarantines)) -}}
{% endmacro %}

{% macro default__cdc_quarantine_counts(quarantines) -%}
    {%- set included = [] -%}
    {%- set quiet = [] -%}
    {%- set recount = var('cdc_quarantine_recount', none) -%}
    {%- set looked_up = _cdc_lookups() if execute else {} -%}
    {%- for topic, quarantine, base in quarantines -%}
        {%- set node = 'model.' ~ project_name ~ '.' ~ base -%}
        {%- if (recount is not none and base in recount)
            or (recount is none and not is_incremental()) -%}
            {%- do included.append([topic, quarantine]) -%}
        {%- elif node in (selected_resources or []) -%}
            {#- a base model whose run had nothing new: counted again only
                if the counts are not current for it (an earlier run that
                built it was stopped before the counts) -#}
            {%- if cdc_nothing_new(looked_up.get(node)) -%}
                {%- do quiet.append([topic, quarantine, node]) -%}
            {%- else -%}
                {%- do included.append([topic, quarantine]) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor %}
    {%- for topic, quarantine in _cdc_quarantine_not_current(quiet) -%}
        {%- do included.append([topic, quarantine]) -%}
    {%- endfor %}
    {%- if not included -%}
        {%- do cdc_reads_nothing() -%}
    {%- endif %}
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
        {#- one aggregation over the union of the included views' rows (one
            shuffle, whatever the number of topics; an aggregation per view
            was one per topic: 31 s of a 55-topic build, issue 54) #}
        select
            quarantined.topic,
            quarantined.reason,
            count(*) as records,
            min(quarantined.landed_at) as oldest_landed_at,
            max(quarantined.landed_at) as newest_landed_at,
            {%- for column in [
                'kafka_partition', 'kafka_offset', 'landing_file', 'landing_line'
            ] %}
            max_by(
                quarantined.{{ column }},
                struct(quarantined.landing_batch, quarantined.landing_file, quarantined.landing_line)
            ) as example_{{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            {%- for topic, model in included %}
            select
                {{ cdc_string(topic) }} as topic,
                view_rows._quarantine_reason as reason,
                view_rows._landed_at as landed_at,
                view_rows._landing_batch as landing_batch,
                view_rows._kafka_partition as kafka_partition,
                view_rows._kafka_offset as kafka_offset,
                view_rows._landing_file as landing_file,
                view_rows._landing_line as landing_line
            from {{ ref(model) }} as view_rows
            {%- if not loop.last %}
            union all
            {%- endif %}
            {%- endfor %}
            {%- if not included %}
            select
                cast(null as string) as topic,
                cast(null as string) as reason,
                cast(null as timestamp) as landed_at,
                cast(null as bigint) as landing_batch,
                cast(null as int) as kafka_partition,
                cast(null as bigint) as kafka_offset,
                cast(null as string) as landing_file,
                cast(null as bigint) as landing_line
            where false
            {%- endif %}
        ) as quarantined
        group by quarantined.topic, quarantined.reason
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

{#- Of `quiet` ([topic, quarantine view, base model node id] of the
    topics whose base model had nothing new in this run), the [topic,
    quarantine view] of those whose counts are not current: the topic has
    counted rows and its base table committed a snapshot after they were
    counted (Iceberg's commit time and `counted_at` are both the Spark
    driver's clock), or it has none and its quarantine view holds a
    record. Two queries: the counted topics, then one probe each. -#}
{% macro _cdc_quarantine_not_current(quiet) -%}
    {%- if not (execute and quiet) -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set counted = {} -%}
    {%- for row in run_query('select topic, cast(max(counted_at) as string) from ' ~ this
        ~ ' group by topic').rows -%}
        {%- do counted.update({row[0]: row[1]}) -%}
    {%- endfor -%}
    {%- set probes = [] -%}
    {%- for topic, quarantine, node in quiet -%}
        {%- set base = graph.nodes[node] -%}
        {%- set table = api.Relation.create(database=base.database, schema=base.schema,
            identifier=base.alias) -%}
        {%- if topic in counted -%}
            {%- do probes.append('select ' ~ loop.index0 ~ ' as probe from (select max(committed_at)'
                ~ ' as committed_at from ' ~ table ~ '.snapshots) as newest where newest.committed_at'
                ~ ' > timestamp ' ~ cdc_string(counted[topic])) -%}
        {%- else -%}
            {%- do probes.append('select * from (select ' ~ loop.index0 ~ ' as probe from '
                ~ ref(quarantine) ~ ' limit 1) as probe_' ~ loop.index0) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set found = run_query(probes | join(' union all ')).columns[0].values() | map('int') | list -%}
    {%- set stale = [] -%}
    {%- for topic, quarantine, node in quiet -%}
        {%- if loop.index0 in found -%}
            {%- do stale.append([topic, quarantine]) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(stale) -}}
{%- endmacro %}
