{#-
    Huawei MRS CDL JSON (message_version 1.0) read as the Debezium envelope,
    field by field as the CDL format page's field table says: data -> after,
    DATA_STORE -> source.connector, SEG_OWNER -> source.schema,
    TABLE_NAME -> source.table, TIMESTAMP -> source.ts_ms, the
    transaction.properties pairs lsn / txId -> source.lsn / source.txId,
    OPERATION INSERT/UPDATE/DELETE -> op c/u/d (any other value stays as it
    is and is quarantined as an unsupported op). CDL's open-source Debezium
    JSON (message_version 2.0) is Debezium's layout: read as it is.
-#}
{% macro cdc_normalize__cdl_json(spec, event, record=none) -%}
    if({{ event }} is null, null, named_struct(
        'before', {{ event }}.before,
        'after', {{ event }}.data,
        'source', named_struct(
            'connector', lower({{ event }}.DATA_STORE),
            'schema', {{ event }}.SEG_OWNER,
            'table', {{ event }}.TABLE_NAME,
            'ts_ms', cast({{ event }}.`TIMESTAMP` as bigint),
            'lsn', {{ _cdc_property(event ~ '.`transaction`.properties', 'lsn') }},
            'txId', {{ _cdc_property(event ~ '.`transaction`.properties', 'txId') }}
        ),
        'op', case upper({{ event }}.OPERATION)
            when 'INSERT' then 'c'
            when 'UPDATE' then 'u'
            when 'DELETE' then 'd'
            else {{ event }}.OPERATION
        end
        {%- for name in spec.envelope_fields if name not in ('before', 'after', 'source', 'op') %},
        {{ cdc_string(name) }}, {{ event }}.{{ cdc_ident(name) }}
        {%- endfor %}
    ))
{%- endmacro %}

{#- The bigint value of the name/value pair called `name` in a CDL
    transaction.properties array, or null. -#}
{% macro _cdc_property(properties, name) -%}
    cast(get(filter({{ properties }}, property -> property.name = {{ cdc_string(name) }}), 0).value as bigint)
{%- endmacro %}
