{#-
    Returns the generated spec of one topic (value/key DDL, row columns,
    primary key, source fields) from cdc_topic_schemas(), or stops with an
    error that says how to generate it.
-#}
{% macro cdc_topic_spec(topic) %}
    {%- set topics = cdc_topic_schemas() -%}
    {%- if topic not in topics -%}
        {{ exceptions.raise_compiler_error(
            "no generated schema for topic '" ~ topic ~ "': land it and run "
            ~ "`python -m python_helpers sync` (or `make run`)") }}
    {%- endif -%}
    {{ return(topics[topic]) }}
{% endmacro %}
