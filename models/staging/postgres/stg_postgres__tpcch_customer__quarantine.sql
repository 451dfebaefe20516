{#- Landed records of topic `postgres.tpcch.customer` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_customer') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'postgres.tpcch.customer') }}
)

select * from final
