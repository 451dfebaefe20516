{#-
    Returns the select of a MongoDB current-state model: one row per live
    document of `topic`, rebuilt by replaying its change events in source
    order (_cdc_position: source ts_ms, then ord, then Kafka offset) from
    `relation`, the topic's base model.

    Per `_id`, starting from the document this model already holds (an
    incremental run applies the new batches on top of the stored state,
    it does not replay from the beginning):
      * a create, read, 2.x update with a full document (`after`) or 1.x
        replacement patch sets the whole document;
      * a 1.x patch ($set / $unset) or a 2.x update description
        (truncatedArrays, then removedFields, then updatedFields) is applied
        to the previous document, dotted paths reaching into documents and
        array elements (see _mongodb_json.sql);
      * a delete removes the document; a later create starts afresh.
    An update that cannot be replayed exactly leaves its mark in
    `_cdc_replay_issue` until the next full document: `missing_base_document`
    (no earlier document of that `_id` was seen) or `unsupported_patch: ...`
    (the record is quarantined; later patches still apply on the document
    as it was). Events older than the stored state's position are not
    re-applied.

    Columns: `_id`, one typed column per top-level field `sync` has seen
    (docs/connectors.md), `_document` (the whole document,
    compact extended JSON), `_cdc_replay_issue`, then the metadata of the
    newest event.
-#}
{% macro cdc_mongodb_current_state(relation, topic) %}
    {{- return(adapter.dispatch('cdc_mongodb_current_state', 'cdc')(relation, topic)) -}}
{% endmacro %}

{% macro default__cdc_mongodb_current_state(relation, topic) -%}
    {%- set spec = cdc_topic_spec(topic) -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set metadata = [
        '_cdc_op', '_cdc_position', '_cdc_is_snapshot', '_cdc_source_committed_at',
        '_cdc_processed_at', '_cdc_transaction_id', '_cdc_transaction_total_order',
        '_cdc_transaction_collection_order'] -%}
    {%- for name in spec.source_fields -%}
        {%- do metadata.append(cdc_source_column_name(name)) -%}
    {%- endfor -%}
    {%- do metadata.extend(['_kafka_topic', '_kafka_partition', '_kafka_offset',
        '_kafka_published_at', '_kafka_key', '_landing_batch', '_landed_at', '_staged_at']) -%}
    select
        replayed._id,
        -- document fields, typed
        {%- for column in spec.document_columns %}
        {{ _mongo_decode('replayed._parsed.' ~ cdc_ident('S' ~ column.name), column.doc_type,
            'c' ~ loop.index) }} as {{ cdc_ident(column.name) }},
        {%- endfor %}
        -- the whole document, and what the replay could not apply
        {{ _mongo_compact(_mongo_untag('replayed._document')) }} as _document,
        replayed._issue as _cdc_replay_issue,
        -- change-data-capture metadata of the newest event
        if(replayed._document is null, 'd', replayed._newest._cdc_op) as _cdc_op,
        {%- for name in metadata[1:] %}
        replayed._newest.{{ name }}{{ "," if not loop.last }}
        {%- endfor %}
    from (
        select
            applied.*,
            {%- set parsed = 'from_json(applied._document, '
                ~ cdc_string(spec.document_parse_type) ~ ')' %}
            {#- fields renamed for Spark (column_names): cast to their names by position -#}
            {{ ('cast(' ~ parsed ~ ' as ' ~ spec.document_row_type ~ ')')
                if spec.document_row_type else parsed }} as _parsed
        from (
            select
                started._id,
                started._newest,
                if(
                    started._start is null,
                    null,
                    {{ cdc_indent(_mongo_apply_operations('started._start', 'started._operations'), 20) }}
                ) as _document,
                coalesce(
                    started._carried_issue,
                    case
                        when started._first_poison is not null
                            and (started._base is not null or size(started._operations) = 0
                                or started._first_poison.position
                                < started._first_patch.position)
                            then concat('unsupported_patch: ', started._first_poison.detail)
                        when started._base is null and size(started._operations) > 0
                            then 'missing_base_document'
                    end
                ) as _issue
            from (
                select
                    grouped.*,
                    coalesce(
                        grouped._base,
                        if(size(grouped._operations) > 0,
                            coalesce(grouped._first_patch.base, '{}'), null)
                    ) as _start
                from (
                    {{ cdc_indent(_mongo_grouped_changes(relation, watermark, metadata), 20) }}
                ) as grouped
            ) as started
        ) as applied
    ) as replayed
    {%- if watermark is none %}
    where replayed._document is not null
    {%- endif %}
{%- endmacro %}

{#- Per `_id`, the events of the batches after `watermark` newer than the
    stored document: the last full document or delete (the reset: nothing
    before it matters), the update operations after it in source order, the
    first patch and the first unsupported patch after it, the stored
    document and issue (carried when the batch has no reset), and the
    metadata of the newest event. -#}
{% macro _mongo_grouped_changes(relation, watermark, metadata) -%}
    {%- set after_reset = '(changes._reset_position is null'
        ~ ' or changes._cdc_position > changes._reset_position)' -%}
    select
        changes._id,
        if(
            max(changes._reset_position) is null,
            {{ 'cast(null as string)' if watermark is none
                else _mongo_tag('first(changes._stored_document)') }},
            max_by(changes._document, changes._cdc_position)
                filter (where changes._kind in ('full', 'delete'))
        ) as _base,
        if(
            max(changes._reset_position) is null,
            {{ 'cast(null as string)' if watermark is none
                else 'first(changes._stored_issue)' }},
            null
        ) as _carried_issue,
        flatten(transform(
            sort_array(collect_list(named_struct(
                'position', changes._cdc_position, 'operations', changes._operations
            )) filter (where changes._kind = 'patch' and {{ after_reset }})),
            x -> x.operations
        )) as _operations,
        min_by(
            named_struct('position', changes._cdc_position, 'base', changes._filter_base),
            changes._cdc_position
        ) filter (where changes._kind = 'patch' and {{ after_reset }}) as _first_patch,
        min_by(
            named_struct('position', changes._cdc_position, 'detail', changes._detail),
            changes._cdc_position
        ) filter (where changes._kind = 'poison' and {{ after_reset }}) as _first_poison,
        max_by(named_struct(
            {%- for name in metadata %}
            {{ cdc_string(name) }}, changes.{{ cdc_ident(name) }}{{ "," if not loop.last }}
            {%- endfor %}
        ), changes._cdc_position) as _newest
    from (
        select
            kinds.*,
            max(if(kinds._kind in ('full', 'delete'), kinds._cdc_position, null))
                over (partition by kinds._id) as _reset_position
        from (
            select
                events.*,
                {{ _mongo_change_kind('events') }} as _kind,
                if(events._cdc_op = 'd', null, {{ _mongo_tag(
                    'coalesce(events.after_document, events.patch)') }}) as _document,
                {{ cdc_indent(_mongo_operations('events'), 16) }} as _operations,
                {{ _mongo_filter_base('events.patch_filter') }} as _filter_base,
                events._quarantine_detail as _detail
                {%- if watermark is not none %},
                merged._document as _stored_document,
                merged._cdc_replay_issue as _stored_issue
                {%- endif %}
            from {{ relation }} as events
            {%- if watermark is not none %}
            left join {{ this }} as merged on events._id = merged._id
            {%- endif %}
            where
                (events._quarantine_reason is null
                    or events._quarantine_reason = 'unsupported_patch')
                and {{ cdc_new_batches_filter('events._landing_batch', watermark) }}
                {%- if watermark is not none %}
                and (merged._cdc_position is null
                    or events._cdc_position > merged._cdc_position)
                {%- endif %}
        ) as kinds
    ) as changes
    group by changes._id
{%- endmacro %}

{#- full (the event carries the whole document), patch, delete, or poison
    (an update the replay cannot apply: quarantined as unsupported_patch). -#}
{% macro _mongo_change_kind(events) -%}
    case
        when {{ events }}._quarantine_reason = 'unsupported_patch' then 'poison'
        when {{ events }}._cdc_op = 'd' then 'delete'
        when {{ events }}.after_document is not null then 'full'
        when {{ events }}.patch is not null
            and not exists(
                map_keys(from_json({{ events }}.patch, 'map<string,string>')),
                k -> k like '$%'
            )
            then 'full'
        else 'patch'
    end
{%- endmacro %}

{#- The update operations of a patch event, in the order they apply:
    1.x $unset then $set; 2.x truncatedArrays, removedFields, updatedFields.
    Values are tagged JSON texts as from_json reads them. -#}
{% macro _mongo_operations(events) -%}
    {%- set op_type = 'array<struct<op: string, path: array<string>, value: string, size: int>>' -%}
    case
        when {{ events }}.after_document is not null or {{ events }}._cdc_op != 'u'
            then cast(array() as {{ op_type }})
        when {{ events }}.patch is not null
            then {{ _mongo_let("from_json(" ~ _mongo_tag(events ~ '.patch')
                ~ ", 'struct<`S$set`: map<string,string>, `S$unset`: map<string,string>>')",
                'patch_ops', "concat(
                coalesce(transform(map_keys(patch_ops.`S$unset`), k -> named_struct(
                    'op', 'unset', 'path', " ~ _mongo_path('k', true) ~ ",
                    'value', cast(null as string), 'size', cast(null as int))),
                    cast(array() as " ~ op_type ~ ")),
                coalesce(transform(map_entries(patch_ops.`S$set`), x -> named_struct(
                    'op', 'set', 'path', " ~ _mongo_path('x.key', true) ~ ",
                    'value', x.value, 'size', cast(null as int))),
                    cast(array() as " ~ op_type ~ ")))") }}
        else concat(
            coalesce(transform({{ events }}.truncated_arrays, a -> named_struct(
                'op', 'truncate', 'path', {{ _mongo_path('a.field') }},
                'value', cast(null as string), 'size', a.size)),
                cast(array() as {{ op_type }})),
            coalesce(transform({{ events }}.removed_fields, f -> named_struct(
                'op', 'unset', 'path', {{ _mongo_path('f') }},
                'value', cast(null as string), 'size', cast(null as int))),
                cast(array() as {{ op_type }})),
            coalesce(transform(
                map_entries(from_json({{ _mongo_tag(events ~ '.updated_fields') }},
                    'map<string,string>')),
                x -> named_struct(
                    'op', 'set', 'path', {{ _mongo_path('x.key', true) }},
                    'value', x.value, 'size', cast(null as int))),
                cast(array() as {{ op_type }}))
        )
    end
{%- endmacro %}

{#- {"_id": ...} from a 1.x update's filter (tagged), the base a patch is
    applied to when no earlier document of that _id was seen; else null. -#}
{% macro _mongo_filter_base(filter) -%}
    {{ _mongo_let("get_json_object(" ~ _mongo_tag(filter) ~ ", '$.S_id')", 'filter_id',
        "if(filter_id is null, null, concat('{\"S_id\":', " ~ _mongo_token('filter_id') ~ ", '}'))") }}
{%- endmacro %}
