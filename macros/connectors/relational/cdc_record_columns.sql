{#-
    Pieces every base model shares, whatever the topic holds (change
    events, transaction boundaries, schema changes): how a landed value is
    parsed, the verdicts any record can get before its content is looked
    at, and the Kafka / landing / verdict columns of the base and staging
    models.
-#}

{#- from_json of a landed value, with or without the JsonConverter wrapper
    (see _cdc_wrapper_type); a value that is not JSON of that shape keeps
    its text in `_unparsed` (the JSON text `null` too, unless
    `null_text_is_null`: a flattened topic's delete, read as no value). -#}
{% macro _cdc_parse_value(value, value_type, null_text_is_null=false) -%}
    from_json(
        if(octet_length({{ value }}) > {{ cdc_max_value_bytes() }}
            {%- if null_text_is_null %} or trim({{ value }}) = 'null'{% endif %}, null, {{ value }}),
        {{ cdc_string(_cdc_wrapper_type(value_type, true)) }},
        map('columnNameOfCorruptRecord', '_unparsed')
    )
{%- endmacro %}

{#- The largest value (bytes) a base model parses: the model's config
    `cdc_max_value_bytes`, else the project var of that name (see
    dbt_project.yml). A larger value is quarantined as oversized_value,
    unparsed, its text kept. -#}
{% macro cdc_max_value_bytes() -%}
    {{- config.get('cdc_max_value_bytes') or var('cdc_max_value_bytes') -}}
{%- endmacro %}

{#- True when a landed text column holds bytes that are not valid UTF-8:
    Spark keeps a line's bytes as read, and re-encoding its decoded text
    (malformed bytes become U+FFFD) gives other bytes. -#}
{% macro cdc_not_utf8(expr) -%}
    coalesce(cast({{ expr }} as binary) != encode({{ expr }}, 'utf-8'), false)
{%- endmacro %}

{#- The `when ... then '<reason>'` branches of `_quarantine_reason` that
    hold for any record: bytes that are not UTF-8 (value or key), an
    unreadable landing line, a tombstone, the JSON text `null`, a value over
    the size limit, JSON nested deeper than the reader goes, JSON cut short
    (an object without its closing brace), a value that is not JSON, a value
    whose envelope names a field twice, or JSON whose types contradict the
    schema. `record.` prefixes the landed columns, the parsed `_message` and
    `_cdc_json_depth` (_cdc_json_depth_column, computed below them).
    `checks`: further `when` branches (the schema-version checks of a
    change topic) tried before the last, type_mismatch, which they refine.
    `tombstone_deletes`: a tombstone, and the JSON text `null` the
    JsonConverter writes for one whose value schema was kept, are deletes of
    their key, not quarantined records (flattened topics). -#}
{% macro _cdc_record_reasons(record, checks='', tombstone_deletes=false) -%}
    when {{ cdc_not_utf8(record ~ '.kafka_value') }} or {{ cdc_not_utf8(record ~ '.kafka_key') }}
        then 'not_utf8'
    when {{ record }}.landing_error is not null then 'unreadable_landing_record'
    {%- if not tombstone_deletes %}
    when {{ record }}.kafka_value is null then 'tombstone'
    when trim({{ record }}.kafka_value) = 'null' then 'null_value'
    {%- endif %}
    when octet_length({{ record }}.kafka_value) > {{ cdc_max_value_bytes() }}
        then 'oversized_value'
    when {{ record }}._cdc_json_depth > {{ cdc_max_json_depth() }}
        then 'nested_too_deep'
    when {{ record }}._message._unparsed is not null
        and json_object_keys({{ record }}.kafka_value) is null
        and startswith(ltrim({{ record }}.kafka_value), '{')
        and not endswith(rtrim({{ record }}.kafka_value), '}')
        then 'truncated_json'
    when {{ record }}._message._unparsed is not null
        and json_object_keys({{ record }}.kafka_value) is null
        then 'malformed_json'
    when {{ record }}._cdc_repeated_fields != ''
        then 'duplicate_field'
    {{ checks }}
    when {{ record }}._message._unparsed is not null then 'type_mismatch'
{%- endmacro %}

{#- The column `_cdc_json_depth` the verdicts read: the nesting depth
    (cdc_json_depth) of a value the JSON reader could not read as JSON
    (`message`: its parse, `text`: the value), else null. A column below the
    verdicts, not an expression in them: the reason and the detail read it
    three times, and each copy was a large lambda for Spark to analyse. -#}
{% macro _cdc_json_depth_column(message, text) -%}
    if(
        {{ message }}._unparsed is not null and json_object_keys({{ text }}) is null,
        {{ cdc_indent(cdc_json_depth(text), 8) }},
        null
    ) as _cdc_json_depth
{%- endmacro %}

{#- The deepest nesting of objects and arrays in a JSON text (brackets in
    strings do not count). Spark's JSON reader refuses a text nested deeper
    than cdc_max_json_depth(); this names that reason for a record it could
    not read (evaluated for such records only: it walks the text). The
    escape pairs, then the strings (an unclosed last one to the end), then
    every character but a bracket are taken out first, each by a regular
    expression without a repeated group (Java's engine recurses on those,
    and a long value would overflow its stack); the walk then only counts
    brackets, a lambda Spark analyses in a blink (issue 71). -#}
{% macro cdc_json_depth(text) -%}
    aggregate(
        split(regexp_replace(regexp_replace(regexp_replace(
            {{ text }},
            '(?s)\\\\.', ''),
            '"[^"]*("|$)', ''),
            '[^\\[\\]{}]', ''), ''),
        named_struct('depth', 0, 'deepest', 0),
        (walk, c) -> if(
            c in ('[', '{'),
            named_struct('depth', walk.depth + 1, 'deepest', greatest(walk.deepest, walk.depth + 1)),
            named_struct('depth', walk.depth - 1, 'deepest', walk.deepest)
        ),
        walk -> walk.deepest
    )
{%- endmacro %}

{#- The deepest nesting Spark's JSON reader (Jackson's default limit)
    reads: a value nested deeper is quarantined as nested_too_deep. Fixed by
    the reader, not a setting. -#}
{% macro cdc_max_json_depth() -%}
    1000
{%- endmacro %}

{#- The envelope fields that decide what a change does (op, before, after)
    named twice in one object of a value, as text ('op, after'), else ''.
    A JSON reader keeps the last copy silently; the JsonConverter never
    writes a field twice, so such a record is quarantined. A cheap scan
    finds the candidates: a field name followed by its colon twice or more
    (one regular expression per name, each starting with the quoted name,
    which the regex engine finds by skipping: half the cost of one
    expression for the three names at 300 k, issue 54; a name in single
    quotes, which Spark's JSON reader takes too, is counted when the text
    holds a single quote), or any `\u` escape, which can spell a name
    (`"o\u0070"` is `op` to the reader). The scan reads `scanned`, the
    value's text after its schema block when the block is one the spec
    keeps whole (a quarter of the text: _cdc_after_known_block, a column
    computed below), else the whole `text`. Only candidates have their
    envelope's keys listed (by the JSON reader: escapes decoded), once: a
    name is repeated when removing it takes more than one key away, and the
    repeated names come in the order of their first copy (a one-variable
    lambda holds the list; a lambda over each key with its position cost
    Spark's analysis a fifth of a base model's, issue 71). An
    events macro computes it once per record, as the column
    `_cdc_repeated_fields` beside `_message`, for the reason and detail to
    read (evaluated in each, it was a third of the base model's decode
    time: issue 43). -#}
{% macro _cdc_repeated_envelope_fields(text, scanned=none) -%}
    {%- set scanned = scanned or text -%}
    if(
        {%- for name in ['op', 'before', 'after'] %}
        {{ _cdc_keys_named(scanned, name) }} > 1 or
        {%- endfor %}
        contains({{ scanned }}, '\\u'),
        element_at(transform(
            array(concat(
                coalesce(json_object_keys(get_json_object({{ text }}, '$.payload')), array()),
                coalesce(json_object_keys({{ text }}), array())
            )),
            envelope_keys -> array_join(array_intersect(envelope_keys, array(
                {%- for name in ['op', 'before', 'after'] %}
                if(size(envelope_keys) - size(array_remove(envelope_keys, '{{ name }}')) > 1, '{{ name }}', null)
                {{- ',' if not loop.last }}
                {%- endfor %}
            )), ', ')
        ), 1),
        ''
    )
{%- endmacro %}

{#- How many times `text` names the key `name` (followed by its colon),
    in double quotes or in single ones. -#}
{% macro _cdc_keys_named(text, name) -%}
    (regexp_count({{ text }}, '"{{ name }}"\\s*:')
        + if(contains({{ text }}, '\''), regexp_count({{ text }}, '\'{{ name }}\'\\s*:'), 0))
{%- endmacro %}

{#- The `when ... then '<detail>'` branches of `_quarantine_detail` for the
    reasons of _cdc_record_reasons that have one, keyed by the reason the
    record got (`reason`: its expression, `_quarantine_reason` in the
    select that computes it), so that each check is written once, in the
    reason (issue 71). `checks`: the details of the extra checks given to
    it. -#}
{% macro _cdc_record_details(record, reason, checks='', tombstone_deletes=false) -%}
    when {{ reason }} = 'not_utf8'
        then concat(
            'bytes that are not UTF-8 in the ',
            case
                when {{ record }}.landing_error is not null then 'kcat line (kept whole)'
                when {{ cdc_not_utf8(record ~ '.kafka_value') }} then 'value'
                else 'Kafka key'
            end,
            ': kept as landed'
        )
    when {{ reason }} = 'unreadable_landing_record' then {{ record }}.landing_error
    {%- if not tombstone_deletes %}
    when {{ reason }} = 'null_value'
        then 'the value is the JSON text null (a tombstone has no value at all)'
    {%- endif %}
    when {{ reason }} = 'oversized_value'
        then concat(
            'the value is ', octet_length({{ record }}.kafka_value), ' bytes, over the limit of',
            ' {{ cdc_max_value_bytes() }} (config or var cdc_max_value_bytes); not parsed'
        )
    when {{ reason }} = 'nested_too_deep'
        then concat(
            'JSON nested ', {{ record }}._cdc_json_depth, ' levels deep,',
            ' deeper than the {{ cdc_max_json_depth() }} levels the JSON reader reads'
        )
    when {{ reason }} in ('truncated_json', 'malformed_json')
        then concat(
            'not JSON (', octet_length({{ record }}.kafka_value), ' bytes, ending with ',
            right({{ record }}.kafka_value, 20), ')'
        )
    when {{ reason }} = 'duplicate_field'
        then concat(
            'the envelope names ', {{ record }}._cdc_repeated_fields,
            ' more than once (a JSON reader would keep the last copy)'
        )
    {{ checks }}
{%- endmacro %}

{#- The change-data-capture metadata columns of a change-event base model
    (any connector), from the parsed envelope `record._event` and the
    landed `record.kafka_offset`: op, source position, snapshot flag, commit
    and processing times, transaction block, the source block's fields and
    the connector's extra envelope fields (spec.envelope_fields says which
    exist; an absent one is a typed null). -#}
{% macro _cdc_change_metadata_columns(spec, record) -%}
    {%- set event = record ~ '._event' -%}
    -- change-data-capture metadata
    {{ event }}.op as _cdc_op,
    {{ cdc_source_position(spec, event ~ '.source', record ~ '.kafka_offset') }} as _cdc_position,
    coalesce(
        {{ _cdc_present(spec.source_fields, 'snapshot', event ~ '.source', 'string') }},
        'false'
    ) != 'false' as _cdc_is_snapshot,
    timestamp_millis(cast(
        {{ _cdc_present(spec.source_fields, 'ts_ms', event ~ '.source', 'string') }}
        as bigint)) as _cdc_source_committed_at,
    timestamp_millis(cast(
        {{ _cdc_present(spec.envelope_fields, 'ts_ms', event, 'string') }}
        as bigint)) as _cdc_processed_at,
    {{ _cdc_present(spec.envelope_fields, 'transaction', event, 'string', '.id') }}
        as _cdc_transaction_id,
    cast({{ _cdc_present(spec.envelope_fields, 'transaction', event, 'string',
        '.total_order') }} as bigint) as _cdc_transaction_total_order,
    cast({{ _cdc_present(spec.envelope_fields, 'transaction', event, 'string',
        '.data_collection_order') }} as bigint) as _cdc_transaction_collection_order
    {%- for name in spec.source_fields %},
    cast({{ event }}.source.{{ cdc_ident(name) }}
        as {{ (spec.source_types or {}).get(name, 'string') }})
        as {{ cdc_source_column_name(name) }}
    {%- endfor %}
    {%- for name in cdc_extra_fields(spec) %},
    {{ _cdc_extra_expr(name, event) }} as {{ cdc_extra_column_name(name) }}
    {%- endfor %}
{%- endmacro %}

{#- The Kafka and landing coordinates and the quarantine verdict of a base
    model, from the raw landing columns of `record` (with its computed
    `_quarantine_reason` and `_quarantine_detail`, or `verdict`: the two
    expressions, written here). `landed_micros`: when
    the record landed (epoch micros), if not its landing batch (a record
    replayed from quarantine keeps its landing time). -#}
{% macro _cdc_landing_columns(record, landed_micros=none, verdict=none) -%}
    -- kafka and landing metadata
    {{ record }}.kafka_topic as _kafka_topic,
    {{ record }}.kafka_partition as _kafka_partition,
    {{ record }}.kafka_offset as _kafka_offset,
    timestamp_millis({{ record }}.kafka_timestamp_ms) as _kafka_published_at,
    {{ record }}.kafka_key as _kafka_key,
    {{ record }}.kafka_headers as _kafka_header_list,
    {{ record }}.landing_batch as _landing_batch,
    timestamp_micros({{ landed_micros or record ~ '.landing_batch' }}) as _landed_at,
    {{ cdc_staged_at() }} as _staged_at,
    -- quarantine verdict (null for an accepted record)
    {%- if verdict %}
    {{ cdc_indent(verdict[0], 4) }} as _quarantine_reason,
    {{ cdc_indent(verdict[1], 4) }} as _quarantine_detail,
    if(_quarantine_reason is null, null, {{ record }}.kafka_value) as _kafka_value,
    {%- else %}
    {{ record }}._quarantine_reason,
    {{ record }}._quarantine_detail,
    if({{ record }}._quarantine_reason is null, null, {{ record }}.kafka_value) as _kafka_value,
    {%- endif %}
    {{ record }}.landing_file as _landing_file,
    {{ record }}.landing_line as _landing_line
{%- endmacro %}

{#- The Kafka and landing columns a staging model passes on from its base
    model `events` (the landing file and line identify the landed record:
    the record-level count test joins on them). -#}
{% macro _cdc_kafka_columns(events) -%}
    -- kafka and landing metadata
    {{ events }}._kafka_topic,
    {{ events }}._kafka_partition,
    {{ events }}._kafka_offset,
    {{ events }}._kafka_published_at,
    {{ events }}._kafka_key,
    {{ cdc_header_map(events ~ '._kafka_header_list') }} as _kafka_headers,
    {{ events }}._landing_batch,
    {{ events }}._landed_at,
    {{ events }}._staged_at,
    {{ events }}._landing_file,
    {{ events }}._landing_line
{%- endmacro %}

{#- A record's Kafka headers (an array of key and value, as landed) as a
    map: a name that occurs twice keeps its last value (Kafka's
    `lastHeader`); an entry without a name is left out (a map key cannot be
    null). Null when the record has no headers. -#}
{% macro cdc_header_map(headers) -%}
    map_from_entries(filter(
        reverse({{ headers }}),
        (h, i) -> h.key is not null
            and array_position(transform(reverse({{ headers }}), x -> x.key), h.key) = i + 1
    ))
{%- endmacro %}
