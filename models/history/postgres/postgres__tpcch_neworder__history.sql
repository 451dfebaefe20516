{#- History of Kafka topic -#}
{#- `postgres.tpcch.neworder` (SCD type 2): -#}
{#- one row per version of each no_o_id, no_d_id, no_w_id. -#}
{#- Scaffolded by `python -m python_helpers sync` (history: true); edit freely. -#}
{{ config(unique_key=['no_o_id', 'no_d_id', 'no_w_id', 'valid_from_position']) }}

with

changes as (
    select * from {{ ref('stg_postgres__tpcch_neworder') }}
),

final as (
    {{ cdc_history('changes', ['no_o_id', 'no_d_id', 'no_w_id']) }}
)

select * from final
