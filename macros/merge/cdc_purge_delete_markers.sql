{#-
    Operation: delete the delete markers (rows with `_cdc_op = 'd'`) older
    than `older_than_days` from every `__state` table (models configured
    `cdc_delete_markers=true`), or from the one named by `model`.

      dbt run-operation cdc_purge_delete_markers --args '{older_than_days: 30}'

    A marker's age is its delete's source commit time (its landing time when
    the source gives none). Purge only markers older than anything that can
    still arrive (the topic's Kafka retention, the oldest landing you may
    replay): an event of a purged key older than its delete would bring the
    key back. Markers are kept until purged; nothing purges them on its own.

    Arguments:
      older_than_days (int): age, in days, of the markers to delete (>= 0).
      model (string, optional): the name of one `__state` model.
-#}
{% macro cdc_purge_delete_markers(older_than_days, model=none) %}
    {%- set days = older_than_days | int -%}
    {%- if days < 0 -%}
        {{ exceptions.raise_compiler_error(
            'cdc_purge_delete_markers: older_than_days must be >= 0, got ' ~ older_than_days) }}
    {%- endif -%}
    {%- set purged = [] -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'model' and node.config.get('cdc_delete_markers', false)
            and (model is none or node.name == model) -%}
            {%- set relation = adapter.get_relation(
                database=node.database, schema=node.schema, identifier=node.alias) -%}
            {%- if relation is not none -%}
                {%- do run_query(
                    "delete from " ~ relation ~ " where _cdc_op = 'd' and"
                    ~ " coalesce(_cdc_source_committed_at, _landed_at)"
                    ~ " < current_timestamp() - make_interval(0, 0, 0, " ~ days ~ ")") -%}
                {%- do purged.append(node.name) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if model is not none and not purged -%}
        {{ exceptions.raise_compiler_error(
            'cdc_purge_delete_markers: no built __state model named ' ~ model) }}
    {%- endif -%}
    {{ log('purged delete markers older than ' ~ days ~ ' days from ' ~ (purged | length)
        ~ ' table(s): ' ~ (purged | join(', ')), info=true) }}
{% endmacro %}
