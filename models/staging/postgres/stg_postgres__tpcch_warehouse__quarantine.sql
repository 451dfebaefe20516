{#- Landed records of topic `postgres.tpcch.warehouse` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_warehouse') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'postgres.tpcch.warehouse') }}
)

select * from final
