{#- ExtractNewRecordState rows (python_helpers/connectors/flattened.py) read
    as the Debezium envelope the relational models stage: the row is
    `after`, or `before` for a delete (a row with `__deleted` = 'true' or
    `__op` = 'd', or a tombstone in any form it reaches Kafka,
    cdc_flattened_deleted_value: its key comes from the Kafka key); `op`
    is the kept `__op`, else 'd' for a delete and 'u' (a row's state after
    some change) otherwise; `source` holds the metadata the SMT kept, read
    from the value's fields, else from the record's headers (`add.headers`:
    the same names). A tombstone carries no metadata: its `source` is that
    of the newest earlier record of its key, in its batch (`record` ordered
    by partition and offset) or else in the base model's earlier batches
    (`record._cdc_prior_source`, cdc_prior_source__flattened), so it sorts
    right after that record and before any later one. -#}
{#- The record's headers as a map, computed once per record beside its
    parsed value (cdc_layout_record_columns): up to ~25 metadata lookups of
    cdc_normalize__flattened read it. -#}
{% macro cdc_record_columns__flattened(record) -%}
    , {{ cdc_header_map(record ~ '.kafka_headers') }} as _cdc_header_map
{%- endmacro %}

{% macro cdc_normalize__flattened(spec, event, record) -%}
    {%- set headers = record ~ '._cdc_header_map' -%}
    {%- set tombstone = cdc_flattened_deleted_value(record ~ '.kafka_value', record ~ '._message') -%}
    {%- set deleted -%}
        ({{ tombstone }}
            or coalesce(lower({{ _cdc_flat_meta(event, headers, ['deleted']) }}) = 'true', false)
            or coalesce({{ _cdc_flat_meta(event, headers, ['op']) }} = 'd', false))
    {%- endset -%}
    {%- set row -%}
        named_struct(
            {%- for column in spec.columns %}
            {{ cdc_string(column.source_name or column.name) }},
            {{ event }}.{{ cdc_ident(column.source_name or column.name) }}{{ "," if not loop.last }}
            {%- endfor %}
        )
    {%- endset -%}
    {%- set kept = _cdc_flat_source(spec, event, headers) -%}
    if({{ event }} is null and not {{ tombstone }}, null, named_struct(
        'before', if({{ deleted }} and not {{ tombstone }}, {{ row }}, null),
        'after', if({{ deleted }}, null, {{ row }}),
        'source', if({{ tombstone }}, coalesce(
            last_value(if({{ tombstone }}, null, {{ kept }}), true) over (
                partition by {{ record }}.kafka_key
                order by {{ record }}.kafka_partition, {{ record }}.kafka_offset
                rows between unbounded preceding and 1 preceding
            ),
            {{ record }}._cdc_prior_source
        ), {{ kept }}),
        'op', if({{ deleted }}, 'd', coalesce({{ _cdc_flat_meta(event, headers, ['op']) }}, 'u')),
        'ts_ms', {{ _cdc_flat_meta(event, headers, ['ts_ms']) }}
    ))
{%- endmacro %}

{#- The kept metadata of one record as the envelope's source struct (every
    field of the flattened connector's source, null where not kept; a
    snapshot read kept only as `__op` = 'r' counts as a snapshot). -#}
{% macro _cdc_flat_source(spec, event, headers) -%}
    named_struct(
        {%- for name, kind in spec.source_types.items() %}
        {%- set names = ['source_' ~ name] if name in ('ts_ms',) else [name, 'source_' ~ name] %}
        {{ cdc_string(name) }},
        {%- if name == 'snapshot' %}
        coalesce({{ _cdc_flat_meta(event, headers, names) }},
            if({{ _cdc_flat_meta(event, headers, ['op']) }} = 'r', 'true', null))
        {%- else %}
        cast({{ _cdc_flat_meta(event, headers, names) }} as {{ kind }})
        {%- endif %}{{ "," if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}

{#- The first of the metadata `names` (without the SMT's `__` prefix) the
    record kept: as a field of its value, else as a header. Text. -#}
{% macro _cdc_flat_meta(event, headers, names) -%}
    coalesce(
        {%- for name in names %}
        {{ event }}.{{ cdc_ident('__' ~ name) }},
        {%- endfor %}
        {%- for name in names %}
        try_element_at({{ headers }}, {{ cdc_string('__' ~ name) }}){{ "," if not loop.last }}
        {%- endfor %}
    )
{%- endmacro %}

{#- The flattened connector's part of cdc_source_position: whichever source
    position its connector has and the SMT kept — PostgreSQL's lsn, MySQL's
    binlog file number, pos and row, SQL Server's commit_lsn, change_lsn and
    event_serial_no — the others -1 (one connector writes a topic, so they
    are -1 on every record alike). None kept: the Kafka offset alone orders
    (docs/guarantees.md says what can then go wrong). -#}
{% macro cdc_position__flattened(fields, source) -%}
    {%- set parts = [source ~ '.lsn'] -%}
    {%- do parts.extend(cdc_position__mysql(fields, source)) -%}
    {%- do parts.extend(cdc_position__sqlserver(fields, source)) -%}
    {{- return(parts) -}}
{%- endmacro %}

{#- Whether a landed value is a delete of its key with no row: what the
    SMT's tombstone becomes on the way to Kafka. A Kafka null value (no
    bytes); the JSON text `null`, and `{"schema": ..., "payload": null}`:
    Debezium's delete keeps the value's schema with a null value, and
    Kafka's JsonConverter writes null bytes only when both are null, so with
    `schemas.enable` off it writes `null` and with it on the wrapper with a
    null payload. `message`: the value already parsed (from_json of the
    wrapper type), else the wrapper is looked for in the text. -#}
{% macro cdc_flattened_deleted_value(value, message=none) -%}
    ({{ value }} is null or trim({{ value }}) = 'null'
        or (
        {%- if message %}
            {{ message }}.`schema` is not null and {{ message }}.payload is null
        {%- else %}
            get_json_object({{ value }}, '$.schema') is not null
            and get_json_object({{ value }}, '$.payload') is null
        {%- endif %}
            and array_contains(json_object_keys({{ value }}), 'payload')))
{%- endmacro %}

{#- The newest record of each key a batch's tombstones name, in the base
    model's earlier batches: its source struct (`source`), by the landed
    Kafka key (`prior_key`). Only on an incremental run of a topic whose
    tombstones are deletes; reads the base model's key, offset and source
    columns of those keys only. -#}
{% macro cdc_prior_source__flattened(spec, relation) -%}
    (
        select
            prior._kafka_key as prior_key,
            max_by(named_struct(
                {%- for name in spec.source_types %}
                {{ cdc_string(name) }}, prior.{{ cdc_source_column_name(name) }}{{ "," if not loop.last }}
                {%- endfor %}
            ), prior._kafka_offset) as source
        from {{ this }} as prior
        where prior._quarantine_reason is null
            and prior._kafka_key in (
                select landed.kafka_key from {{ relation }} as landed
                where {{ cdc_new_batches_filter('landed.landing_batch') }}
                    and {{ cdc_flattened_deleted_value('landed.kafka_value') }}
            )
        group by prior._kafka_key
    )
{%- endmacro %}
