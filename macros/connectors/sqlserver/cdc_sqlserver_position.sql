{#- The SQL Server connector's source position (see cdc_source_position):
    commit_lsn, change_lsn, event_serial_no, each LSN as its three hex parts
    (00000027:00000758:0003 -> 39, 1880, 3): numbers, not text. A snapshot
    read has no change_lsn: it sorts before the commit's changes. Empty
    when the source block has no commit_lsn (the default order applies). -#}
{% macro cdc_position__sqlserver(fields, source) -%}
    {%- set parts = [] -%}
    {%- if 'commit_lsn' in fields -%}
        {%- do parts.extend(_cdc_lsn_parts(source ~ '.commit_lsn')) -%}
        {%- do parts.extend(_cdc_lsn_parts(_cdc_present(fields, 'change_lsn', source, 'string'))) -%}
        {%- do parts.append(_cdc_present(fields, 'event_serial_no', source, 'string')) -%}
    {%- endif -%}
    {{- return(parts) -}}
{%- endmacro %}

{#- A SQL Server LSN (three hex parts separated by colons) as three bigint
    expressions. -#}
{% macro _cdc_lsn_parts(lsn) -%}
    {%- set parts = [] -%}
    {%- for index in range(3) -%}
        {%- do parts.append("conv(get(split(" ~ lsn ~ ", ':'), " ~ index ~ "), 16, 10)") -%}
    {%- endfor -%}
    {{- return(parts) -}}
{%- endmacro %}
