{#-
    Returns the select of a topic's base model: one row per landed record of
    `topic` read from `relation` (the raw landing table), each value parsed
    exactly once. On incremental runs only batches landed after the newest
    one already staged are read: the filter is a literal, so Iceberg prunes
    every older data file (see cdc_new_batches_filter).

    One from_json reads the value with or without the JsonConverter's
    {"schema": ..., "payload": ...} wrapper (the schema block is skipped, not
    built). The row image (after for c/r/u, before for d, null for a truncate
    t) comes out as typed columns with logical types decoded, then the CDC
    metadata, the Kafka/landing coordinates and the quarantine verdict:
    `_quarantine_reason` is null for a change event; otherwise it says why
    the record is not one, and `_kafka_value` keeps the value as landed.
    The staging and quarantine models are views over this table.

    Three stages, each reading the one before: `decoded` (the record, its
    value and key parsed, the event unwrapped), `events` (the change event
    in Debezium's shape, the row image, and what only a record the checks
    single out reads), then the columns and the verdict, whose detail is
    keyed by the reason (each check written once). Within a stage, a column
    reads one computed before it by a lateral column alias (issue 71).
-#}
{% macro cdc_debezium_events(relation, topic) %}
    {{- return(adapter.dispatch('cdc_debezium_events', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_debezium_events(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set primary_key = spec.primary_key or [] -%}
    {%- set reason -%}
case
    {{ cdc_indent(_cdc_record_reasons('events', _cdc_version_reasons(spec, 'events'),
        spec.tombstone_deletes), 0) }}
    {%- for column in _cdc_wire_text_columns(spec) %}
    when not {{ _cdc_wire_text_ok('events._row.' ~ cdc_ident(column.name), column) }}
        then 'type_mismatch'
    {%- endfor %}
    when events._event is null then 'null_payload'
    {%- if 'HEARTBEAT_IDENTIFIER' in spec.envelope_fields %}
    when events._event.HEARTBEAT_IDENTIFIER is not null
        and events._event.before is null
        and events._event.after is null
        then 'heartbeat'
    {%- endif %}
    when events._event.op is null then 'not_a_change_event'
    {%- if _cdc_checks_connector(spec) %}
    when events._event.source.connector != '{{ spec.connector }}'
        then 'unknown_connector'
    {%- endif %}
    when events._event.op not in ('c', 'r', 'u', 'd', 't') then 'unsupported_op'
    when events._event.op in ('c', 'r', 'u') and events._event.after is null
        then 'missing_row_image'
    when events._event.op = 'd' and events._event.before is null
        and events.kafka_key is null
        then 'missing_row_image'
    {%- for key in primary_key %}
    when events._event.op != 't'
        and {{ _cdc_key_expr(key, spec, 'events.') }} is null
        then 'missing_primary_key'
    {%- endfor %}
    {%- if spec.key_type %}
    when events.kafka_key is not null and json_object_keys(events.kafka_key) is null
        then 'malformed_key'
    {%- for key in _cdc_row_key_fields(spec) %}
    when events._key.{{ cdc_ident(key) }} != events._row.{{ cdc_ident(key) }} then 'key_mismatch'
    {%- endfor %}
    {%- endif %}
end
    {%- endset -%}
    {%- set detail -%}
case
    {{ cdc_indent(_cdc_record_details('events', '_quarantine_reason',
        _cdc_version_details(spec, 'events', '_quarantine_reason'), spec.tombstone_deletes), 0) }}
    when _quarantine_reason = 'type_mismatch'
        then case
            when events._message._unparsed is not null
                then concat(
                    'the JSON type of ',
                    coalesce(events._cdc_mismatched, 'a field'),
                    ' contradicts the generated schema: run `python -m python_helpers sync`'
                )
            {%- for column in _cdc_wire_text_columns(spec) %}
            when not {{ _cdc_wire_text_ok('events._row.' ~ cdc_ident(column.name), column) }}
                then concat(
                    {{ cdc_string('column ' ~ column.name ~ ' is ' ~ column.connect_type.split(",")[0]) }},
                    ' but holds ', left(events._row.{{ cdc_ident(column.name) }}, 40),
                    {%- if column.decoder == 'number_decimal' %}
                    ', not a number that fits {{ column.type }}',
                    ' (its declaration says decimal_format: numeric)'
                    {%- elif column.decoder == 'decimal' %}
                    ', not the base64 text the JsonConverter writes',
                    ' (a converter with decimal.format=NUMERIC writes numbers:',
                    ' then set `decimal_format: numeric` in topic.yml)'
                    {%- else %}
                    ', not the base64 text the JsonConverter writes'
                    {%- endif %}
                )
            {%- endfor %}
        end
    {%- if _cdc_checks_connector(spec) %}
    when _quarantine_reason = 'unknown_connector'
        then concat(
            'source.connector = ', events._event.source.connector,
            '; the topic holds events of the {{ spec.connector }} connector'
        )
    {%- endif %}
    when _quarantine_reason = 'unsupported_op' then concat('op = ', events._event.op)
    when _quarantine_reason = 'missing_row_image'
        then if(
            events._event.op = 'd',
            'a delete with neither a before image nor a Kafka key: no key to delete',
            concat('op = ', events._event.op, ' without an after image: nothing to apply')
        )
    {%- if spec.key_type %}
    when _quarantine_reason = 'malformed_key' then 'the Kafka key is not a JSON object'
    {%- if _cdc_row_key_fields(spec) %}
    when _quarantine_reason = 'key_mismatch'
        then case
            {%- for key in _cdc_row_key_fields(spec) %}
            when events._key.{{ cdc_ident(key) }} != events._row.{{ cdc_ident(key) }}
                then concat(
                    {{ cdc_string('the Kafka key has ' ~ key ~ ' = ') }}, cast(events._key.{{ cdc_ident(key) }} as string),
                    {{ cdc_string(', the row image ' ~ key ~ ' = ') }}, cast(events._row.{{ cdc_ident(key) }} as string)
                )
            {%- endfor %}
        end
    {%- endif %}
    {%- endif %}
end
    {%- endset -%}
    with

    decoded as (
        {#- each landed record with its value and key parsed once #}
        select
            landed.*,
            {%- if spec.schema_blocks %}
            {{ cdc_indent(_cdc_known_block('landed.kafka_value', spec), 8) }}
                as _cdc_known_block,
            {{ cdc_indent(_cdc_after_known_block('landed.kafka_value', spec, '_cdc_known_block'), 8) }}
                as _cdc_envelope_text,
            {%- endif %}
            {{ cdc_indent(_cdc_parse_value(
                'landed.kafka_value', spec.value_type, spec.tombstone_deletes), 8) }}
                as _message,
            {{ cdc_indent(_cdc_unwrap('_message', spec.parse_fields or spec.envelope_fields), 8) }}
                as _raw_event,
            {{ cdc_indent(_cdc_repeated_envelope_fields(
                'landed.kafka_value', '_cdc_envelope_text' if spec.schema_blocks
            ), 8) }}
                as _cdc_repeated_fields
            {%- if spec.tombstone_deletes %},
            {{ 'prior.source' if is_incremental() else 'null' }} as _cdc_prior_source
            {%- endif %}
            {{- cdc_layout_record_columns(spec, 'landed') }}
            {%- if spec.schema_fingerprints %},
            {{ cdc_indent(cdc_schema_fingerprint(
                'landed.kafka_value', spec, '_cdc_known_block' if spec.schema_blocks), 8) }}
                as _schema_fingerprint
            {%- endif %}
            {%- if spec.key_type %},
            from_json(
                landed.kafka_key, {{ cdc_string(_cdc_wrapper_type(spec.key_type, false)) }}
            ) as _key_message,
            {{ cdc_indent(_cdc_unwrap('_key_message', spec.key_fields), 8) }} as _key
            {%- endif %}
        from {{ cdc_indent(_cdc_landed_records(relation, spec), 4) }} as landed
        {#- a tombstone's source: the newest earlier record of its key,
            from its layout's cdc_prior_source__<envelope> -#}
        {%- if spec.tombstone_deletes and is_incremental() %}
        left join {{ cdc_indent(context['cdc_prior_source__' ~ spec.envelope](spec, relation), 4) }}
            as prior on prior.prior_key = landed.kafka_key
        {%- endif %}
    ),

    events as (
        {#- its change event and row image, and what the verdicts of the
            records the checks single out read #}
        select
            decoded.*,
            {{ cdc_indent(cdc_normalize_envelope(spec, 'decoded._raw_event', 'decoded'), 8) }}
                as _event,
            {%- set row = "if(_event.op = 'd', _event.before, _event.after)" %}
            {#- a column renamed for Spark (column_names): the row is cast to the
                Spark names, by position (the names alone would be ambiguous) #}
            {{ ('cast(' ~ row ~ ' as ' ~ spec.row_type ~ ')') if spec.row_type else row }}
                as _row,
            {{ cdc_indent(_cdc_json_depth_column('decoded._message', 'decoded.kafka_value'), 8) }},
            {{ cdc_indent(_cdc_value_check_columns(spec, 'decoded'), 8) }}
        from decoded
    )

    select
        -- row image
        {%- for column in spec.columns %}
        {%- set raw = _cdc_key_expr(column.name, spec, 'events.') if column.name in primary_key
            else 'events._row.' ~ cdc_ident(column.name) %}
        {%- if column.version_scales %}
        {#- versions of the schema disagree on this decimal's scale: each
            event is decoded with its own version's scale -#}
        if({{ _cdc_is_base64(raw) }}, case events._schema_fingerprint
            {%- for fingerprint, scale in column.version_scales.items() %}
            when '{{ fingerprint }}'
                then {{ _cdc_decimal_from_base64(raw, column.type, scale) }}
            {%- endfor %}
            else {{ cdc_decode_column(raw, column) }}
        end, null) as {{ cdc_ident(column.name) }},
        {%- elif column.decoder in ('decimal', 'base64', 'number_decimal') %}
        if({{ _cdc_wire_text_ok(raw, column) }}, {{ cdc_decode_column(raw, column) }}, null)
            as {{ cdc_ident(column.name) }},
        {%- else %}
        {{ cdc_decode_column(raw, column) }} as {{ cdc_ident(column.name) }},
        {%- endif %}
        {%- endfor %}
        {%- set variable = spec.columns | selectattr('decoder', 'equalto', 'variable_decimal') | list %}
        {%- if variable %}
        {#- the variable-scale decimals this record's value does not hold
            exactly (rounded past 18 fraction digits, or null: more than 20
            integer digits): visible per record, never a silent loss -#}
        nullif(filter(array(
            {%- for column in variable %}
            if({{ _cdc_variable_decimal_exact('events._row.' ~ cdc_ident(column.name), column) }},
                null, {{ cdc_string(column.name) }}){{ "," if not loop.last }}
            {%- endfor %}
        ), x -> x is not null), array()) as _cdc_inexact_columns,
        {%- endif %}
        {{ cdc_indent(_cdc_change_metadata_columns(spec, 'events'), 4) }},
        {{ cdc_indent(_cdc_landing_columns('events', 'events._cdc_landed_micros', [reason, detail]), 4) }}
    from events
{%- endmacro %}
