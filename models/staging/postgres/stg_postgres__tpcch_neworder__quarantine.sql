{#- Landed records of topic `postgres.tpcch.neworder` that are not change events. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_neworder') }}
),

final as (
    {{ cdc_debezium_rejects('landed', 'postgres.tpcch.neworder') }}
)

select * from final
