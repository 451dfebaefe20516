{#-
    Project override of dbt's `run_query`: a statement that returns no rows
    (create, insert, drop, ...) is run without fetching a result.

    Why: through a Spark Thrift server (the `cluster` target, PyHive), a
    statement without rows still reports a result set; fetching it fails
    with "'NoneType' object is not iterable". dbt's unit-test
    materialization runs its `create table ... as` through `run_query`, so
    every unit test failed on a server (dbt-labs/dbt-adapters#481, open).
    On the embedded Spark both forms give the same empty table.
-#}
{% macro run_query(sql) %}
    {%- set returns_rows = modules.re.match(
        '\\s*(create|insert|drop|alter|merge|delete|update|truncate|refresh|use|cache|uncache)\\b',
        sql | string,
        modules.re.IGNORECASE
    ) is none -%}
    {% call statement("run_query_statement", fetch_result=returns_rows, auto_begin=false) %}
        {{ sql }}
    {% endcall %}
    {{ return(load_result("run_query_statement").table) }}
{% endmacro %}
