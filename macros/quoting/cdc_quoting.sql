{#-
    Text from the data (column and field names, table names, anything a
    captured table's owner chose) written into SQL as data, never pasted:
    the Jinja twins of python_helpers/escaping.py (docs/guarantees.md).
-#}

{#- `name` as a Spark SQL identifier: backquoted, backquotes doubled. -#}
{% macro cdc_ident(name) -%}
    `{{ name | replace('`', '``') }}`
{%- endmacro %}

{#- `text` as a Spark SQL string literal: backslashes, quotes and line
    breaks escaped (Spark reads backslash escapes in literals). -#}
{% macro cdc_string(text) -%}
    '{{ text | string | replace('\\', '\\\\') | replace("'", "\\'")
        | replace('\n', '\\n') | replace('\r', '\\r') }}'
{%- endmacro %}
