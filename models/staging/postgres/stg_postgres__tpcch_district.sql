{#- Staging of Kafka topic `postgres.tpcch.district` (postgresql connector). -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
with

landed as (
    select * from {{ source('postgres_landing', 'postgres_tpcch_district') }}
),

final as (
    {{ cdc_debezium_changes('landed', 'postgres.tpcch.district') }}
)

select * from final
