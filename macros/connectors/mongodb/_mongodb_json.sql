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

{#- The value at `component` of the container `text` (null if absent). -#}
{% macro _mongo_child(text, component) -%}
    case
        when left({{ text }}, 1) = '{'
            then try_element_at(from_json({{ text }}, 'map<string,string>'), {{ component }})
        when left({{ text }}, 1) = '[' and {{ _mongo_is_index(component) }}
            then try_element_at(
                from_json({{ text }}, 'array<string>'), {{ _mongo_index(component) }} + 1
            )
    end
{%- endmacro %}

{#- The container `text` with `component` set to `value` (a field set in
    place or appended; an array element set, the array padded with nulls;
    a missing container becomes a document, as MongoDB does). -#}
{% macro _mongo_put(text, component, value, n) -%}
    case
        when left({{ text }}, 1) = '[' and {{ _mongo_is_index(component) }}
            then {{ _mongo_let("from_json(" ~ text ~ ", 'array<string>')", 'a' ~ n,
                _mongo_array_text(
                    "transform(sequence(0, greatest(size(a" ~ n ~ "), "
                    ~ _mongo_index(component) ~ " + 1) - 1), i" ~ n ~ " -> if(i" ~ n
                    ~ " = " ~ _mongo_index(component) ~ ", " ~ value
                    ~ ", try_element_at(a" ~ n ~ ", i" ~ n ~ " + 1)))", n ~ 'a')) }}
        else {{ _mongo_let(_mongo_entries(text), 'o' ~ n, _mongo_object_text(
            "if(exists(o" ~ n ~ ", x" ~ n ~ " -> x" ~ n ~ ".key = " ~ component ~ "), "
            ~ "transform(o" ~ n ~ ", x" ~ n ~ " -> if(x" ~ n ~ ".key = " ~ component
            ~ ", named_struct('key', " ~ component ~ ", 'value', " ~ value ~ "), x" ~ n ~ ")), "
            ~ "concat(o" ~ n ~ ", array(named_struct('key', " ~ component ~ ", 'value', "
            ~ value ~ "))))", n ~ 'o')) }}
    end
{%- endmacro %}

{#- The container `text` without `component` (an array element is set to
    null, as $unset does). -#}
{% macro _mongo_remove(text, component, n) -%}
    case
        when left({{ text }}, 1) = '{'
            then {{ _mongo_object_text(
                "filter(" ~ _mongo_entries(text) ~ ", x" ~ n ~ " -> x" ~ n ~ ".key != "
                ~ component ~ ")", n ~ 'r') }}
        when left({{ text }}, 1) = '[' and {{ _mongo_is_index(component) }}
            and {{ _mongo_index(component) }} < size(from_json({{ text }}, 'array<string>'))
            then {{ _mongo_put(text, component, 'cast(null as string)', n ~ 'n') }}
        else {{ text }}
    end
{%- endmacro %}

{#- The containers along `path` in `document`: [document, child 1, ...],
    without the last component's value. -#}
{% macro _mongo_containers(document, path, n) -%}
    aggregate(
        slice({{ path }}, 1, size({{ path }}) - 1),
        array({{ document }}),
        (c{{ n }}, p{{ n }}) -> concat(c{{ n }}, array(
            {{ _mongo_child('element_at(c' ~ n ~ ', -1)', 'p' ~ n) }}
        ))
    )
{%- endmacro %}

{#- The value at `path` in `document`, or null. -#}
{% macro _mongo_get_path(document, path, n) -%}
    aggregate({{ path }}, {{ document }}, (t{{ n }}, p{{ n }}) ->
        {{ _mongo_child('t' ~ n, 'p' ~ n) }})
{%- endmacro %}

{#- `document` with `value` set at `path`, rebuilt from the innermost
    container outwards. `value` must be a plain name or field. -#}
{% macro _mongo_set_path(document, path, value, n) -%}
    {{ _mongo_let(_mongo_containers(document, path, n), 'k' ~ n,
        "aggregate(sequence(size(" ~ path ~ "), 1, -1), " ~ value ~ ", (v" ~ n ~ ", j" ~ n
        ~ ") -> " ~ _mongo_put('element_at(k' ~ n ~ ', j' ~ n ~ ')',
            'element_at(' ~ path ~ ', j' ~ n ~ ')', 'v' ~ n, n ~ 's') ~ ")") }}
{%- endmacro %}

{#- `document` without the value at `path`; unchanged if a container on
    the way is missing. -#}
{% macro _mongo_unset_path(document, path, n) -%}
    {{ _mongo_let(_mongo_containers(document, path, n), 'k' ~ n,
        "if(exists(k" ~ n ~ ", y" ~ n ~ " -> y" ~ n ~ " is null), " ~ document ~ ", "
        ~ "aggregate(sequence(size(" ~ path ~ "), 1, -1), cast(null as string), (v" ~ n
        ~ ", j" ~ n ~ ") -> if(j" ~ n ~ " = size(" ~ path ~ "), "
        ~ _mongo_remove('element_at(k' ~ n ~ ', j' ~ n ~ ')',
            'element_at(' ~ path ~ ', j' ~ n ~ ')', n ~ 'r') ~ ", "
        ~ _mongo_put('element_at(k' ~ n ~ ', j' ~ n ~ ')',
            'element_at(' ~ path ~ ', j' ~ n ~ ')', 'v' ~ n, n ~ 'u') ~ ")))") }}
{%- endmacro %}

{#- `document` with the array at `path` cut to `size` elements. -#}
{% macro _mongo_truncate_path(document, path, size, n) -%}
    {{ _mongo_let(_mongo_get_path(document, path, n ~ 'g'), 'w' ~ n,
        "if(left(w" ~ n ~ ", 1) = '[', " ~ _mongo_let(
            _mongo_array_text("slice(from_json(w" ~ n ~ ", 'array<string>'), 1, "
                ~ size ~ ")", n ~ 'e'),
            'z' ~ n, _mongo_set_path(document, path, 'z' ~ n, n ~ 't')) ~ ", "
        ~ document ~ ")") }}
{%- endmacro %}

{#- `document` after one update operation `op` (struct: op set / unset /
    truncate, path, value, size). -#}
{% macro _mongo_apply(document, op, n) -%}
    case {{ op }}.op
        when 'set' then {{ _mongo_set_path(document, op ~ '.path', op ~ '.value', n ~ 'S') }}
        when 'unset' then {{ _mongo_unset_path(document, op ~ '.path', n ~ 'U') }}
        when 'truncate'
            then {{ _mongo_truncate_path(document, op ~ '.path', op ~ '.size', n ~ 'T') }}
        else {{ document }}
    end
{%- endmacro %}

{#- A dotted path as tagged components (`tagged`: the path text is itself
    tagged, as a key read from a tagged document is). -#}
{% macro _mongo_path(text, tagged=false) -%}
    transform(
        split({{ 'substr(' ~ text ~ ', 2)' if tagged else text }}, '\\.'),
        q -> concat('S', q)
    )
{%- endmacro %}
