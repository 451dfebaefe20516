{#- The MongoDB connector's source position (see cdc_source_position):
    source.ts_ms (seconds resolution), then source.ord (the operation's
    order within that second). -#}
{% macro cdc_position__mongodb(fields, source) -%}
    {{- return([
        _cdc_present(fields, 'ts_ms', source, 'string'),
        _cdc_present(fields, 'ord', source, 'string'),
    ]) -}}
{%- endmacro %}
