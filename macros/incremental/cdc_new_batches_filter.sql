{#-
    Returns the predicate an incremental CDC model reads its input with:
    `<column> > <newest _landing_batch already in this model>`, the newest
    batch spelled out as a literal (looked up when the model runs), so that
    Spark pushes it into the Iceberg scan and every data file holding only
    older batches is skipped by its statistics. `true` on a first build or
    a full refresh. `lower_bound` overrides the lookup (e.g. a watermark
    taken once for two statements).
-#}
{% macro cdc_new_batches_filter(column, lower_bound=none) %}
    {{- return(adapter.dispatch('cdc_new_batches_filter', 'cdc')(column, lower_bound)) -}}
{% endmacro %}

{% macro default__cdc_new_batches_filter(column, lower_bound) -%}
    {%- set bound = lower_bound if lower_bound is not none else cdc_merged_batch_watermark() -%}
    {%- if bound is none -%}
        true
    {%- else -%}
        {{ column }} > {{ bound }}
    {%- endif -%}
{%- endmacro %}

{#- The newest `_landing_batch` in the model being built (`this`), or none
    on a first build, a full refresh or while dbt only parses: from the
    model's one look-up statement (cdc_lookup). -#}
{% macro cdc_merged_batch_watermark() -%}
    {%- if not (execute and is_incremental()) -%}
        {{- return(none) -}}
    {%- endif -%}
    {{- return(cdc_lookup().watermark) -}}
{%- endmacro %}

{#- The start of this dbt invocation as a timestamp literal (UTC): the
    `_staged_at` of every row a run writes. -#}
{% macro cdc_staged_at() -%}
    cast('{{ run_started_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ") }}' as timestamp)
{%- endmacro %}
