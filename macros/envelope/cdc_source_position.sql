{#-
    Returns an array<bigint> that orders the change events of one key in
    source order, the one place each connector's order is defined. Arrays
    compare element by element; a missing element is -1, so it sorts first.

    | connector            | position                                             |
    |----------------------|------------------------------------------------------|
    | postgresql, CDL      | source.lsn                                           |
    | sqlserver            | commit_lsn, change_lsn, event_serial_no; each LSN as |
    |                      | its three hex parts (00000027:00000758:0003 -> 39,   |
    |                      | 1880, 3): numbers, not text. A snapshot read has no  |
    |                      | change_lsn: it sorts before the commit's changes     |
    | mysql                | binlog file number (mysql-bin.000010 -> 10), pos,    |
    |                      | row                                                  |
    | mongodb              | source.ts_ms (seconds resolution), source.ord (the   |
    |                      | operation's order within that second)                |
    | any other            | source.ts_ms                                         |

    The Kafka offset is the last element, the tie-break among events the
    source puts at the same position (e.g. MySQL snapshot reads share one
    binlog position). Arrival order and ts_ms are never the primary order
    where the source gives a position.
-#}
{% macro cdc_source_position(spec, source, kafka_offset) %}
    {{- return(adapter.dispatch('cdc_source_position', 'cdc')(spec, source, kafka_offset)) -}}
{% endmacro %}

{% macro default__cdc_source_position(spec, source, kafka_offset) -%}
    {%- set fields = spec.source_fields or [] -%}
    {%- set parts = [] -%}
    {%- if spec.connector == 'sqlserver' and 'commit_lsn' in fields -%}
        {%- do parts.extend(_cdc_lsn_parts(source ~ '.commit_lsn')) -%}
        {%- set change_lsn = _cdc_present(fields, 'change_lsn', source, 'string') -%}
        {%- do parts.extend(_cdc_lsn_parts(change_lsn)) -%}
        {%- do parts.append(_cdc_present(fields, 'event_serial_no', source, 'string')) -%}
    {%- elif spec.connector == 'mysql' and 'file' in fields and 'pos' in fields -%}
        {%- do parts.append("regexp_extract(" ~ source ~ ".file, '([0-9]+)$', 1)") -%}
        {%- do parts.append(source ~ '.pos') -%}
        {%- do parts.append(_cdc_present(fields, 'row', source, 'string')) -%}
    {%- elif spec.connector == 'mongodb' -%}
        {%- do parts.append(_cdc_present(fields, 'ts_ms', source, 'string')) -%}
        {%- do parts.append(_cdc_present(fields, 'ord', source, 'string')) -%}
    {%- elif 'lsn' in fields -%}
        {%- do parts.append(source ~ '.lsn') -%}
    {%- elif 'ts_ms' in fields -%}
        {%- do parts.append(source ~ '.ts_ms') -%}
    {%- endif -%}
    array(
        {%- for part in parts %}
        coalesce(cast({{ part }} as bigint), -1),
        {%- endfor %}
        cast({{ kafka_offset }} as bigint)
    )
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

{#- `_cdc_source_<field>` in snake case (txId -> _cdc_source_tx_id). -#}
{% macro cdc_source_column_name(field) -%}
    _cdc_source_{{ modules.re.sub('([a-z0-9])([A-Z])', '\\1_\\2', field) | lower }}
{%- endmacro %}
