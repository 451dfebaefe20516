"""Transaction-consistent views (issue 24, part 1), end to end on the shared
run (e2e_harness.py).

One sequence written for the PostgreSQL, MySQL and SQL Server connectors
(tests/support/fixtures/samples_transactions.py, `bank`): five transactions over
three tables. 801 lands whole in the first build; 802 (an order and its
two lines) half in the first build, half in the second; 803 (orders,
order_lines, payments) has its END in the first build and its payment only
in the second; 804 and 805 land in the second, 805 without an END
(Debezium writes it when the next transaction begins). PostgreSQL's ids are
`txId:LSN` with the LSN of each record, so BEGIN, events and END of one
transaction carry different ids. 804 also truncates payments (SQL Server,
which cannot: a re-snapshot after 804 lacks payment 100) and 805 creates
payment 100 again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_harness import (
    BANK_TOPICS,
    FIRST_RUN_LINES,
    STATE,
    bank_file,
    bank_progress,
    bank_tables,
    bank_transactions,
    first_run_offsets,
)
from project_paths import PROJECT, SAMPLE_LANDING
from reference_model import (
    consistent_state,
    current_state,
    events,
    transaction_boundaries,
    visible_transactions,
)

from python_helpers.run.build_plan import LAST_BUILD_DIR

pytestmark = pytest.mark.spark

CONNECTORS = sorted(BANK_TOPICS)
RUNS = ["first", "second", "third"]


def _landed(topic: str, run: str) -> list[dict[str, Any]]:
    """The events of a bank topic landed by the end of ``run`` (the first
    build lands the first lines of each file; every line is an event)."""
    path = bank_file(topic)
    return events(path)[: FIRST_RUN_LINES[path] if run == "first" else None]


def _boundaries(connector: str, run: str) -> list[dict[str, Any]]:
    prefix = BANK_TOPICS[connector][0]
    found = transaction_boundaries(bank_file(f"{prefix}.transaction"))
    if run == "first":
        landed = first_run_offsets(bank_file(f"{prefix}.transaction"))
        found = [b for b in found if b["_offset"] in landed]
    return found


def _expected(connector: str, run: str) -> tuple[set[str], dict[str, list[dict[str, Any]]]]:
    prefix, topics = BANK_TOPICS[connector]
    whole = connector != "postgresql"
    changes = {topic: _landed(topic, run) for topic in topics}
    visible = visible_transactions(_boundaries(connector, run), changes, prefix, whole)
    return visible, changes


def _snapshot_deletes(topic: str) -> bool:
    """What the topic's declaration says (topics/<topic>.yml)."""
    text = (PROJECT / "topics" / f"{topic}.yml").read_text(encoding="utf-8")
    declared = yaml.safe_load(text) or {}  # a declaration may hold no setting
    return bool(declared.get("snapshot_deletes", False))


