{#- How cdc_debezium_events reads a landed record: the value unwrapped
    (schema and payload, or bare), its key, the fields present. -#}
{#- The records a base model reads: the raw batches landed since its last
    run, and — on an incremental run of a topic with fingerprinted schema
    versions — its own rows quarantined as schema_not_covered whose version
    sync now knows (a replay: read again with the current schema and staged,
    or given their new reason). A replayed record keeps its landing file,
    line and time (`_landed_at`), so the merge on them (the base models' unique key) replaces its
    quarantine row in the same commit, and takes a batch one past every
    batch landed or replayed so far, so every later model reads it as new
    and merges it like any late event. Finding the candidates reads only the
    data files holding such rows (Iceberg's column statistics). The replay
    is written into the select only when the model's look-up found such a
    row (cdc_lookup's `replay`): the rare path, whose scalar subqueries and
    second scan were half of a base model's planning in every run
    (`make bench-plan`, issue 71). -#}
{% macro _cdc_landed_records(relation, spec) -%}
    {%- if is_incremental() and spec.schema_fingerprints and cdc_lookup().replay -%}
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
            replayed._kafka_header_list as kafka_headers,
            unix_micros(replayed._landed_at) as _cdc_landed_micros
        from {{ this }} as replayed
        where replayed._quarantine_reason = 'schema_not_covered'
            and not {{ _cdc_not_covered(
                cdc_indent(cdc_schema_fingerprint('replayed._kafka_value', spec), 16), spec
            ) }}
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
