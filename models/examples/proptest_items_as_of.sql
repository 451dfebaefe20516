{#- The state of `proptest.public.items` as of five points of its source
    log (the LSNs of its history's versions at the 10th, 30th, 50th, 70th
    and 90th percentiles of their order): the condition of cdc_as_of joined
    with a table of points. The property tests compare each point's rows
    with the reference model's replay of the events up to it. A sample:
    `init` does not copy models/examples. -#}
{{ config(
    materialized='table',
    schema='cdc_examples',
    file_format=var('cdc_table_format', 'iceberg')
) }}

with

versions as (
    select * from {{ ref('postgres__proptest_public_items__history') }}
),

opened as (
    select sort_array(collect_set(versions.valid_from_position[0])) as lsns
    from versions
),

fractions as (
    select explode(array(0.1, 0.3, 0.5, 0.7, 0.9)) as fraction
),

points as (
    select
        element_at(
            opened.lsns, cast(size(opened.lsns) * fractions.fraction as int) + 1
        ) as as_of_lsn
    from opened
    cross join fractions
    where size(opened.lsns) > 0
)

select
    points.as_of_lsn,
    versions.id,
    versions.label,
    versions.qty,
    versions.valid_from_position,
    versions.opened_by_op
from versions
inner join points
    on {{ cdc_valid_at('versions', position='array(points.as_of_lsn)') }}
