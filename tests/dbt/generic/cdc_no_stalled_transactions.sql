{#-
    Reports the transactions of a transaction-progress model that are
    `stalled`: not complete `cdc_transaction_wait_minutes` after their first
    record landed (an END that never came, or fewer events than it counts
    in some table's topic). The consistent views stopped waiting for them:
    they show what landed of them. One row per transaction, with what is
    missing per topic. Configured as a warning.
-#}
{% test cdc_no_stalled_transactions(model) %}

with

stalled as (
    select
        progress.transaction_key,
        progress.transaction_id,
        progress.first_landed_at,
        progress.end_offset is null as end_missing,
        map_filter(
            map_from_entries(transform(
                map_entries(coalesce(progress.expected, map())),
                counted -> struct(
                    counted.key,
                    counted.value - coalesce(size(element_at(progress.landed, counted.key)), 0)
                )
            )),
            (topic, missing) -> missing > 0
        ) as missing_events
    from {{ model }} as progress
    where progress.status = 'stalled'
),

final as (
    select * from stalled
)

select * from final

{% endtest %}
