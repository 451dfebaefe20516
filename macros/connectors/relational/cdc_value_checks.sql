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
    `label` stands for the column's type), in the order of `columns`; ''
    when none is. Evaluated for the records a check singled out. -#}
{% macro _cdc_unreadable_columns(spec, value, columns, label='') -%}
    {%- set names = _cdc_unreadable_names(spec, value, columns) -%}
    {%- if not label -%}
    coalesce(concat('column ', nullif(array_join({{ cdc_indent(names, 4) }}, ', column '), '')), '')
    {%- else -%}
    element_at(transform(
        array({{ cdc_indent(names, 8) }}),
        cdc_unreadable -> concat_ws(', ', transform(
            filter(
                array(
                    {%- for name, raw_type in columns.items() %}
                    named_struct('name', {{ cdc_string(name) }}, 'label', {{
                        cdc_string('column ' ~ name ~ label | replace('{type}', raw_type)) }}){{
                        ',' if not loop.last }}
                    {%- endfor %}
                ),
                cdc_column -> array_contains(cdc_unreadable, cdc_column.name)
            ),
            cdc_column -> cdc_column.label
        ))
    ), 1)
    {%- endif -%}
{%- endmacro %}

{#- The names of _cdc_unreadable_columns, as an array in the order of
    `columns`. Written so that Spark analyses little of it and a person can
    read it (issue 71): one lambda over the row images (each schema string
    written once, whatever the number of images), and each image read twice
    whatever the number of columns: as a struct of the columns of a flat
    type with their types, and with every field a string (which reads any
    JSON value). A column is unreadable when the second read has it (not
    JSON null) and the first does not: Spark's JSON reader leaves a field
    its type cannot read null and reads the fields after it (a top-level
    field, with or without `spark.sql.json.enablePartialResults`). A column
    of a nested type (struct, array, map) is read alone, as a failure inside
    a nested value can stop the reading of the fields after it, and so is
    each of one or two columns (fewer expressions than the two reads); an
    image that is not a JSON object fails every column. -#}
{% macro _cdc_unreadable_names(spec, value, columns) -%}
    {%- set images = spec.get('row_images', ['after', 'before']) -%}
    {%- set flat = {} -%}
    {%- set as_text = {} -%}
    {%- set alone = {} -%}
    {%- for name, raw_type in columns.items() -%}
        {%- if raw_type.startswith(('struct<', 'array<', 'map<')) or columns | length <= 2 -%}
            {%- do alone.update({name: raw_type}) -%}
        {%- else -%}
            {%- do flat.update({name: raw_type}) -%}
            {%- do as_text.update({name: 'string'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set quoted = [] -%}
    {%- for name in columns -%}{%- do quoted.append(cdc_string(name)) -%}{%- endfor -%}
    {%- set all_names = 'array(' ~ (quoted | join(', ')) ~ ')' -%}
    array_intersect({{ all_names }}, flatten(transform(
        array(
            {%- for image in images %}
            {{ _cdc_image_text(value, image) }}{{ ',' if not loop.last }}
            {%- endfor %}
        ),
        cdc_image -> if(
            cdc_image is not null and json_object_keys(cdc_image) is null,
            {{ all_names }},
            concat(
                {%- if flat %}
                coalesce(array_except(
                    json_object_keys(to_json(
                        from_json(cdc_image, {{ cdc_string(_cdc_struct_of(as_text)) }}),
                        map('ignoreNullFields', 'true')
                    )),
                    json_object_keys(to_json(
                        from_json(
                            cdc_image, {{ cdc_string(_cdc_struct_of(flat)) }},
                            map('columnNameOfCorruptRecord', '_cdc_corrupt')
                        ),
                        map('ignoreNullFields', 'true')
                    ))
                ), array()),
                {%- endif %}
                {%- for name, raw_type in alone.items() %}
                if(from_json(
                    cdc_image, {{ cdc_string(_cdc_struct_of({name: raw_type})) }},
                    map('columnNameOfCorruptRecord', '_cdc_corrupt')
                )._cdc_corrupt is not null, array({{ cdc_string(name) }}), array()),
                {%- endfor %}
                array()
            )
        )
    )))
{%- endmacro %}

{#- A row image (`image`: after, before) of the landed `value`, as JSON
    text: in the JsonConverter's payload or at the top. -#}
{% macro _cdc_image_text(value, image) -%}
    coalesce(get_json_object({{ value }}, '$.payload.{{ image }}'), get_json_object({{ value }}, '$.{{ image }}'))
{%- endmacro %}

{#- The from_json type of a struct of `columns` ({name: raw type}) and the
    corrupt-record field `_cdc_corrupt`. -#}
{% macro _cdc_struct_of(columns) -%}
    {%- set fields = [] -%}
    {%- for name, raw_type in columns.items() -%}
        {%- do fields.append(cdc_ident(name) ~ ': ' ~ raw_type) -%}
    {%- endfor -%}
    {{- 'struct<' ~ (fields | join(', ')) ~ ', `_cdc_corrupt`: string>' -}}
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
