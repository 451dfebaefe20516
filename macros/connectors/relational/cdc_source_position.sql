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

    A connector whose position is its own has the macro
    `cdc_position__<connector>(fields, source)` in
    macros/connectors/<connector>/, returning the parts (empty: the default
    below applies); the others use source.lsn, else source.ts_ms.

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
    {%- set by_connector = context.get('cdc_position__' ~ spec.connector) -%}
    {%- set parts = by_connector(fields, source) if by_connector is not none else [] -%}
    {%- if not parts and 'lsn' in fields -%}
        {%- set parts = [source ~ '.lsn'] -%}
    {%- elif not parts and 'ts_ms' in fields -%}
        {%- set parts = [source ~ '.ts_ms'] -%}
    {%- endif -%}
    array(
        {%- for part in parts %}
        coalesce(cast({{ part }} as bigint), -1),
        {%- endfor %}
        cast({{ kafka_offset }} as bigint)
    )
{%- endmacro %}

{#- `_cdc_source_<field>` in snake case (txId -> _cdc_source_tx_id). -#}
{% macro cdc_source_column_name(field) -%}
    _cdc_source_{{ modules.re.sub('([a-z0-9])([A-Z])', '\\1_\\2', field) | lower }}
{%- endmacro %}
