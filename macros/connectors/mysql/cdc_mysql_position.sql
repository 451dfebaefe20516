{#- The MySQL connector's source position (see cdc_source_position): the
    binlog file's number (mysql-bin.000010 -> 10), pos, row. Empty when the
    source block has no file and pos (the default order applies). -#}
{% macro cdc_position__mysql(fields, source) -%}
    {%- set parts = [] -%}
    {%- if 'file' in fields and 'pos' in fields -%}
        {%- do parts.append("regexp_extract(" ~ source ~ ".file, '([0-9]+)$', 1)") -%}
        {%- do parts.append(source ~ '.pos') -%}
        {%- do parts.append(_cdc_present(fields, 'row', source, 'string')) -%}
    {%- endif -%}
    {{- return(parts) -}}
{%- endmacro %}
