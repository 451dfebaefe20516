{#-
    Returns the select of the rows that carry an unchanged TOASTed value
    across a primary-key change, or none when the relation cannot have one.

    PostgreSQL's `UPDATE ... SET id = <new>` reaches Debezium as a delete
    of the old key (header `__debezium.newkey`) and a create of the new
    key (header `__debezium.oldkey`) at the same source position (one
    WAL record: the same LSN). A TOASTed column the update left alone is
    Debezium's unavailable-value placeholder in the create, and the new
    key has no earlier value to keep: the value is the old key's. For
    each such create of the batch, a row of the new key just before it
    (its position with the Kafka offset part set to -2, before any record
    at that source position) holding, in each kept column
    (cdc_kept_columns), the old key's newest value before its delete: from
    the batch's events of the old key, else the stored row of the old key
    (`stored`, none on a first build). Every other column is the create's:
    the create stays the newest event of its key, the carried row is only
    a value known before it. (Issue 70: customers 121/122 rows, the new
    key's `note` null where PostgreSQL held the text.)

    `columns`: the staging relation's; `keys`: the unique key; `fillable`:
    cdc_kept_columns; `watermark`: the newest batch already merged.
-#}
{% macro cdc_key_change_carries(relation, stored, columns, keys, fillable, watermark) -%}
    {%- set names = columns | map(attribute='name') | list -%}
    {%- if not fillable or '_kafka_headers' not in names or '_cdc_position' not in names -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set stored_names = cdc_stored_names(stored) -%}
    {%- set at_source = 'slice({0}._cdc_position, 1, size({0}._cdc_position) - 1)' -%}
    {%- set before = "concat(" ~ at_source.format('moves') ~ ", array(cast(-2 as bigint)))" -%}
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
    from (
        select
            created.*,
            deleted._cdc_position as _cdc_old_position
            {%- for key in keys %},
            deleted.{{ cdc_ident(key) }} as {{ cdc_ident('_cdc_old_' ~ key) }}
            {%- endfor %}
        from {{ relation }} as created
        inner join {{ relation }} as deleted
            on {{ at_source.format('created') }} = {{ at_source.format('deleted') }}
        where
            created._cdc_op = 'c'
            and deleted._cdc_op = 'd'
            and created._kafka_headers['__debezium.oldkey'] is not null
            and deleted._kafka_headers['__debezium.newkey'] is not null
            and {{ cdc_new_batches_filter('created._landing_batch', watermark) }}
            and {{ cdc_new_batches_filter('deleted._landing_batch', watermark) }}
    ) as moves
    left join (
        {#- the old key's newest value of each kept column before its delete,
            among the batch's events -#}
        select
            moved._cdc_position
            {%- for name, rule in fillable.items() %},
            max_by(
                named_struct('v', earlier.{{ cdc_ident(name) }}),
                if(earlier._cdc_op != 'd' and not {{ cdc_keeps_previous('earlier', name, rule) }},
                    earlier._cdc_position, null)
            ) as {{ cdc_ident(name) }}
            {%- endfor %}
        from {{ relation }} as moved
        inner join {{ relation }} as deleted
            on {{ at_source.format('moved') }} = {{ at_source.format('deleted') }}
        inner join {{ relation }} as earlier
            on {% for key in keys %}earlier.{{ cdc_ident(key) }} <=> deleted.{{ cdc_ident(key) }}
            {{- " and " if not loop.last }}{% endfor %}
            and earlier._cdc_position < deleted._cdc_position
        where
            moved._cdc_op = 'c'
            and deleted._cdc_op = 'd'
            and moved._kafka_headers['__debezium.oldkey'] is not null
            and deleted._kafka_headers['__debezium.newkey'] is not null
            and {{ cdc_new_batches_filter('earlier._landing_batch', watermark) }}
        group by moved._cdc_position
    ) as known
        on known._cdc_position = moves._cdc_position
    {%- if stored is not none %}
    left join {{ stored }} as stored
        on {% for key in keys %}stored.{{ cdc_ident(key) }} <=> moves.{{ cdc_ident('_cdc_old_' ~ key) }}
        {{- " and " if not loop.last }}{% endfor %}
        and stored._cdc_position < moves._cdc_old_position
    {%- endif %}
{%- endmacro %}