def _sorted(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


def _quantities(rows: list[dict[str, Any]]) -> dict[int, int]:
    return {r["item_id"]: r["quantity"] for r in rows}


def test_postgresql_ids_of_one_transaction_differ_after_the_colon() -> None:
    """What the matching is for: BEGIN, END and the events of transaction
    801 (its BEGIN and order at 2000, its line at 2010, its END at 2030)
    carry different `txId:LSN` ids with one txId."""
    ids = {b["id"] for b in transaction_boundaries(bank_file("bank.transaction"))}
    for table in ("orders", "order_lines"):
        ids |= {e["transaction"]["id"] for e in events(bank_file(f"bank.public.{table}"))}
    assert sorted(i for i in ids if i.startswith("801:")) == ["801:2000", "801:2010", "801:2030"]


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_consistent_views_equal_the_reference(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    """Each table's consistent view is its state from the events outside
    transactions and those of the visible transactions only (the
    reference's own judgement of complete and ordered), and its current
    view the state from every landed event."""
    visible, changes = _expected(connector, run)
    for topic, landed in changes.items():
        tables = bank_tables(connector, topic)
        deletes = _snapshot_deletes(topic)
        expected = consistent_state(
            landed, visible, connector != "postgresql", "item_id", snapshot_deletes=deletes
        )
        got = _quantities(runs[run][tables["consistent"]]["rows"])
        assert got == {k: row["quantity"] for k, row in expected.items()}, topic
        latest = _quantities(runs[run][tables["current"]]["rows"])
        state = current_state(landed, "item_id", snapshot_deletes=deletes)
        assert latest == {k: r["quantity"] for k, r in state.items()}, topic


@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_torn_transaction_is_invisible_in_every_table(
    runs: dict[str, Any], connector: str
) -> None:
    """First build: 802 lacks its order lines and 803 its payment, though
    803's END has landed. Both are hidden in every table they touched, and
    the order and line 803 updated show their versions of 801; order 2
    (created by 802) is not there yet. The current views show everything."""
    _, topics = BANK_TOPICS[connector]
    orders, lines, payments = (bank_tables(connector, t) for t in topics)
    first = runs["first"]
    assert _quantities(first[orders["consistent"]]["rows"]) == {1: 100}
    assert _quantities(first[orders["current"]]["rows"]) == {1: 150, 2: 200}
    assert _quantities(first[lines["consistent"]]["rows"]) == {10: 5}
    assert _quantities(first[lines["current"]]["rows"]) == {10: 6}
    assert _quantities(first[payments["consistent"]]["rows"]) == {99: 10}


@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_transaction_appears_once_its_last_event_lands(
    runs: dict[str, Any], connector: str
) -> None:
    """Second build: 802, 803 and 804 are complete and shown; 805 has no
    END yet, so its new order 3 and its payment 100 are in the current
    view only."""
    _, topics = BANK_TOPICS[connector]
    orders, lines, payments = (bank_tables(connector, t) for t in topics)
    second = runs["second"]
    assert _quantities(second[orders["consistent"]]["rows"]) == {1: 150, 2: 250}
    assert _quantities(second[orders["current"]]["rows"]) == {1: 150, 2: 250, 3: 300}
    assert _quantities(second[lines["consistent"]]["rows"]) == {10: 6, 20: 7, 21: 8}


@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_key_gone_before_a_hidden_change_stays_out(runs: dict[str, Any], connector: str) -> None:
    """805 (no END) creates payment 100 again after it went: the state
    holds 805's row, and the consistent view would show the key as its
    newest visible event (803's create) says, but a visible truncate (804,
    PostgreSQL and MySQL) or a complete re-snapshot that lacked it (SQL
    Server, `snapshot_deletes`) came after that event: as of the cut the
    key is gone, and the view leaves it out."""
    _, topics = BANK_TOPICS[connector]
    payments = bank_tables(connector, topics[2])
    second = runs["second"]
    gone = {"sqlserver": {99: 10}}.get(connector, {})  # the re-snapshot read 99
    assert _quantities(second[payments["current"]]["rows"]) == gone | {100: 175}
    assert _quantities(second[payments["consistent"]]["rows"]) == gone


@pytest.mark.parametrize("run", ["first", "second"])
@pytest.mark.parametrize("connector", CONNECTORS)
def test_progress_counts_each_transaction(runs: dict[str, Any], connector: str, run: str) -> None:
    """The progress table: one row per transaction, `complete` exactly for
    those the reference finds complete, the others `open` (the default
    wait, 60 minutes, has not passed), each at its BEGIN's offset."""
    visible, _ = _expected(connector, run)
    rows = runs[run][bank_progress(connector)]["rows"]
    assert len({r["transaction_key"] for r in rows}) == len(rows) == {"first": 3, "second": 5}[run]
    offsets: dict[str, set[int]] = {r["status"]: set() for r in rows}
    for row in rows:
        offsets[row["status"]].add(row["order_offset"])
    expected = {"first": ({0}, {2, 4}), "second": ({0, 2, 4, 6}, {8})}[run]
    assert (offsets.get("complete"), offsets.get("open")) == expected
    assert len(visible) == len(expected[0])


@pytest.mark.parametrize("connector", CONNECTORS)
def test_the_transactions_table_has_one_row_per_transaction(
    runs: dict[str, Any], connector: str
) -> None:
    """The analysts' transactions table: one row per transaction of the
    landed BEGIN/END events, the two together (PostgreSQL's differ after
    the colon: keyed by the txId), its id the BEGIN's, `open` until its END
    (805); every change event of the bank topics finds its row by the key
    the model's SQL uses."""

    def key(tx_id: str) -> str:
        return tx_id.split(":")[0] if connector == "postgresql" else tx_id

    expected: dict[str, dict[str, Any]] = {}
    for boundary in _boundaries(connector, "second"):
        expected.setdefault(key(boundary["id"]), {})[boundary["status"]] = boundary["id"]
    rows = {r["transaction_key"]: r for r in runs["second"][bank_transactions(connector)]["rows"]}
    assert sorted(rows) == sorted(expected) and len(rows) == 5
    for tx, ids in expected.items():
        row = rows[tx]
        assert row["transaction_id"] == ids["BEGIN"], tx
        assert row["status"] == ("committed" if "END" in ids else "open"), tx
        assert (row["ended_at"] is None) == ("END" not in ids), tx
    assert [r["status"] for r in rows.values()].count("open") == 1
    _, topics = BANK_TOPICS[connector]
    for topic in topics:
        for event in _landed(topic, "second"):
            if event.get("transaction"):
                assert key(event["transaction"]["id"]) in rows, topic


def test_tables_without_transaction_blocks_are_consistent_as_they_are(
    runs: dict[str, Any],
) -> None:
    """server1's topics are in a transaction group (server1.transaction)
    but their events carry no transaction block, save tablea's one event,
    whose END counts tables under other names: their consistent views
    equal their current views."""
    assert (SAMPLE_LANDING / "server1.transaction").is_dir()
    for model in ("sqlserver__server1_testdb_dbo_stock", "sqlserver__server1_testdb_dbo_tablea"):
        for run in ("first", "second"):
            current = runs[run][f"cdc_current.{model}"]["rows"]
            consistent = runs[run][f"cdc_current.{model}__consistent"]["rows"]
            assert _sorted(consistent) == _sorted(current), (model, run)


def _aliases(target: Path, default_view: str) -> dict[str, str]:
    """Model name -> relation name of the bank orders topic's models, as
    dbt parses the project with `cdc_default_view: <default_view>`."""
    listed = subprocess.run(
        [
            *(sys.executable, "-m", "python_helpers", "dbt", "ls"),
            *("--select", "config.meta.cdc_topic:bank.public.orders"),
            *("--resource-type", "model", "--output", "json"),
            *("--output-keys", "name alias", "--quiet"),
            *("--vars", json.dumps({"cdc_default_view": default_view})),
            *("--target-path", str(target)),
        ],
        cwd=PROJECT,
        env=os.environ | {"CDC_STATE_DIR": str(STATE)},
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [json.loads(line) for line in listed.stdout.splitlines() if line.startswith("{")]
    return {row["name"]: row["alias"] for row in rows}


def test_the_project_chooses_which_view_analysts_get_by_name(
    runs: dict[str, Any], tmp_path: Path
) -> None:
    """`cdc_default_view: consistent` puts the consistent view under the
    plain name analysts query and the latest one under `__latest`; the
    default keeps the latest under the plain name."""
    assert runs["second"]  # after the shared runs: no dbt of theirs parses meanwhile
    name = "postgres__bank_public_orders"
    # the default: as the shared runs' last build parsed the project (the
    # manifest it kept), without a parse of its own
    manifest = json.loads((STATE / LAST_BUILD_DIR / "manifest.json").read_text(encoding="utf-8"))
    latest = {
        node["name"]: node["alias"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and node["config"].get("meta", {}).get("cdc_topic") == "bank.public.orders"
    }
    assert (latest[name], latest[f"{name}__consistent"]) == (name, f"{name}__consistent")
    consistent = _aliases(tmp_path / "consistent", "consistent")
    assert (consistent[name], consistent[f"{name}__consistent"]) == (f"{name}__latest", name)
    assert consistent[f"{name}__state"] == f"{name}__state"
