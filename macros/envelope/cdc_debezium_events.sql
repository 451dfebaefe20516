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
-#}
{% macro cdc_debezium_events(relation, topic) %}
    {{- return(adapter.dispatch('cdc_debezium_events', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_debezium_events(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set primary_key = spec.primary_key or [] -%}
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
        {{ _cdc_change_metadata_columns(spec, 'events') | indent(4) }},
        {{ _cdc_landing_columns('events', 'events._cdc_landed_micros') | indent(4) }}
    from (
        select
            rowed.*,
            case
                {{ _cdc_record_reasons('rowed', _cdc_version_reasons(spec, 'rowed'))
                    | indent(12) }}
                {%- for column in _cdc_wire_text_columns(spec) %}
                when not {{ _cdc_wire_text_ok('rowed._row.' ~ cdc_ident(column.name), column) }}
                    then 'type_mismatch'
                {%- endfor %}
                when rowed._event is null then 'null_payload'
                {%- if 'HEARTBEAT_IDENTIFIER' in spec.envelope_fields %}
                when rowed._event.HEARTBEAT_IDENTIFIER is not null
                    and rowed._event.before is null
                    and rowed._event.after is null
                    then 'heartbeat'
                {%- endif %}
                when rowed._event.op is null then 'not_a_change_event'
                {%- if _cdc_checks_connector(spec) %}
                when rowed._event.source.connector != '{{ spec.connector }}'
                    then 'unknown_connector'
                {%- endif %}
                when rowed._event.op not in ('c', 'r', 'u', 'd', 't') then 'unsupported_op'
                when rowed._event.op in ('c', 'r', 'u') and rowed._event.after is null
                    then 'missing_row_image'
                when rowed._event.op = 'd' and rowed._event.before is null
                    and rowed.kafka_key is null
                    then 'missing_row_image'
                {%- for key in primary_key %}
                when rowed._event.op != 't'
                    and {{ _cdc_key_expr(key, spec, 'rowed.') }} is null
                    then 'missing_primary_key'
                {%- endfor %}
                {%- if spec.key_type %}
                when rowed.kafka_key is not null and json_object_keys(rowed.kafka_key) is null
                    then 'malformed_key'
                {%- for key in _cdc_row_key_fields(spec) %}
                when rowed._key.{{ cdc_ident(key) }} != rowed._row.{{ cdc_ident(key) }} then 'key_mismatch'
                {%- endfor %}
                {%- endif %}
            end as _quarantine_reason,
            case
                {{ _cdc_record_details('rowed', _cdc_version_details(spec, 'rowed'))
                    | indent(16) }}
                when rowed._message._unparsed is not null
                    and json_object_keys(rowed.kafka_value) is not null
                    then concat(
                        'the JSON type of ',
                        coalesce(
                            nullif({{ _cdc_mismatched_columns('rowed.kafka_value', spec) }}, ''),
                            'a field'
                        ),
                        ' contradicts the generated schema: run `python -m python_helpers sync`'
                    )
                {%- for column in _cdc_wire_text_columns(spec) %}
                when not {{ _cdc_wire_text_ok('rowed._row.' ~ cdc_ident(column.name), column) }}
                    then concat(
                        {{ cdc_string('column ' ~ column.name ~ ' is ' ~ column.connect_type.split(",")[0]) }},
                        ' but holds ', left(rowed._row.{{ cdc_ident(column.name) }}, 40),
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
                {%- if _cdc_checks_connector(spec) %}
                when rowed._event.source.connector != '{{ spec.connector }}'
                    then concat(
                        'source.connector = ', rowed._event.source.connector,
                        '; the topic holds events of the {{ spec.connector }} connector'
                    )
                {%- endif %}
                when rowed._event.op not in ('c', 'r', 'u', 'd', 't')
                    then concat('op = ', rowed._event.op)
                when rowed._event.op in ('c', 'r', 'u') and rowed._event.after is null
                    then concat('op = ', rowed._event.op, ' without an after image: nothing to apply')
                when rowed._event.op = 'd' and rowed._event.before is null
                    and rowed.kafka_key is null
                    then 'a delete with neither a before image nor a Kafka key: no key to delete'
                {%- if spec.key_type %}
                when rowed.kafka_key is not null and json_object_keys(rowed.kafka_key) is null
                    then 'the Kafka key is not a JSON object'
                {%- for key in _cdc_row_key_fields(spec) %}
                when rowed._key.{{ cdc_ident(key) }} != rowed._row.{{ cdc_ident(key) }}
                    then concat(
                        {{ cdc_string('the Kafka key has ' ~ key ~ ' = ') }}, cast(rowed._key.{{ cdc_ident(key) }} as string),
                        {{ cdc_string(', the row image ' ~ key ~ ' = ') }}, cast(rowed._row.{{ cdc_ident(key) }} as string)
                    )
                {%- endfor %}
                {%- endif %}
            end as _quarantine_detail
        from (
            select
                normalized.*,
                {%- set row = "if(normalized._event.op = 'd', normalized._event.before,"
                    ~ " normalized._event.after)" %}
                {#- a column renamed for Spark (column_names): the row is cast to the
                    Spark names, by position (the names alone would be ambiguous) -#}
                {{ ('cast(' ~ row ~ ' as ' ~ spec.row_type ~ ')') if spec.row_type else row }}
                    as _row
            from (
                select
                    unwrapped.*,
                    {{ cdc_normalize_envelope(spec, 'unwrapped._raw_event') }} as _event
                from (
                    select
                        parsed.*,
                        {{ _cdc_unwrap(
                            'parsed._message', spec.parse_fields or spec.envelope_fields) }}
                            as _raw_event
                        {%- if spec.key_type %},
                        {{ _cdc_unwrap('parsed._key_message', spec.key_fields) }} as _key
                        {%- endif %}
                    from (
                        select
                            landed.*,
                            {{ _cdc_parse_value('landed.kafka_value', spec.value_type)
                                | indent(24) }} as _message
                            {%- if spec.schema_fingerprints %},
                            {{ cdc_schema_fingerprint('landed.kafka_value') }} as _schema_fingerprint
                            {%- endif %}
                            {%- if spec.key_type %},
                            from_json(
                                landed.kafka_key, {{ cdc_string(_cdc_wrapper_type(spec.key_type, false)) }}
                            ) as _key_message
                            {%- endif %}
                        from {{ _cdc_landed_records(relation, spec) }} as landed
                    ) as parsed
                ) as unwrapped
            ) as normalized
        ) as rowed
    ) as events
{%- endmacro %}

{#- The `when` branches judging a record by its own schema version (see
    python_helpers/schema/schema_evolution.py), before its parse against the
    table's schema is looked at: a version sync has not seen
    (schema_not_covered: replayed once it has, see _cdc_landed_records),
    an unreadable block (invalid_schema_block),
    a row image that contradicts the types its own block declares
    (schema_contradiction), a version that changes a column's type in a way
    the table cannot take in place (incompatible_schema_change, under the
    topic's default schema_changes policy). -#}
{% macro _cdc_version_reasons(spec, record) -%}
    {%- set fingerprint = record ~ '._schema_fingerprint' -%}
    {%- if spec.schema_fingerprints %}
    when {{ _cdc_not_covered(fingerprint, spec) }} then 'schema_not_covered'
    {%- endif %}
    {%- if spec.invalid_versions %}
    when {{ fingerprint }} in ('{{ spec.invalid_versions | join("', '") }}')
        then 'invalid_schema_block'
    {%- endif %}
    {%- for version, columns in _cdc_version_checks(spec).items() %}
    when {{ fingerprint }} = '{{ version }}'
        and {{ _cdc_contradicted(spec, record ~ '.kafka_value', columns) }} is not null
        then 'schema_contradiction'
    {%- endfor %}
    {%- if spec.incompatible_versions %}
    when {{ fingerprint }} in ('{{ spec.incompatible_versions | join("', '") }}')
        then 'incompatible_schema_change'
    {%- endif %}
{%- endmacro %}

{#- The details of _cdc_version_reasons, in the same order. -#}
{% macro _cdc_version_details(spec, record) -%}
    {%- set fingerprint = record ~ '._schema_fingerprint' -%}
    {%- if spec.schema_fingerprints %}
    when {{ _cdc_not_covered(fingerprint, spec) }}
        then concat(
            'the value schema block (md5 ', {{ fingerprint }},
            ') is not one `python -m python_helpers sync` has seen: the next run',
            ' (`make run`, or sync then dbt build) stages it'
        )
    {%- endif %}
    {%- for version, reason in (spec.invalid_versions or {}).items() %}
    when {{ fingerprint }} = '{{ version }}'
        then 'the schema block (md5 {{ version }}) is not a Kafka Connect schema: {{
            _cdc_sql_text(reason) }}'
    {%- endfor %}
    {%- for version, columns in _cdc_version_checks(spec).items() %}
    when {{ fingerprint }} = '{{ version }}'
        and {{ _cdc_contradicted(spec, record ~ '.kafka_value', columns) }} is not null
        then concat(
            {{ _cdc_contradicted(spec, record ~ '.kafka_value', columns) }},
            ' contradicts the type its own schema block (md5 {{ version }}) declares'
        )
    {%- endfor %}
    {%- for version, columns in (spec.incompatible_versions or {}).items() %}
    when {{ fingerprint }} = '{{ version }}'
        then concat(
            {%- for column in columns %}
            {{ cdc_string('column ' ~ column.column ~ ': the table has ' ~ column.table_type ~ ',') }},
            {{ cdc_string(' this schema version (md5 ' ~ version ~ ') declares ' ~ column.version_type ~ '; ') }},
            {%- endfor %}
            'kept out of the table. To take it: schema_changes: widen in topic.yml, sync,',
            ' then dbt build --full-refresh --select {{ this.identifier }}+'
        )
    {%- endfor %}
{%- endmacro %}

{#- Per version with checkable columns, the row columns whose type its own
    block declares differently from the table's (a record of the version is
    parsed again with those types): {fingerprint: {column: raw type}}. -#}
{% macro _cdc_version_checks(spec) -%}
    {%- set table_types = {} -%}
    {%- for column in spec.columns -%}
        {%- do table_types.update({column.source_name or column.name: column.raw_type}) -%}
    {%- endfor -%}
    {%- set checks = {} -%}
    {%- for version, columns in (spec.version_columns or {}).items() -%}
        {%- set differing = {} -%}
        {%- for name, raw_type in columns.items() -%}
            {%- if name in table_types and table_types[name] != raw_type -%}
                {%- do differing.update({name: raw_type}) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if differing -%}{%- do checks.update({version: differing}) -%}{%- endif -%}
    {%- endfor -%}
    {{- return(checks) -}}
{%- endmacro %}

{#- 'column a (declared int), ...' for the `columns` ({name: raw type})
    whose value in a row image of `value` its type cannot read, else null. -#}
{% macro _cdc_contradicted(spec, value, columns) -%}
    nullif({{ _cdc_unreadable_columns(spec, value, columns, ' (declared {type})') }}, '')
{%- endmacro %}

{#- The `columns` ({name: raw type}) whose value in a row image of `value`
    (after / before, data for CDL JSON 1.0; wrapped or not) that type
    cannot read, as text: 'column a<label>, column b<label>' ({type} in
    `label` stands for the column's type). Each image is read again one
    column at a time: evaluated for the records a check singled out. -#}
{% macro _cdc_unreadable_columns(spec, value, columns, label='') -%}
    {%- set images = ['data', 'before'] if spec.envelope == 'cdl_json' else ['after', 'before'] -%}
    concat_ws(', '
    {%- for name, raw_type in columns.items() %},
        if(
            {%- for image in images %}
            from_json(
                coalesce(
                    get_json_object({{ value }}, '$.payload.{{ image }}'),
                    get_json_object({{ value }}, '$.{{ image }}')
                ),
                {{ cdc_string('struct<' ~ cdc_ident(name) ~ ': ' ~ raw_type ~ ', `_cdc_corrupt`: string>') }},
                map('columnNameOfCorruptRecord', '_cdc_corrupt')
            )._cdc_corrupt is not null{{ ' or' if not loop.last }}
            {%- endfor %},
            {{ cdc_string('column ' ~ name ~ label | replace('{type}', raw_type)) }},
            null
        )
    {%- endfor %}
    )
{%- endmacro %}

{#- A Jinja text as the body of a SQL string literal. -#}
{% macro _cdc_sql_text(text) -%}
    {{- text | replace('\\', '\\\\') | replace("'", "\\'") -}}
{%- endmacro %}

{#- The records a base model reads: the raw batches landed since its last
    run, and — on an incremental run of a topic with fingerprinted schema
    versions — its own rows quarantined as schema_not_covered whose version
    sync now knows (a replay: read again with the current schema and staged,
    or given their new reason). A replayed record keeps its landing file,
    line and time (`_landed_at`), so the merge on them (the base models' unique key) replaces its
    quarantine row in the same commit, and takes a batch one past every
    batch landed or replayed so far, so every later model reads it as new
    and merges it like any late event. Finding the candidates reads only the
    data files holding such rows (Iceberg's column statistics). -#}
{% macro _cdc_landed_records(relation, spec) -%}
    {%- if is_incremental() and spec.schema_fingerprints -%}
    (
        select *, landing_batch as _cdc_landed_micros from {{ relation }}
        where {{ cdc_new_batches_filter('landing_batch') }}
        union all
        select
            replayed._kafka_topic as kafka_topic,
            replayed._kafka_partition as kafka_partition,
            replayed._kafka_offset as kafka_offset,
            unix_millis(replayed._kafka_published_at) as kafka_timestamp_ms,
            replayed._kafka_key as kafka_key,
            replayed._kafka_value as kafka_value,
            replayed._landing_file as landing_file,
            replayed._landing_line as landing_line,
            cast(null as string) as landing_error,
            greatest(
                (select max(landing_batch) from {{ relation }}),
                (select max(_landing_batch) from {{ this }})
            ) + 1 as landing_batch,
            unix_micros(replayed._landed_at) as _cdc_landed_micros
        from {{ this }} as replayed
        where replayed._quarantine_reason = 'schema_not_covered'
            and not {{ _cdc_not_covered(cdc_schema_fingerprint('replayed._kafka_value'), spec) }}
    )
    {%- else -%}
    (
        select *, landing_batch as _cdc_landed_micros from {{ relation }}
        where {{ cdc_new_batches_filter('landing_batch') }}
    )
    {%- endif -%}
{%- endmacro %}

{#- Whether a topic's events name their connector in `source.connector`
    and it must be the topic's: the Debezium relational connectors (their
    source position is read from connector-specific fields). CDL topics
    carry the source database's name there. -#}
{% macro _cdc_checks_connector(spec) -%}
    {{- return('connector' in (spec.source_fields or [])
        and spec.connector in ('postgresql', 'mysql', 'sqlserver')) -}}
{%- endmacro %}

{#- The fields of the Kafka key that are also row columns: an event whose key
    and row image disagree on one is quarantined as key_mismatch. -#}
{% macro _cdc_row_key_fields(spec) -%}
    {%- set columns = spec.columns | map(attribute='name') | list -%}
    {{- return((spec.key_fields or []) | select('in', columns) | list) -}}
{%- endmacro %}

{#- The fingerprint of a landed value's schema block: md5 of its exact text
    between `{"schema":` and `,"payload":` (whitespace around the marks
    allowed), null for a value without one. sync computes the same for
    every distinct block it sees (python_helpers.schema.topic_schema.
    schema_fingerprint) and keeps them in the topic's spec. -#}
{% macro cdc_schema_fingerprint(value) -%}
    md5(case
        when startswith({{ value }}, '{"schema":') and instr({{ value }}, ',"payload":') > 0
            then substring_index(substr({{ value }}, 11), ',"payload":', 1)
        else nullif(
            regexp_extract(
                {{ value }}, '(?s)^\\{\\s*"schema"\\s*:(.*?),\\s*"payload"\\s*:', 1
            ),
            ''
        )
    end)
{%- endmacro %}

{#- True when a value's schema block is one sync has not seen: the
    generated schema may not read it right (a column it lacks, a changed
    type), so its record is quarantined rather than staged with nulls. -#}
{% macro _cdc_not_covered(fingerprint, spec) -%}
    {{ fingerprint }} not in ('{{ spec.schema_fingerprints | join("', '") }}')
{%- endmacro %}

{#- The row columns whose JSON type contradicts the generated schema, as
    text ('column a, column b'), for the records whose whole parse failed
    only. -#}
{% macro _cdc_mismatched_columns(value, spec) -%}
    {%- set columns = {} -%}
    {%- for column in spec.columns -%}
        {%- do columns.update({column.source_name or column.name: column.raw_type}) -%}
    {%- endfor -%}
    {{ _cdc_unreadable_columns(spec, value, columns) }}
{%- endmacro %}

{#- Row columns the JsonConverter writes as text of a form: base64 (bytes,
    Decimal) or a decimal number (Decimal with decimal.format=NUMERIC).
    from_json reads any JSON token into their string field, so a value of
    another form would otherwise decode to a wrong value or a null
    silently: such a record is quarantined as type_mismatch instead. -#}
{% macro _cdc_wire_text_columns(spec) -%}
    {{- return(spec.columns | selectattr('decoder', 'in', ['decimal', 'base64', 'number_decimal'])
        | list) -}}
{%- endmacro %}

{#- True when a wire-text column's text has its expected form (or is null). -#}
{% macro _cdc_wire_text_ok(expr, column) -%}
    {%- if column.decoder == 'number_decimal' -%}
        coalesce(
            {{ expr }} rlike '^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$'
            and try_cast({{ expr }} as {{ column.type }}) is not null,
            true
        )
    {%- else -%}
        {{ _cdc_is_base64(expr) }}
    {%- endif -%}
{%- endmacro %}

{% macro _cdc_is_base64(expr) -%}
    coalesce(
        {{ expr }} rlike '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
        true
    )
{%- endmacro %}

{#- from_json type reading a value with or without the JsonConverter wrapper:
    the wrapper's `schema` (only its type is read), `payload`, and the
    envelope's own fields for values written without schemas. -#}
{% macro _cdc_wrapper_type(inner_type, with_unparsed) -%}
    struct<
    {%- if with_unparsed %}`_unparsed`: string, {% endif -%}
    `schema`: struct<`type`: string>, `payload`: {{ inner_type }}, {{ inner_type[7:-1] }}>
{%- endmacro %}

{#- The envelope (or key) struct of a parsed message: its payload when it came
    in the JsonConverter wrapper, else its top-level fields. -#}
{% macro _cdc_unwrap(message, fields) -%}
    case
        when {{ message }}.`schema` is not null or {{ message }}.payload is not null
            then {{ message }}.payload
        else named_struct(
            {%- for field in fields %}
            {{ cdc_string(field) }}, {{ message }}.{{ cdc_ident(field) }}{{ "," if not loop.last }}
            {%- endfor %}
        )
    end
{%- endmacro %}

{#- The primary-key value of the row image, falling back to the Kafka key
    (a delete without a full `before` image still names its key there). -#}
{% macro _cdc_key_expr(key, spec, prefix='parsed.') -%}
    {%- set found = [prefix ~ '_row.' ~ cdc_ident(key)] -%}
    {%- if key in (spec.key_fields or []) -%}
        {%- do found.append(prefix ~ '_key.' ~ cdc_ident(key)) -%}
    {%- endif -%}
    {%- if 'unique' in spec.envelope_fields -%}
        {%- do found.append(prefix ~ '_event.`unique`.' ~ cdc_ident(key)) -%}
    {%- endif -%}
    {%- if found | length == 1 -%}
        {{ found[0] }}
    {%- else -%}
        coalesce({{ found | join(', ') }})
    {%- endif -%}
{%- endmacro %}

{#- `parent.field` when the generated schema has that field, else a typed
    null: envelopes differ across Debezium versions (no `transaction` block
    before 1.x, no `source.snapshot` in some). -#}
{% macro _cdc_present(fields, field, parent, null_type, suffix='') -%}
    {%- if field in fields -%}
        {{ parent }}.{{ cdc_ident(field) }}{{ suffix }}
    {%- else -%}
        cast(null as {{ null_type }})
    {%- endif -%}
{%- endmacro %}
