{#-
    Decoding of a document field, from its tagged value (a field of the
    document parsed with the generated `document_parse_type`: documents as
    structs, arrays as arrays, every other value as its tagged JSON text)
    to the Spark type `sync` inferred (`doc_type`, see
    python_helpers/schema/extended_json.py). Every extended-JSON dialect the
    connector writes is read: legacy/strict, canonical and relaxed. A
    sub-document's fields take their Spark names (`names`: the ones the
    metastore cannot keep, python_helpers/schema/column_names.py).
-#}
{% macro _mongo_decode(value, doc_type, n) -%}
    {%- set kind = doc_type.kind -%}
    {%- if kind == 'doc' and doc_type.fields -%}
        if({{ value }} is null, null, named_struct(
            {%- for field in doc_type.fields %}
            {{ cdc_string((doc_type.names or {}).get(field[0], field[0])) }}, {{ _mongo_decode(value ~ '.' ~ cdc_ident('S' ~ field[0]), field[1], n ~ '_' ~ loop.index) }}
            {{- "," if not loop.last }}
            {%- endfor %}
        ))
    {%- elif kind == 'array' -%}
        transform({{ value }}, item{{ n }} -> {{ _mongo_decode('item' ~ n, doc_type['items'], n ~ 'i') }})
    {%- elif kind == 'string' -%}
        if(left({{ value }}, 1) = 'S', substr({{ value }}, 2), null)
    {%- elif kind == 'bool' -%}
        cast({{ value }} as boolean)
    {%- elif kind == 'int' -%}
        cast({{ _mongo_wrapped(value, ['$numberInt']) }} as int)
    {%- elif kind == 'long' -%}
        cast({{ _mongo_wrapped(value, ['$numberLong', '$numberInt']) }} as bigint)
    {%- elif kind == 'double' -%}
        cast({{ _mongo_wrapped(value, ['$numberDouble', '$numberInt', '$numberLong']) }}
            as double)
    {%- elif kind == 'decimal' -%}
        cast({{ _mongo_wrapped(value, ['$numberDecimal']) }}
            as decimal(38, {{ doc_type.scale }}))
    {%- elif kind == 'oid' -%}
        {{ _mongo_wrapped(value, ['$oid']) }}
    {%- elif kind == 'date' -%}
        {{ _mongo_let(_mongo_member(value, '$date'), 'date' ~ n, "case
            when left(date" ~ n ~ ", 1) = '{'
                then timestamp_millis(cast(" ~ _mongo_member('date' ~ n, '$numberLong')
                    ~ " as bigint))
            when date" ~ n ~ " rlike '^-?[0-9]+$'
                then timestamp_millis(cast(date" ~ n ~ " as bigint))
            else cast(date" ~ n ~ " as timestamp)
        end") }}
    {%- elif kind in ('binary', 'uuid') -%}
        {%- set base64 = _mongo_let(_mongo_member(value, '$binary', false), 'bin' ~ n,
            "if(left(bin" ~ n ~ ", 1) = '{', " ~ _mongo_member('bin' ~ n, 'base64')
            ~ ", substr(bin" ~ n ~ ", 2))") -%}
        {%- if kind == 'binary' -%}
            unbase64({{ base64 }})
        {%- else -%}
            coalesce({{ _mongo_member(value, '$uuid') }}, regexp_replace(
                lower(hex(unbase64({{ base64 }}))),
                '^(.{8})(.{4})(.{4})(.{4})(.{12})$', '$1-$2-$3-$4-$5'
            ))
        {%- endif -%}
    {%- else -%}
        {#- json (types that conflict), null-only fields, empty documents:
            the value's JSON text -#}
        case
            when {{ value }} is null then null
            when left({{ value }}, 1) = 'S' then {{ _mongo_quote('substr(' ~ value ~ ', 2)') }}
            else {{ _mongo_compact(_mongo_untag(value)) }}
        end
    {%- endif -%}
{%- endmacro %}

{#- The text of member `name` of an extended-JSON wrapper (tagged): e.g.
    the digits of {"$numberLong": "12"}; `text` strips a string's tag. -#}
{% macro _mongo_member(value, name, text=true) -%}
    {%- set member = "get_json_object(" ~ value ~ ", '$[\\'S" ~ name ~ "\\']')" -%}
    {%- if text -%}
        {{ _mongo_text(member) }}
    {%- else -%}
        {{ member }}
    {%- endif -%}
{%- endmacro %}

{#- A scalar written plain (relaxed) or in one of the `wrappers`. -#}
{% macro _mongo_wrapped(value, wrappers) -%}
    case
        when left({{ value }}, 1) = '{' then coalesce(
            {%- for wrapper in wrappers %}
            {{ _mongo_member(value, wrapper) }}{{ "," if not loop.last }}
            {%- endfor %}
        )
        when left({{ value }}, 1) = 'S' then null
        else {{ value }}
    end
{%- endmacro %}
