"""Print where the results are and a few rows of the current-state tables.

Goes through the target's SQL engine (``sql_engine``), like the landing and
`export`: the embedded Spark by default, the Thrift server with
``CDC_DBT_TARGET=cluster``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from python_helpers.engine.dbt_target import target_path
from python_helpers.engine.export import column_types
from python_helpers.engine.sql_engine import SqlEngine, each_at_once, first_value, open_engine
from python_helpers.escaping import spark_identifier, spark_string

CURRENT_SCHEMA = "cdc_current"
# metadata columns shown after a table's own (first) columns
SHOWN_METADATA = ("_cdc_op", "_cdc_source_committed_at")
MAX_COLUMNS = 8
# the tables a run's `--show` prints at most (`run --show-tables N`): at
# 500 topics, every table's count and rows would take minutes
SHOWN_TABLES = 20
MAX_WIDTH = 40


def show_results(
    project: Path,
    rows: int = 5,
    engine: SqlEngine | None = None,
    only: set[str] | None = None,
    tables_at_most: int | None = None,
) -> str:
    """A readable summary of the warehouse after a run: the current-state
    tables and views (not the `__state` tables behind them; with ``only``,
    those of these names; with ``tables_at_most``, the first that many by
    name, saying how many more there are), each with its row count and its
    first ``rows`` rows."""
    engine = engine or open_engine(project)
    lines = [
        engine.where(),
        "query it: source .venv/bin/activate && export DBT_PROFILES_DIR=profiles"
        " && dbt show --select <model>",
    ]
    tables = current_tables(engine)
    if not tables:
        lines.append(
            f"no current-state table yet in {CURRENT_SCHEMA} (a topic without a key has"
            " staging models only, in cdc_staging: declare its primary_key to merge it)"
        )
    if only is not None:
        shown_tables = [t for t in tables if t in only]
        lines.append(
            f"(the {len(shown_tables)} built by this run; {len(tables) - len(shown_tables)}"
            " others unchanged: `python -m python_helpers show` prints them all)"
        )
        tables = shown_tables
    if tables_at_most is not None and len(tables) > tables_at_most:
        lines.append(
            f"(the first {tables_at_most} of {len(tables)} by name: `python -m python_helpers"
            " show` prints them all, `run --show-tables N` more of them)"
        )
        tables = tables[:tables_at_most]
    for table_lines in each_at_once(engine, lambda t: _table_lines(engine, t, rows), tables):
        lines.extend(table_lines)
    return "\n".join(lines)


def _table_lines(engine: SqlEngine, table: str, rows: int) -> list[str]:
    """A table's heading (name, row count) and its first ``rows`` rows."""
    name = f"{CURRENT_SCHEMA}.{table}"
    count = first_value(engine, f"select count(*) from {name}")
    types = column_types(engine, name)
    shown = [c for c in types if not c.startswith("_")][:MAX_COLUMNS]
    shown += [c for c in SHOWN_METADATA if c in types]
    quoted = ", ".join(_selected(c, types[c]) for c in shown)
    order = f" order by {spark_identifier(shown[0])}" if shown else ""
    found = engine.sql(f"select {quoted} from {name}{order} limit {rows}") if shown else []
    return [f"\n{name}: {count} rows", render_rows(shown, found)]


def built_current_models(project: Path, topics: list[str]) -> set[str]:
    """The current-layer models of ``topics``, from the manifest of the
    build that just ran."""
    return _current_models(_manifest_nodes(project), topics)


def ran_current_models(project: Path, unique_ids: Iterable[str]) -> set[str]:
    """The current-layer models of the topics of the nodes ``unique_ids``
    (those a build ran), from the manifest of that build (read once)."""
    nodes = _manifest_nodes(project)
    topics = {
        str(topic)
        for unique_id in unique_ids
        if (topic := nodes.get(unique_id, {}).get("config", {}).get("meta", {}).get("cdc_topic"))
    }
    return _current_models(nodes, topics)


def _current_models(nodes: dict[str, Any], topics: Iterable[str]) -> set[str]:
    wanted = set(topics)
    return {
        str(node.get("alias") or node["name"])
        for node in nodes.values()
        if node["resource_type"] == "model"
        and node["config"].get("meta", {}).get("cdc_topic") in wanted
        and node["config"].get("meta", {}).get("cdc_layer") == "current"
    }


def _manifest_nodes(project: Path) -> dict[str, Any]:
    """The nodes of the manifest of the build that just ran."""
    manifest = json.loads((target_path(project) / "manifest.json").read_text(encoding="utf-8"))
    return manifest["nodes"]  # type: ignore[no-any-return]


def current_tables(engine: SqlEngine) -> list[str]:
    """The tables and views analysts query in the current-state schema (none
    while it does not exist: topics without a key have staging models only)."""
    if not engine.sql(f"show databases like {spark_string(CURRENT_SCHEMA)}"):
        return []
    return sorted(
        str(row["tableName"])
        for row in engine.sql(f"show tables in {CURRENT_SCHEMA}")
        if not row.get("isTemporary") and not str(row["tableName"]).endswith("__state")
    )


def render_rows(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """A plain-text grid of ``rows`` (values cut at MAX_WIDTH characters)."""
    cells = [[_cell(row.get(column)) for column in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    header = "|" + "|".join(c.ljust(widths[i]) for i, c in enumerate(columns)) + "|"
    body = ["|" + "|".join(v.ljust(widths[i]) for i, v in enumerate(r)) + "|" for r in cells]
    return "\n".join([rule, header, rule, *body, rule])


def _selected(column: str, spark_type: str) -> str:
    """The column as selected for display: nested values (structs, arrays,
    maps) as JSON text, so both engines print them alike; dates and
    timestamps as Spark's text of them (PostgreSQL's -infinity is
    0001-01-01 00:00:00 UTC, which Python's datetime cannot hold in every
    zone: `make run` stopped with "year 0 is out of range", issue 70)."""
    nested = spark_type.startswith(("struct<", "array<", "map<"))
    quoted = spark_identifier(column)
    if nested:
        return f"to_json({quoted}) as {quoted}"
    if spark_type.startswith(("timestamp", "date")):
        return f"cast({quoted} as string) as {quoted}"
    return quoted


def _cell(value: Any) -> str:
    text = "null" if value is None else str(value)
    return text if len(text) <= MAX_WIDTH else text[: MAX_WIDTH - 3] + "..."
