{#-
    Returns the generated spec of one topic (value/key DDL, row columns,
    primary key, source fields) from its own generated file,
    macros/generated/topics/<topic>.sql (macro _cdc_spec_ + the md5 of the
    topic), or stops with an error that says how to generate it. Only that
    topic's spec is read: parsing stays linear in the number of topics.
-#}
{% macro cdc_topic_spec(topic) %}
    {%- set spec_macro = context.get('_cdc_spec_' ~ local_md5(topic)[:16]) -%}
    {%- if spec_macro is none -%}
        {{ exceptions.raise_compiler_error(
            "no generated schema for topic '" ~ topic ~ "': land it and run "
            ~ "`python -m python_helpers sync` (or `make run`)") }}
    {%- endif -%}
    {{ return(spec_macro()) }}
{% endmacro %}
