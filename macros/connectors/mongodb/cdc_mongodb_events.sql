{#-
    Returns the select of a MongoDB topic's base model: one row per landed
    record of `topic` read from `relation` (the raw landing table), its
    value parsed once with the connector's built-in envelope (1.x oplog and
    2.x change-stream events, with or without schema blocks).

    Columns: the document id `_id` as text (see _mongo_id), the change as
    the connector wrote it (after / before documents, 1.x patch and filter,
    2.x update description), the CDC metadata (op, source position
    [ts_ms, ord, offset], source block), the Kafka/landing coordinates and
    the quarantine verdict. Besides the reasons every record can get, a
    MongoDB event is quarantined when it has no `_id` anywhere
    (missing_primary_key), when a create/read has no document or an update
    has neither document nor patch (missing_document), and when its patch
    uses what the replay does not apply (unsupported_patch: an operator
    other than $set/$unset, the $v 2 oplog diff format, a positional path
    such as `a.$.b`): reported, never applied wrong.
-#}
{% macro cdc_mongodb_events(relation, topic) %}
    {{- return(adapter.dispatch('cdc_mongodb_events', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_mongodb_events(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    select
        -- document id and change
        events._id,
        events._event.after as after_document,
        events._event.before as before_document,
        events._event.patch,
        events._event.filter as patch_filter,
        events._event.updateDescription.updatedFields as updated_fields,
        events._event.updateDescription.removedFields as removed_fields,
        transform(
            events._event.updateDescription.truncatedArrays,
            truncated -> named_struct(
                'field', truncated.field, 'size', cast(truncated.size as int)
            )
        ) as truncated_arrays,
        {{ cdc_indent(_cdc_change_metadata_columns(spec, 'events'), 4) }},
        {{ cdc_indent(_cdc_landing_columns('events'), 4) }}
    from (
        select
            identified.*,
            case
                {{ cdc_indent(_cdc_record_reasons('identified'), 12) }}
                when identified._event is null then 'null_payload'
                when identified._event.op is null then 'not_a_change_event'
                when identified._event.op not in ('c', 'r', 'u', 'd') then 'unsupported_op'
                when identified._id is null then 'missing_primary_key'
                when {{ _mongo_missing_document('identified._event') }} then 'missing_document'
                when identified._patch_problem is not null then 'unsupported_patch'
            end as _quarantine_reason,
            case
                {{ cdc_indent(_cdc_record_details('identified', '_quarantine_reason'), 16) }}
                when _quarantine_reason = 'type_mismatch'
                    then concat(
                        'the JSON type of a field contradicts the envelope:',
                        ' not a Debezium MongoDB event'
                    )
                when _quarantine_reason = 'unsupported_op' then concat('op = ', identified._event.op)
                when _quarantine_reason = 'missing_primary_key'
                    then 'no _id in the Kafka key, the documents or the filter'
                when _quarantine_reason = 'missing_document'
                    then concat('op = ', identified._event.op, ' without a document or patch')
                when _quarantine_reason = 'unsupported_patch' then identified._patch_problem
            end as _quarantine_detail
        from (
            select
                unwrapped.*,
                coalesce(
                    {{ _mongo_id(_mongo_json_value(_mongo_tag('unwrapped._key.id'))) }},
                    {%- for image in ('after', 'before', 'filter') %}
                    {{ _mongo_id("get_json_object(" ~ _mongo_tag('unwrapped._event.' ~ image)
                        ~ ", '$.S_id')") }}{{ "," if not loop.last }}
                    {%- endfor %}
                ) as _id,
                {{ _mongo_patch_problem('unwrapped._event') }} as _patch_problem
            from (
                select
                    parsed.*,
                    {{ _cdc_unwrap('parsed._message', spec.parse_fields) }} as _event,
                    {{ _cdc_unwrap('parsed._key_message', spec.key_fields) }} as _key,
                    {{ cdc_indent(_cdc_json_depth_column('parsed._message', 'parsed.kafka_value'), 20) }}
                from (
                    select
                        landed.*,
                        {{ cdc_indent(_cdc_parse_value('landed.kafka_value', spec.value_type), 24) }} as _message,
                        {{ cdc_indent(_cdc_repeated_envelope_fields('landed.kafka_value'), 24) }}
                            as _cdc_repeated_fields,
                        from_json(
                            landed.kafka_key, {{ cdc_string(_cdc_wrapper_type(spec.key_type, false)) }}
                        ) as _key_message
                    from {{ relation }} as landed
                    where {{ cdc_new_batches_filter('landed.landing_batch') }}
                ) as parsed
            ) as unwrapped
        ) as identified
    ) as events
{%- endmacro %}

{#- A JSON text (tagged) as from_json reads a value: a string without its
    quotes, anything else as its JSON text. -#}
{% macro _mongo_json_value(text) -%}
    from_json(concat('{"v":', {{ text }}, '}'), 'struct<v: string>').v
{%- endmacro %}

{#- The document id as text from its tagged value: an ObjectId's 24 hex
    digits, a number's decimal text ($numberLong, $numberInt, ... or plain),
    a string itself, any other id (a document, binary) as compact JSON. -#}
{% macro _mongo_id(value) -%}
    {{ _mongo_let(value, 'id_value', "case
        when id_value is null then null
        when left(id_value, 1) = 'S' then substr(id_value, 2)
        when left(id_value, 1) = '{'
            and size(from_json(id_value, 'map<string,string>')) = 1
            and map_keys(from_json(id_value, 'map<string,string>'))[0] in (
                'S$oid', 'S$numberLong', 'S$numberInt', 'S$numberDouble', 'S$numberDecimal'
            )
            then " ~ _mongo_text("map_values(from_json(id_value, 'map<string,string>'))[0]") ~ "
        when left(id_value, 1) in ('{', '[')
            then " ~ _mongo_compact(_mongo_untag('id_value')) ~ "
        else id_value
    end") }}
{%- endmacro %}

{#- A create/read without a document, or an update with neither a document
    nor a patch / update description. -#}
{% macro _mongo_missing_document(event) -%}
    (
        {{ event }}.op in ('c', 'r') and {{ event }}.after is null
        or {{ event }}.op = 'u' and {{ event }}.after is null and {{ event }}.patch is null
        and {{ event }}.updateDescription is null
    )
{%- endmacro %}

{#- Why an update's patch cannot be replayed exactly, or null. Only read
    when the event has no full document (`after`), which then wins. -#}
{% macro _mongo_patch_problem(event) -%}
    case
        when {{ event }}.op != 'u' or {{ event }}.after is not null then null
        when {{ event }}.patch is not null
            then {{ _mongo_let("from_json(" ~ event ~ ".patch, 'map<string,string>')", 'pm',
                "case
                    when pm is null then 'the patch is not a JSON document'
                    when not exists(map_keys(pm), k -> k like '$%') then null
                    when pm['$v'] = '2' or array_contains(map_keys(pm), 'diff')
                        then 'oplog diff format ($v: 2, MongoDB 5.0+)'
                    when exists(map_keys(pm), k -> k like '$%' and k not in ('$set', '$unset', '$v'))
                        then concat('update operator ', filter(map_keys(pm),
                            k -> k like '$%' and k not in ('$set', '$unset', '$v'))[0])
                    else " ~ _mongo_positional("concat(
                        coalesce(map_keys(from_json(pm['$set'], 'map<string,string>')),
                            cast(array() as array<string>)),
                        coalesce(map_keys(from_json(pm['$unset'], 'map<string,string>')),
                            cast(array() as array<string>)))") ~ "
                end") }}
        when {{ event }}.updateDescription.updatedFields is not null
            and from_json({{ event }}.updateDescription.updatedFields, 'map<string,string>') is null
            then 'updatedFields is not a JSON document'
        else {{ _mongo_positional("concat(
            coalesce(map_keys(from_json(" ~ event ~ ".updateDescription.updatedFields,
                'map<string,string>')), cast(array() as array<string>)),
            coalesce(" ~ event ~ ".updateDescription.removedFields, cast(array() as array<string>)),
            coalesce(transform(" ~ event ~ ".updateDescription.truncatedArrays, a -> a.field),
                cast(array() as array<string>)))") }}
    end
{%- endmacro %}

{#- 'positional path <p>' for the first path with a $ component ($, $[],
    $[id]), else null. -#}
{% macro _mongo_positional(paths) -%}
    {{ _mongo_let("filter(" ~ paths ~ ", p -> exists(split(p, '\\\\.'), c -> c like '$%'))",
        'bad', "if(size(bad) > 0, concat('positional path ', bad[0]), null)") }}
{%- endmacro %}
