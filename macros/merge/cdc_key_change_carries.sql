{#-
    Returns the select of the rows that carry an unchanged TOASTed value
    across a primary-key change, or '' when the relation cannot have one.

    PostgreSQL's `UPDATE ... SET id = <new>` reaches Debezium as a delete
    of the old key and a create of the new key, the create carrying the old
    key in its Kafka header `__debezium.oldkey` (as the header converter
    wrote it: `{"id":2}` by Kafka Connect's default SimpleHeaderConverter,
    `{"schema":...,"payload":{"id":2}}` by the JsonConverter). A TOASTed
    column the update left alone is Debezium's unavailable-value
    placeholder in the create, and the new key has no earlier value to
    keep: the value is the old key's. For each such create of the batch, a
    row of the new key just before it (its position with the Kafka offset
    part set to -2, before any record at that source position) holding, in
    each kept column (cdc_kept_columns), the old key's newest value before
    the create: from the batch's events of the old key, else the stored row
    of the old key (`stored`; none on a first build). Every other column is
    the create's: the create stays the newest event of its key, the carried
    row is only a value known before it. The header, not the delete, names
    the old key: ExtractNewRecordState drops the delete (tombstone mode)
    and keeps the headers. (Issue 70: customers 121/122 rows, the new key's
    `note` null where PostgreSQL held the text.)

    Keys of the types a header's JSON holds as they are (integers, text,
    booleans) only: a key of a logical type (a date, a decimal) is carried
    by nothing (docs/guarantees.md).

    `columns`: the staging relation's; `keys`: the unique key; `fillable`:
    cdc_kept_columns; `watermark`: the newest batch already merged.
-#}
{% macro cdc_key_change_carries(relation, stored, columns, keys, fillable, watermark) -%}
    {%- set names = columns | map(attribute='name') | list -%}
    {%- set key_types = {} -%}
    {%- for column in columns if column.name in keys -%}
        {%- do key_types.update({column.name: column.data_type | lower}) -%}
    {%- endfor -%}
    {%- set plain = ('tinyint', 'smallint', 'int', 'bigint', 'string', 'boolean') -%}
    {#- nothing to carry unless the batch holds a key change (the model's
        look-up asks, cdc_lookup) -#}
    {%- if not cdc_lookup().get('key_changes', false)
        or not fillable or '_kafka_headers' not in names or '_cdc_position' not in names
        or key_types | length != keys | length
        or key_types.values() | reject('in', plain) | list -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set ddl = [] -%}
    {%- for key in keys -%}
        {%- do ddl.append(cdc_ident(key) ~ ' ' ~ key_types[key]) -%}
    {%- endfor -%}
    {%- set header = "created._kafka_headers['__debezium.oldkey']" -%}
    {#- the batch's creates that name an old key, with that key read from
        the header (its payload when the JsonConverter wrote it) -#}
    {%- set creates -%}
        select
            created.*,
            coalesce(
                from_json(get_json_object({{ header }}, '$.payload'), {{ cdc_string(ddl | join(', ')) }}),
                from_json({{ header }}, {{ cdc_string(ddl | join(', ')) }})
            ) as _cdc_old_key
        from {{ relation }} as created
        where
            created._cdc_op = 'c'
            and {{ header }} is not null
            and {{ cdc_new_batches_filter('created._landing_batch', watermark) }}
    {%- endset -%}
    {%- set stored_names = cdc_stored_names(stored) -%}
    {%- set before = "concat(slice(moves._cdc_position, 1, size(moves._cdc_position) - 1),"
        ~ " array(cast(-2 as bigint)))" -%}
    select
        {%- for column in columns %}
        {%- set name = column.name %}
        {%- if name in fillable %}
        {%- set kept = 'stored.' ~ cdc_ident(name) if name in stored_names
            else 'cast(null as ' ~ column.data_type ~ ')' %}
        if(
            known.{{ cdc_ident(name) }} is not null,
            known.{{ cdc_ident(name) }}.v,
            {%- if stored is none %}
            cast(null as {{ column.data_type }})
            {%- else %}
            if(stored._cdc_op = 'd', null, {{ kept }})
            {%- endif %}
        ) as {{ cdc_ident(name) }}
        {%- elif name == '_cdc_op' %}
        'u' as _cdc_op
        {%- elif name == '_cdc_position' %}
        {{ before }} as _cdc_position
        {%- else %}
        moves.{{ cdc_ident(name) }}
        {%- endif %}{{ "," if not loop.last }}
        {%- endfor %}
    from ({{ creates }}) as moves
    left join (
        {#- the old key's newest value of each kept column before the
            create, among the batch's events -#}
        select
            moved._cdc_position
            {%- for name, rule in fillable.items() %},
            max_by(
                named_struct('v', earlier.{{ cdc_ident(name) }}),
                if(earlier._cdc_op != 'd' and not {{ cdc_keeps_previous('earlier', name, rule) }},
                    earlier._cdc_position, null)
            ) as {{ cdc_ident(name) }}
            {%- endfor %}
        from ({{ creates }}) as moved
        inner join {{ relation }} as earlier
            on {% for key in keys %}earlier.{{ cdc_ident(key) }} <=> moved._cdc_old_key.{{ cdc_ident(key) }}
            {{- " and " if not loop.last }}{% endfor %}
            and earlier._cdc_position < moved._cdc_position
        where {{ cdc_new_batches_filter('earlier._landing_batch', watermark) }}
        group by moved._cdc_position
    ) as known
        on known._cdc_position = moves._cdc_position
    {%- if stored is not none %}
    left join {{ stored }} as stored
        on {% for key in keys %}stored.{{ cdc_ident(key) }} <=> moves._cdc_old_key.{{ cdc_ident(key) }}
        {{- " and " if not loop.last }}{% endfor %}
        and stored._cdc_position < moves._cdc_position
    {%- endif %}
{%- endmacro %}
