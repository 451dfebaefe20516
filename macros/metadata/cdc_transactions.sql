{#-
    Returns the select of a transactions model: one row per transaction of
    the transaction metadata topic whose staged BEGIN/END events are
    `relation`, for analysts to join with the change events'
    `_cdc_transaction_id` through `transaction_key`. BEGIN gives begun_at,
    END gives ended_at, event_count and data_collections (events per
    table); status is `committed` once the END is seen, else `open`
    (Debezium sends END only when the next transaction starts).

    `match` (cdc_transaction_key) says what identifies one transaction: the
    PostgreSQL connector's ids are `txId:LSN` with the LSN of each record,
    so its BEGIN and END differ after the colon (`before_colon`: one row
    per txId); `id` or none: the id as written (a model scaffolded before
    the argument existed keeps its grain, one row per id). transaction_id
    is the BEGIN's id (the END's while the BEGIN has not landed).

    On incremental runs only new batches are read, combined with the
    stored rows of the transactions they touch, and merged on the model's
    unique_key (transaction_key; transaction_id in older scaffolds, the
    same grain when `match` is none).
-#}
{% macro cdc_transactions(relation, match=none) %}
    {{- return(adapter.dispatch('cdc_transactions', 'cdc')(relation, match)) -}}
{% endmacro %}

{% macro default__cdc_transactions(relation, match=none) -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    select
        boundaries.transaction_key,
        max_by(boundaries.transaction_id, boundaries.begun_at is not null) as transaction_id,
        if(max(boundaries.ended_at) is null, 'open', 'committed') as status,
        min(boundaries.begun_at) as begun_at,
        max(boundaries.ended_at) as ended_at,
        max(boundaries.event_count) as event_count,
        max_by(boundaries.data_collections, boundaries.data_collections is not null)
            as data_collections,
        max(boundaries._landing_batch) as _landing_batch
    from (
        select
            {{ cdc_transaction_key('events.transaction_id', match) }} as transaction_key,
            events.transaction_id,
            if(events.status = 'BEGIN', events.event_at, null) as begun_at,
            if(events.status = 'END', events.event_at, null) as ended_at,
            events.event_count,
            events.data_collections,
            events._landing_batch
        from {{ relation }} as events
        where {{ cdc_new_batches_filter('events._landing_batch', watermark) }}
        {%- if watermark is not none %}
        union all
        select
            {{ cdc_transaction_key('stored.transaction_id', match) }} as transaction_key,
            stored.transaction_id,
            stored.begun_at,
            stored.ended_at,
            stored.event_count,
            stored.data_collections,
            stored._landing_batch
        from {{ this }} as stored
        where {{ cdc_transaction_key('stored.transaction_id', match) }} in (
            select {{ cdc_transaction_key('new_events.transaction_id', match) }}
            from {{ relation }} as new_events
            where {{ cdc_new_batches_filter('new_events._landing_batch', watermark) }}
        )
        {%- endif %}
    ) as boundaries
    group by boundaries.transaction_key
{%- endmacro %}
