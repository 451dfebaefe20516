{#- Base of Kafka topic `shop.public.orders` (postgresql connector): -#}
{#- every landed record, its value parsed once, appended batch by batch. -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{#- This sample topic's values are about 4 kB: a value over 8 kB is
    quarantined as oversized_value (the project default is 16 MiB). -#}
{{ config(cdc_max_value_bytes=8192) }}
with

landed as (
    select * from {{ source('postgres_landing', 'shop_public_orders') }}
),

final as (
    {{ cdc_debezium_events('landed', 'shop.public.orders') }}
)

select * from final
