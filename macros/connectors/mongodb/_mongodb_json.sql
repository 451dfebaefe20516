{#-
    Private helpers of the MongoDB macros: editing extended-JSON documents
    in Spark SQL, so that patches replay in plain SQL (no UDF: the same
    models run on a Thrift server or Databricks).

    Documents are handled as *tagged* JSON text: every JSON string token
    "abc" is rewritten "Sabc" (_mongo_tag). Spark's from_json reads any
    value into a string field as its JSON text, but a string value without
    its quotes, so "1" and 1 would look alike; tagged, a string always reads
    as S..., and any other value starts with one of { [ - 0-9 t f n. Keys
    are tagged too. _mongo_untag turns a tagged text back into JSON.

    A path is an array of tagged components (address.city ->
    ['Saddress', 'Scity']); a numeric component under an array addresses
    an element. Every helper takes `n`, a suffix that keeps the names of its
    lambda variables apart from those of the expressions around it.
-#}

{#- The string-token pattern: a quote, then runs of anything but a quote
    or backslash or one escaped character, then a quote. Scanned left to
    right over valid JSON, it matches exactly the string tokens. -#}
{% macro _mongo_string_token() -%}
    "((?:[^"\\\\]++|\\\\.)*+)"
{%- endmacro %}

{% macro _mongo_tag(text) -%}
    regexp_replace({{ text }}, '{{ _mongo_string_token() }}', '"S$1"')
{%- endmacro %}

{% macro _mongo_untag(text) -%}
    regexp_replace({{ text }}, '"S{{ _mongo_string_token()[1:] }}', '"$1"')
{%- endmacro %}

{#- JSON text without whitespace outside strings. -#}
{% macro _mongo_compact(text) -%}
    regexp_replace({{ text }}, '("(?:[^"\\\\]++|\\\\.)*+")|\\s+', '$1')
{%- endmacro %}

{#- A text as a JSON string token (quotes and escapes). -#}
{% macro _mongo_quote(text) -%}
    regexp_extract(to_json(array({{ text }})), '^\\[(.*)\\]$', 1)
{%- endmacro %}

{#- A value as from_json reads it (tagged string without quotes, any other
    value as its JSON text, null) back to its tagged JSON token. -#}
{% macro _mongo_token(value) -%}
    case
        when {{ value }} is null then 'null'
        when left({{ value }}, 1) = 'S' then {{ _mongo_quote(value) }}
        else {{ value }}
    end
{%- endmacro %}

{#- A string value's text (tag removed); any other value as it is. -#}
{% macro _mongo_text(value) -%}
    if(left({{ value }}, 1) = 'S', substr({{ value }}, 2), {{ value }})
{%- endmacro %}

{#- `body` with `name` bound to the value of `expr` (evaluated once). -#}
{% macro _mongo_let(expr, name, body) -%}
    element_at(transform(array({{ expr }}), {{ name }} -> {{ body }}), 1)
{%- endmacro %}

{% macro _mongo_is_index(component) -%}
    substr({{ component }}, 2) rlike '^[0-9]+$'
{%- endmacro %}

{% macro _mongo_index(component) -%}
    cast(substr({{ component }}, 2) as int)
{%- endmacro %}

{% macro _mongo_entries(text) -%}
    coalesce(
        map_entries(from_json({{ text }}, 'map<string,string>')),
        cast(array() as array<struct<key: string, value: string>>)
    )
{%- endmacro %}

{% macro _mongo_object_text(entries, n) -%}
    concat('{', array_join(transform({{ entries }}, e{{ n }} -> concat(
        {{ _mongo_quote('e' ~ n ~ '.key') }}, ':', {{ _mongo_token('e' ~ n ~ '.value') }}
    )), ','), '}')
{%- endmacro %}

{% macro _mongo_array_text(elements, n) -%}
    concat('[', array_join(transform({{ elements }}, e{{ n }} ->
        {{ _mongo_token('e' ~ n) }}), ','), ']')
{%- endmacro %}

{#- The Spark type of a parsed container (see _mongo_container). -#}
{% macro _mongo_container_type() -%}
    struct<text: string, fields: array<struct<key: string, value: string>>, items: array<string>>
{%- endmacro %}

{#- A container (document or array) parsed once: its tagged text, its
    fields in order (a document) or its elements (an array); both null for
    a missing or scalar value. -#}
{% macro _mongo_container(text) -%}
    named_struct(
        'text', {{ text }},
        'fields', map_entries(from_json({{ text }}, 'map<string,string>')),
        'items', from_json({{ text }}, 'array<string>')
    )
{%- endmacro %}

{#- The value at `component` of a parsed container (null if absent). -#}
{% macro _mongo_child(container, component) -%}
    case
        when {{ container }}.fields is not null
            then try_element_at(
                filter({{ container }}.fields, x -> x.key = {{ component }}), 1
            ).value
        when {{ container }}.items is not null and {{ _mongo_is_index(component) }}
            then try_element_at({{ container }}.items, {{ _mongo_index(component) }} + 1)
    end
{%- endmacro %}

{#- The parsed containers along `path` in `document`, outermost first
    (without the value at the last component). -#}
{% macro _mongo_containers(document, path) -%}
    aggregate(
        slice({{ path }}, 1, size({{ path }}) - 1),
        array({{ _mongo_container(document) }}),
        (k, p) -> concat(k, array(
            {{ _mongo_container(_mongo_child('element_at(k, -1)', 'p')) }}
        ))
    )
{%- endmacro %}

{#- The new text of a parsed container with `component` set to `value`, or
    removed when `remove` holds: a field is set in place or appended, or
    dropped; an array element is set (the array padded with nulls) or, on
    removal, set to null as $unset does; a missing container becomes a
    document, as MongoDB creates it. -#}
{% macro _mongo_put(container, component, value, remove) -%}
    case
        when {{ container }}.items is not null and {{ _mongo_is_index(component) }}
            then if(
                {{ remove }} and {{ _mongo_index(component) }} >= size({{ container }}.items),
                {{ container }}.text,
                {{ _mongo_array_text(
                    "transform(sequence(0, greatest(size(" ~ container ~ ".items), "
                    ~ _mongo_index(component) ~ " + 1) - 1), i -> if(i = "
                    ~ _mongo_index(component) ~ ", if(" ~ remove ~ ", null, " ~ value
                    ~ "), try_element_at(" ~ container ~ ".items, i + 1)))", 'a') }}
            )
        when {{ remove }}
            then coalesce({{ _mongo_object_text(
                "filter(" ~ container ~ ".fields, x -> x.key != " ~ component ~ ")", 'r') }},
                {{ container }}.text)
        else {{ _mongo_object_text(
            "if(exists(" ~ container ~ ".fields, x -> x.key = " ~ component ~ "), "
            ~ "transform(" ~ container ~ ".fields, x -> if(x.key = " ~ component
            ~ ", named_struct('key', " ~ component ~ ", 'value', " ~ value ~ "), x)), "
            ~ "concat(coalesce(" ~ container ~ ".fields, cast(array() as "
            ~ "array<struct<key: string, value: string>>)), array(named_struct('key', "
            ~ component ~ ", 'value', " ~ value ~ "))))", 'o') }}
    end
{%- endmacro %}

{#- Applying update operations (struct: op set / unset / truncate, path,
    value, size) to a tagged document, in order. Each operation is three
    steps of one fold, so that no expression nests deeper than one step
    (the SQL stays readable by Spark's and sqlfluff's parsers):
      1 descend: the parsed containers along the path;
      2 leaf:    the new value at the path (set: the value; truncate: the
                 array cut to `size`; unset: none);
      3 rebuild: the containers re-serialised from the innermost outwards
                 (an unset whose container is missing changes nothing).
    Returns the tagged document. -#}
{% macro _mongo_apply_operations(document, operations) -%}
    {%- set scratch = 'array<' ~ _mongo_container_type() ~ '>' -%}
    aggregate(
        flatten(transform({{ operations }}, o -> array(
            named_struct('step', 1, 'op', o),
            named_struct('step', 2, 'op', o),
            named_struct('step', 3, 'op', o)
        ))),
        named_struct(
            'doc', {{ document }},
            'k', cast(null as {{ scratch }}),
            'leaf', cast(null as string)
        ),
        (acc, s) -> case s.step
            when 1 then named_struct(
                'doc', acc.doc,
                'k', {{ _mongo_containers('acc.doc', 's.op.path') }},
                'leaf', cast(null as string)
            )
            when 2 then named_struct(
                'doc', acc.doc,
                'k', acc.k,
                'leaf', case s.op.op
                    when 'set' then s.op.value
                    when 'truncate' then {{ _mongo_let(
                        _mongo_child('element_at(acc.k, -1)', 'element_at(s.op.path, -1)'),
                        'w', "coalesce(" ~ _mongo_array_text(
                            "slice(from_json(w, 'array<string>'), 1, s.op.size)", 't')
                        ~ ", w)") }}
                end
            )
            else named_struct(
                'doc', if(
                    s.op.op = 'unset' and exists(acc.k, y -> y.text is null),
                    acc.doc,
                    aggregate(
                        sequence(size(s.op.path), 1, -1),
                        acc.leaf,
                        (v, j) -> {{ _mongo_put('element_at(acc.k, j)',
                            'element_at(s.op.path, j)', 'v',
                            "(j = size(s.op.path) and s.op.op = 'unset')") }}
                    )
                ),
                'k', cast(null as {{ scratch }}),
                'leaf', cast(null as string)
            )
        end
    ).doc
{%- endmacro %}

{#- A dotted path as tagged components (`tagged`: the path text is itself
    tagged, as a key read from a tagged document is). -#}
{% macro _mongo_path(text, tagged=false) -%}
    transform(
        split({{ 'substr(' ~ text ~ ', 2)' if tagged else text }}, '\\.'),
        q -> concat('S', q)
    )
{%- endmacro %}
