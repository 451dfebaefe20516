{#- Transactions of Kafka topic -#}
{#- `bank1.transaction`: one row per transaction, -#}
{#- to join with the change events' _cdc_transaction_id (transaction_key). -#}
{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}
{{ config(
    materialized='cdc_incremental',
    unique_key='transaction_key',
    merge_matched_condition='true',
    merge_delete_condition='false',
    merge_insert_condition='true'
) }}

with

events as (
    select * from {{ ref('stg_debezium__bank1_transaction') }}
),

final as (
    {{ cdc_transactions('events', 'id') }}
)

select * from final
