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

{#- True for the columns the project adds to a topic's rows (`_cdc_*`,
    `_kafka_*`, `_landing_*`, `_quarantine_*`, `_landed_at`, `_staged_at`),
    false for a source column, whatever its name: a source column named
    like these is renamed by sync (python_helpers/schema/column_names.py),
    so `_id` or `_private` are values like any other. -#}
{% macro cdc_is_metadata_column(name) -%}
    {%- set lowered = name | lower -%}
    {{- return(lowered.startswith(('_cdc_', '_kafka_', '_landing_', '_quarantine_'))
        or lowered in ('_landed_at', '_staged_at')) -}}
{%- endmacro %}
