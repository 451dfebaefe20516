{#- The value checks of cdc_debezium_events: a column whose text contradicts
    its schema, or cannot be read as its type, quarantines its record. -#}
{#- 'column a (declared int), ...' for the `columns` ({name: raw type})
    whose value in a row image of `value` its type cannot read, else null. -#}
{% macro _cdc_contradicted(spec, value, columns) -%}
    nullif({{ _cdc_unreadable_columns(spec, value, columns, ' (declared {type})') }}, '')
{%- endmacro %}

{#- The `columns` ({name: raw type}) whose value in a row image of `value`
    (spec.row_images: after / before unless the layout says; wrapped or not) that type
    cannot read, as text: 'column a<label>, column b<label>' ({type} in
    `label` stands for the column's type). Each image is read again one
    column at a time: evaluated for the records a check singled out. The
    images are cut out of the value once (bound to a lambda's argument),
    not once per column. -#}
{% macro _cdc_unreadable_columns(spec, value, columns, label='') -%}
    {%- set images = spec.get('row_images', ['after', 'before']) -%}
    element_at(transform(
        array(named_struct(
            {%- for image in images %}
            '{{ image }}', coalesce(
                get_json_object({{ value }}, '$.payload.{{ image }}'),
                get_json_object({{ value }}, '$.{{ image }}')
            ){{ ',' if not loop.last }}
            {%- endfor %}
        )),
        cdc_images -> concat_ws(', '
        {%- for name, raw_type in columns.items() %},
            if(
                {%- for image in images %}
                from_json(
                    cdc_images.{{ image }},
                    {{ cdc_string('struct<' ~ cdc_ident(name) ~ ': ' ~ raw_type ~ ', `_cdc_corrupt`: string>') }},
                    map('columnNameOfCorruptRecord', '_cdc_corrupt')
                )._cdc_corrupt is not null{{ ' or' if not loop.last }}
                {%- endfor %},
                {{ cdc_string('column ' ~ name ~ label | replace('{type}', raw_type)) }},
                null
            )
        {%- endfor %}
        )
    ), 1)
{%- endmacro %}

{#- The columns the verdicts of cdc_debezium_events read (its reason and
    its detail both do), computed once in a select below them from the
    record's columns (`record.`): `_cdc_contradiction`, the columns whose
    value contradicts the type the record's own schema version declares
    (_cdc_version_checks; a record of such a version only, else null), and
    `_cdc_mismatched`, the columns whose JSON type contradicts the generated
    schema (a record whose whole parse failed only). As expressions in each
    verdict they were most of a base model's SQL (up to 160 KB), which
    Spark analyses at every run (issue 54). -#}
{% macro _cdc_value_check_columns(spec, record) -%}
    {%- set checks = _cdc_version_checks(spec) -%}
    {%- if checks -%}
    case {{ record }}._schema_fingerprint
        {%- for version, columns in checks.items() %}
        when '{{ version }}'
            then {{ cdc_indent(_cdc_contradicted(spec, record ~ '.kafka_value', columns), 12) }}
        {%- endfor %}
    end as _cdc_contradiction,
    {% endif -%}
    if(
        {{ record }}._message._unparsed is not null
            and json_object_keys({{ record }}.kafka_value) is not null,
        nullif({{ cdc_indent(_cdc_mismatched_columns(record ~ '.kafka_value', spec), 8) }}, ''),
        null
    ) as _cdc_mismatched
{%- endmacro %}

{#- A Jinja text as the body of a SQL string literal. -#}
{% macro _cdc_sql_text(text) -%}
    {{- text | replace('\\', '\\\\') | replace("'", "\\'") -}}
{%- endmacro %}

{#- Row columns the JsonConverter writes as text of a form: base64 (bytes,
    Decimal) or a decimal number (Decimal with decimal.format=NUMERIC).
    from_json reads any JSON token into their string field, so a value of
    another form would otherwise decode to a wrong value or a null
    silently: such a record is quarantined as type_mismatch instead. -#}
{% macro _cdc_wire_text_columns(spec) -%}
    {{- return(spec.columns | selectattr('decoder', 'in', ['decimal', 'base64', 'number_decimal'])
        | list) -}}
{%- endmacro %}

{#- True when a wire-text column's text has its expected form (or is null). -#}
{% macro _cdc_wire_text_ok(expr, column) -%}
    {%- if column.decoder == 'number_decimal' -%}
        coalesce(
            {{ expr }} rlike '^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$'
            and try_cast({{ expr }} as {{ column.type }}) is not null,
            true
        )
    {%- else -%}
        {{ _cdc_is_base64(expr) }}
    {%- endif -%}
{%- endmacro %}

{% macro _cdc_is_base64(expr) -%}
    coalesce(
        {{ expr }} rlike '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
        true
    )
{%- endmacro %}
