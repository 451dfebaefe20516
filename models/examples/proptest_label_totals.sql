{#- A downstream incremental model that reads only a change feed: live
    items and their total qty per label of `proptest.public.items`, kept
    current by adding each run's changes (a new row's values count in, an
    old row's count out) to the stored totals, without reading the state
    table. A null label counts under ''; a null qty as 0. The property
    tests compare it with totals over the reference model's state. A
    sample: `init` does not copy models/examples. -#}
{{ config(
    materialized='incremental',
    schema='cdc_examples',
    incremental_strategy='merge',
    file_format=var('cdc_table_format', 'iceberg'),
    unique_key='item_label'
) }}

with

changes as (
    select feed.* from {{ ref('postgres__proptest_public_items__changes') }} as feed
    {%- if is_incremental() %}
        where feed._cdc_run_started_at > (select max(totals.read_until) from {{ this }} as totals)
    {%- endif %}
),

deltas as (
    select
        coalesce(changes.label, '') as item_label,
        1 as item_count,
        coalesce(changes.qty, 0) as total_qty
    from changes
    where changes._cdc_change in ('insert', 'update')
    union all
    select
        coalesce(changes._cdc_previous_label, '') as item_label,
        -1 as item_count,
        -coalesce(changes._cdc_previous_qty, 0) as total_qty
    from changes
    where changes._cdc_change in ('update', 'delete')
),

summed as (
    select
        deltas.item_label,
        sum(deltas.item_count) as item_count,
        sum(deltas.total_qty) as total_qty
    from deltas
    group by deltas.item_label
),

stored as (
    select
        kept.item_label,
        kept.item_count,
        kept.total_qty
    from {{ this if is_incremental() else 'summed' }} as kept
    where {{ is_incremental() }}
),

newest_read as (
    select max(changes._cdc_run_started_at) as read_until
    from changes
),

final as (
    select
        summed.item_label,
        newest_read.read_until,
        summed.item_count + coalesce(stored.item_count, 0) as item_count,
        summed.total_qty + coalesce(stored.total_qty, 0) as total_qty
    from summed
    cross join newest_read
    left join stored
        on summed.item_label = stored.item_label
)

select * from final
