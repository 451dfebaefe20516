{#- Landed records of topic `postgres.tpcch.district` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_district') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'postgres.tpcch.district') }}
)

select * from final
