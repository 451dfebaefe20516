{#- The schema-version verdicts of cdc_debezium_events: which landed values
    a version sync has seen covers, and why one it does not is quarantined. -#}
{#- The `when` branches judging a record by its own schema version (see
    python_helpers/schema/schema_evolution.py), before its parse against the
    table's schema is looked at: a version sync has not seen
    (schema_not_covered: replayed once it has, see _cdc_landed_records),
    an unreadable block (invalid_schema_block),
    a row image that contradicts the types its own block declares
    (schema_contradiction), a version that changes a column's type in a way
    the table cannot take in place (incompatible_schema_change, under the
    topic's default schema_changes policy), and any other value its own
    covered block does not read (schema_contradiction too). -#}
{% macro _cdc_version_reasons(spec, record) -%}
    {%- set fingerprint = record ~ '._schema_fingerprint' -%}
    {%- if spec.schema_fingerprints %}
    when {{ _cdc_not_covered(fingerprint, spec) }} then 'schema_not_covered'
    {%- endif %}
    {%- if spec.invalid_versions %}
    when {{ fingerprint }} in ('{{ spec.invalid_versions | join("', '") }}')
        then 'invalid_schema_block'
    {%- endif %}
    {%- if _cdc_version_checks(spec) %}
    when {{ record }}._cdc_contradiction is not null then 'schema_contradiction'
    {%- endif %}
    {%- if spec.incompatible_versions %}
    when {{ fingerprint }} in ('{{ spec.incompatible_versions | join("', '") }}')
        then 'incompatible_schema_change'
    {%- endif %}
    {%- if spec.schema_fingerprints %}
    {#- a value its covered block does not read: the table's types take every
        version's (widened), so it contradicts its own block; sync cannot
        help (type_mismatch's advice is for a value without a block) #}
    when {{ fingerprint }} is not null and {{ record }}._message._unparsed is not null
        and json_object_keys({{ record }}.kafka_value) is not null
        then 'schema_contradiction'
    {%- endif %}
{%- endmacro %}

{#- The details of _cdc_version_reasons, keyed by the record's `reason`
    (see _cdc_record_details). -#}
{% macro _cdc_version_details(spec, record, reason) -%}
    {%- set fingerprint = record ~ '._schema_fingerprint' -%}
    {%- if spec.schema_fingerprints %}
    when {{ reason }} = 'schema_not_covered'
        then concat(
            'the value schema block (md5 ', {{ fingerprint }},
            ') is not one `python -m python_helpers sync` has seen: the next run',
            ' (`make run`, or sync then dbt build) stages it'
        )
    {%- endif %}
    {%- if spec.invalid_versions %}
    when {{ reason }} = 'invalid_schema_block'
        then case {{ fingerprint }}
            {%- for version, why in spec.invalid_versions.items() %}
            when '{{ version }}'
                then 'the schema block (md5 {{ version }}) is not a Kafka Connect schema: {{
                    _cdc_sql_text(why) }}'
            {%- endfor %}
        end
    {%- endif %}
    {%- if spec.schema_fingerprints or _cdc_version_checks(spec) %}
    {#- the columns that contradict the record's own block: those its
        version's checks name, else those the table's schema cannot read #}
    when {{ reason }} = 'schema_contradiction'
        then concat(
            coalesce(
                {%- if _cdc_version_checks(spec) %}
                {{ record }}._cdc_contradiction,
                {%- endif %}
                {{ record }}._cdc_mismatched, 'a field'),
            ' contradicts the type its own schema block (md5 ', {{ fingerprint }}, ') declares'
        )
    {%- endif %}
    {%- if spec.incompatible_versions %}
    when {{ reason }} = 'incompatible_schema_change'
        then case {{ fingerprint }}
            {%- for version, columns in spec.incompatible_versions.items() %}
            when '{{ version }}'
                then concat(
                    {%- for column in columns %}
                    {{ cdc_string('column ' ~ column.column ~ ': the table has ' ~ column.table_type ~ ',') }},
                    {{ cdc_string(' this schema version (md5 ' ~ version ~ ') declares ' ~ column.version_type ~ '; ') }},
                    {%- endfor %}
                    'kept out of the table. To take it: schema_changes: widen in topic.yml, sync,',
                    ' then dbt build --full-refresh --select {{ this.identifier }}+'
                )
            {%- endfor %}
        end
    {%- endif %}
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

{#- The fingerprint of a landed value's schema block: md5 of its exact text
    between `{"schema":` and `,"payload":` (whitespace around the marks
    allowed), null for a value without one. sync computes the same for
    every distinct block it sees (python_helpers.topic.topic_schema.
    schema_fingerprint) and keeps them in the topic's spec, with the text
    of the newest blocks (spec.schema_blocks): a value that starts with
    one of those is that version, found by comparing its first bytes (a
    memory compare, 0.03 s at 300 k records: _cdc_known_block, or `known`,
    its column); any other value is hashed.
    The hash cuts the compact form (the JsonConverter's) by byte: `instr`
    and `substr` of a string count characters, walking the whole value,
    which cost three times `from_json` itself (issue 54,
    docs/performance.md). -#}
{% macro cdc_schema_fingerprint(value, spec=none, known=none) -%}
    {%- set blocks = (spec or {}).get('schema_blocks') or {} -%}
    {%- if blocks and known -%}
    coalesce({{ known }}, {{ _cdc_block_md5(value) }})
    {%- elif blocks -%}
    coalesce({{ cdc_indent(_cdc_known_block(value, spec), 4) }}, {{ _cdc_block_md5(value) }})
    {%- else -%}
    {{ _cdc_block_md5(value) }}
    {%- endif -%}
{%- endmacro %}

{#- The fingerprint of a landed value that starts with one of the blocks
    the spec keeps whole (spec.schema_blocks), else null: each block's text
    written once in a base model (the fingerprint and the text after the
    block are read from it, `known`), as it is most of a model's SQL for a
    topic of a few dozen columns. -#}
{% macro _cdc_known_block(value, spec) -%}
    case
        {%- for fingerprint, block in spec.schema_blocks.items() %}
        when startswith({{ value }}, {{ cdc_string(_cdc_block_prefix(block)) }})
            then {{ cdc_string(fingerprint) }}
        {%- endfor %}
    end
{%- endmacro %}

{% macro _cdc_block_md5(value) -%}
    md5(case
        when startswith({{ value }}, '{"schema":') and contains({{ value }}, ',"payload":')
            then substr(cast(substring_index({{ value }}, ',"payload":', 1) as binary), 11)
        else cast(nullif(
            regexp_extract(
                {{ value }}, '(?s)^\\{\\s*"schema"\\s*:(.*?),\\s*"payload"\\s*:', 1
            ),
            ''
        ) as binary)
    end)
{%- endmacro %}

{#- The first bytes of a landed value whose schema block is `block`. -#}
{% macro _cdc_block_prefix(block) -%}
    {{- return('{"schema":' ~ block ~ ',"payload":') -}}
{%- endmacro %}

{#- A landed value's text after its schema block, when the block is one
    the spec keeps whole (spec.schema_blocks; `known`: the value's
    _cdc_known_block; cut by byte, at a known length), else the whole
    value: what the envelope's keys are looked for
    in (_cdc_repeated_envelope_fields) — a known block is a whole JSON
    object, so every key of the envelope and its payload is after it. -#}
{% macro _cdc_after_known_block(value, spec, known) -%}
    case {{ known }}
        {%- for fingerprint, block in spec.schema_blocks.items() %}
        when {{ cdc_string(fingerprint) }}
            then cast(substr(cast({{ value }} as binary), {{ (_cdc_block_prefix(block).encode('utf-8') | length) + 1 }}) as string)
        {%- endfor %}
        else {{ value }}
    end
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
