"""Which tables a run's maintenance looks at (python_helpers/run/maintenance.py
``due``): only those that may have passed a threshold since their health
was last read, so most runs read none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers.run import maintenance
from python_helpers.run.maintenance import Done, Policy, TableHealth


def test_a_table_is_read_again_only_when_it_may_have_passed_a_threshold(tmp_path: Path) -> None:
    rules = Policy(compact_delete_files=8, compact_data_files=32, max_snapshots=100)
    tables = ["cdc_current.a__state", "cdc_landing.a"]
    # never seen (a first build made them): read the next run that touches them
    assert maintenance.due(tmp_path, tables, {}, rules, 0.0) == []
    assert maintenance.due(tmp_path, tables, {}, rules, 0.0) == tables
    healthy = [
        TableHealth("cdc_current.a__state", snapshots=3, data_files=2, delete_files=2),
        TableHealth("cdc_landing.a", snapshots=96, data_files=1, delete_files=0),
    ]
    maintenance._note_health(tmp_path, healthy, Done([], {}, {}), rules)
    # the state table: 6 delete files to go at 2 a run -> read in 3 runs;
    # the raw table: 4 snapshots to go at 2 a run -> read in 2 runs (and
    # every run after until a read health is noted: a failed read is retried)
    reads = [maintenance.due(tmp_path, tables, {}, rules, 0.0) for _ in range(3)]
    assert reads == [[], ["cdc_landing.a"], tables]


def test_orphans_due_or_a_pass_just_made_read_the_table_next_run(tmp_path: Path) -> None:
    rules = Policy(orphan_every_hours=24.0)
    table = "cdc_current.b__state"
    maintenance._note_health(tmp_path, [TableHealth(table, 3, 40, 9)], Done([table], {}, {}), rules)
    assert maintenance.due(tmp_path, [table], {}, rules, 0.0) == [table]
    maintenance._note_health(tmp_path, [TableHealth(table, 4, 1, 0)], Done([], {}, {}), rules)
    assert maintenance.due(tmp_path, [table], {}, rules, 0.0) == []
    day = 24 * 3600.0
    assert maintenance.due(tmp_path, [table], {table: 0.0}, rules, day) == [table]


def test_topic_tables_are_those_of_every_table_materialization() -> None:
    """Maintenance compacts the tables of a topic's models whichever
    materialization writes them (dbt's `incremental`, the project's
    `cdc_incremental`), and their raw table; never a view."""

    def node(name: str, materialized: str, topic: str | None = "a.b.c") -> dict[str, Any]:
        meta = {"cdc_topic": topic} if topic else {}
        return {
            "resource_type": "model",
            "relation_name": f"s.{name}",
            "config": {"materialized": materialized, "meta": meta},
        }

    nodes = {
        "base": node("base", "cdc_incremental"),
        "state": node("state", "cdc_incremental"),
        "owned": node("owned", "incremental"),
        "view": node("view", "view"),
        "other": node("other", "cdc_incremental", topic=None),
    }
    assert maintenance.topic_tables(nodes, None) == [
        "cdc_landing.a_b_c",
        "s.base",
        "s.owned",
        "s.state",
    ]
    assert maintenance.topic_tables(nodes, ["x.y"]) == []
