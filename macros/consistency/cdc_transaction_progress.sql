{#-
    Returns the select of a transaction-progress model: one row per
    transaction of a connector, with what has landed of it. `transactions`
    is the staged BEGIN/END events of its `<prefix>.transaction` topic;
    `members` maps each change-event topic of the connector in the project
    to its staging relation; `match` says how one transaction's records are
    matched (cdc_transaction_key).

    A transaction is `complete` once its END has landed and, for every
    table of the project the END counts (`data_collections`, named
    `<prefix>.<data_collection>` as topics), that many distinct
    `total_order` values have landed in its topic (a re-sent event counts
    once); with no per-table counts, the END's `event_count` over all
    members. It is `stalled` when not complete `cdc_transaction_wait_minutes`
    (var, default 60) after its first record landed, as of the run: the
    consistent views then stop waiting for it (and its test reports it),
    else `open`. Debezium writes an END only when the next transaction
    begins, so a quiet source keeps its last transaction open: a run with
    nothing new changes nothing.

    Incremental runs read the batches landed since the last one — of the
    member topics the landing manifest shows a newer batch for (`raw_tables`:
    each member's raw table), so a run that changed one table of 500 reads
    one — and the stored rows of the transactions they touch or that are
    not complete.
-#}
{% macro cdc_transaction_progress(transactions, members, prefix, match, raw_tables) %}
    {{- return(adapter.dispatch('cdc_transaction_progress', 'cdc')(
        transactions, members, prefix, match, raw_tables)) -}}
{% endmacro %}

{% macro default__cdc_transaction_progress(transactions, members, prefix, match, raw_tables) -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set grown = _cdc_grown_members(members, raw_tables, watermark) -%}
    {%- set wait = var('cdc_transaction_wait_minutes', 60) | int -%}
    {%- set topics = members.keys() | map('lower') | list -%}
    {%- set collection -%}
        lower(concat('{{ prefix }}.', collections.data_collection))
    {%- endset %}
    with

    boundaries as (
        select
            {{ cdc_transaction_key('events.transaction_id', match) }} as transaction_key,
            events.transaction_id,
            if(events.status = 'BEGIN', events._kafka_offset, null) as begin_offset,
            if(events.status = 'END', events._kafka_offset, null) as end_offset,
            if(events.status = 'BEGIN', events.event_at, null) as begun_at,
            if(events.status = 'END', events.event_at, null) as ended_at,
            events.event_count,
            if(events.status = 'END' and events.data_collections is not null,
                map_from_entries(transform(
                    filter(events.data_collections, collections ->
                        {{ collection }} in ('{{ topics | join("', '") }}')),
                    collections -> struct({{ collection }}, collections.event_count)
                )),
                null) as expected,
            events._landing_batch
        from {{ transactions }} as events
        where
            events.status in ('BEGIN', 'END')
            and {{ cdc_new_batches_filter('events._landing_batch', watermark) }}
    ),

    changes as (
        {%- for topic, relation in grown.items() %}
        select
            {{ cdc_transaction_key('events._cdc_transaction_id', match) }} as transaction_key,
            '{{ topic | lower }}' as topic,
            events._cdc_transaction_total_order as total_order,
            events._landing_batch
        from {{ relation }} as events
        where
            events._cdc_transaction_id is not null
            and {{ cdc_new_batches_filter('events._landing_batch', watermark) }}
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
        {%- if not grown %}
        select
            cast(null as string) as transaction_key,
            cast(null as string) as topic,
            cast(null as bigint) as total_order,
            cast(null as bigint) as _landing_batch
        where false
        {%- endif %}
    ),

    facts as (
        select
            boundaries.transaction_key,
            boundaries.transaction_id,
            boundaries.begin_offset,
            boundaries.end_offset,
            boundaries.begun_at,
            boundaries.ended_at,
            boundaries.event_count,
            boundaries.expected,
            cast(null as string) as topic,
            cast(null as array<bigint>) as orders,
            boundaries._landing_batch as first_batch,
            boundaries._landing_batch
        from boundaries
        union all
        select
            changes.transaction_key,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            changes.topic,
            array(changes.total_order),
            changes._landing_batch,
            changes._landing_batch
        from changes
        {%- if watermark is not none %}
        union all
        select
            stored.transaction_key,
            stored.transaction_id,
            stored.order_offset,
            stored.end_offset,
            stored.begun_at,
            stored.ended_at,
            stored.event_count,
            stored.expected,
            landed.topic,
            landed.orders,
            stored.first_batch,
            stored._landing_batch
        from {{ this }} as stored
        lateral view outer explode(stored.landed) landed as topic, orders
        where
            stored.status != 'complete'
            or stored.transaction_key in (select boundaries.transaction_key from boundaries)
            or stored.transaction_key in (select changes.transaction_key from changes)
        {%- endif %}
    ),

    per_topic as (
        select
            facts.transaction_key,
            facts.topic,
            array_distinct(flatten(collect_list(facts.orders))) as orders,
            max_by(facts.transaction_id, facts.end_offset is not null) as transaction_id,
            min(facts.begin_offset) as begin_offset,
            min(facts.end_offset) as end_offset,
            min(facts.begun_at) as begun_at,
            max(facts.ended_at) as ended_at,
            max(facts.event_count) as event_count,
            max_by(facts.expected, facts.expected is not null) as expected,
            min(facts.first_batch) as first_batch,
            max(facts._landing_batch) as _landing_batch
        from facts
        group by facts.transaction_key, facts.topic
    ),

    transactions as (
        select
            per_topic.transaction_key,
            max_by(per_topic.transaction_id, per_topic.transaction_id is not null)
                as transaction_id,
            coalesce(min(per_topic.begin_offset), min(per_topic.end_offset)) as order_offset,
            min(per_topic.end_offset) as end_offset,
            min(per_topic.begun_at) as begun_at,
            max(per_topic.ended_at) as ended_at,
            max(per_topic.event_count) as event_count,
            max_by(per_topic.expected, per_topic.expected is not null) as expected,
            map_from_entries(collect_list(
                if(per_topic.topic is null, null, struct(per_topic.topic, per_topic.orders))
            )) as landed,
            min(per_topic.first_batch) as first_batch,
            max(per_topic._landing_batch) as _landing_batch
        from per_topic
        group by per_topic.transaction_key
    ),

    judged as (
        select
            transactions.*,
            transactions.end_offset is not null and if(
                transactions.expected is not null,
                forall(map_entries(transactions.expected), counted ->
                    coalesce(size(element_at(transactions.landed, counted.key)), 0)
                    >= counted.value),
                aggregate(map_values(transactions.landed), 0,
                    (total, orders) -> total + size(orders))
                >= coalesce(transactions.event_count, 0)
            ) as is_complete
        from transactions
    )

    select
        judged.transaction_key,
        judged.transaction_id,
        case
            when judged.is_complete then 'complete'
            when timestamp_micros(judged.first_batch)
                < {{ cdc_staged_at() }} - make_dt_interval(0, 0, {{ wait }}, 0)
                then 'stalled'
            else 'open'
        end as status,
        judged.order_offset,
        judged.end_offset,
        judged.begun_at,
        judged.ended_at,
        judged.event_count,
        judged.expected,
        judged.landed,
        judged.first_batch,
        timestamp_micros(judged.first_batch) as first_landed_at,
        timestamp_micros(judged._landing_batch) as last_landed_at,
        judged._landing_batch
    from judged
{%- endmacro %}

{#- Of `members`, those whose raw table (`raw_tables`) has a batch newer
    than `watermark` in the landing manifest (all of them on a first build,
    and in a run that does not send the select: cdc_select_is_sent). -#}
{% macro _cdc_grown_members(members, raw_tables, watermark) -%}
    {%- if watermark is none or not execute or not cdc_select_is_sent() -%}
        {{- return(members) -}}
    {%- endif -%}
    {%- set manifest = var('cdc_landing_schema', 'cdc_landing') ~ '._landing_manifest' -%}
    {%- set found = run_query(
        'select distinct raw_table from ' ~ manifest ~ ' where landing_batch > ' ~ watermark
    ).columns[0].values() -%}
    {%- set grown = {} -%}
    {%- for topic, relation in members.items() -%}
        {%- if raw_tables[topic] in found -%}
            {%- do grown.update({topic: relation}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(grown) -}}
{%- endmacro %}

{#- The expression matching one transaction's records, from the id column
    `expr`: for match `before_colon` (PostgreSQL's `txId:LSN`) the part
    before the first ':', else the id itself. -#}
{% macro cdc_transaction_key(expr, match) -%}
    {%- if match == 'before_colon' -%}
        substring_index({{ expr }}, ':', 1)
    {%- else -%}
        {{ expr }}
    {%- endif -%}
{%- endmacro %}
