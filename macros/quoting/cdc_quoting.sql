{#-
    Text from the data (column and field names, table names, anything a
    captured table's owner chose) written into SQL as data, never pasted:
    the Jinja twins of python_helpers/escaping.py (docs/guarantees.md).
-#}

{#- `name` as a Spark SQL identifier: backquoted, backquotes doubled. -#}
{% macro cdc_ident(name) -%}
    `{{ name | replace('`', '``') }}`
{%- endmacro %}

{#- `text` as a Spark SQL string literal: backslashes and quotes escaped,
    and every line break and control character (`\n`, VT, FF, NEL,
    U+2028, ...: whatever splits a line) written as an escape, so no text
    filter can cut it (Spark reads backslash escapes in literals). The
    twin of escaping.UNSAFE_IN_LITERALS. -#}
{% macro cdc_string(text) -%}
    {%- set escaped = text | string | replace('\\', '\\\\') | replace("'", "\\'") -%}
    {%- set unsafe = '[\x00-\x1f\x7f-\x9f\u2028\u2029]' -%}
    {%- if modules.re.search(unsafe, escaped) -%}
        {%- set short = {'\n': '\\n', '\r': '\\r', '\t': '\\t'} -%}
        {%- set parts = [] -%}
        {%- for char in escaped -%}
            {%- if modules.re.match(unsafe, char) -%}
                {%- do parts.append(short.get(char) or '\\u' ~ char.encode('utf-16-be').hex()) -%}
            {%- else -%}
                {%- do parts.append(char) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set escaped = parts | join('') -%}
    {%- endif -%}
    '{{ escaped }}'
{%- endmacro %}

{#- `text` with `width` spaces after each `\n`, an empty line left empty:
    Jinja's `indent` filter for generated SQL that holds names from the
    data. `indent` breaks lines wherever Python's `splitlines` does (VT,
    FF, NEL, U+2028, ...), so it put spaces inside a backquoted name that
    held one (issue 53); this breaks at `\n` only. -#}
{% macro cdc_indent(text, width) -%}
    {%- set pad = ' ' * width -%}
    {%- for line in (text | string).split('\n') -%}
        {{- '\n' if not loop.first -}}{{- pad if line and not loop.first -}}{{- line -}}
    {%- endfor -%}
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
