"""Property tests of the transaction-consistent views (issue 24): random
transactions over two tables of one PostgreSQL connector
(property_transactions.py), each topic's partitions cut at random into the
first build's landing and the rest, so transactions land torn across
tables and runs. After each run each table's consistent view must equal
the reference model's state from the events outside transactions and those
of the transactions it judges complete and ordered (every transaction
before the first incomplete one, by its BEGIN's offset), and its current
view the state from every landed event.
"""

from __future__ import annotations

import json
from typing import Any

import property_transactions as proptx
import pytest
from e2e_harness import PROPTX_TABLES
from reference_model import consistent_state, current_state, visible_transactions

pytestmark = pytest.mark.spark

RUNS = ["first", "second", "third"]


def _records(text: str) -> list[dict[str, Any]]:
    """The Kafka value payloads of kcat lines, with their coordinates."""
    found = []
    for line in text.splitlines():
        record = json.loads(line)
        payload = json.loads(record["payload"])["payload"]
        found.append(payload | {"_offset": record["offset"], "_partition": record["partition"]})
    return found


def _expected(runs: dict[str, Any], run: str) -> tuple[set[str], dict[str, list[dict[str, Any]]]]:
    lines = runs["transaction_lines"][run]
    changes = {topic: _records(lines.get(topic, "")) for topic in proptx.TOPICS.values()}
    boundaries = _records(lines.get(proptx.TRANSACTION_TOPIC, ""))
    return visible_transactions(boundaries, changes, proptx.PREFIX, whole_id=False), changes


def _transactions(changes: dict[str, list[dict[str, Any]]]) -> set[str]:
    """The transactions (txId) that landed events of ``changes`` belong to."""
    return {
        event["transaction"]["id"].split(":")[0]
        for landed in changes.values()
        for event in landed
        if event.get("transaction")
    }


def _quantities(rows: list[dict[str, Any]]) -> dict[int, int]:
    return {r[proptx.KEY]: r["quantity"] for r in rows}


@pytest.mark.parametrize("run", RUNS)
def test_consistent_views_equal_the_reference(runs: dict[str, Any], run: str) -> None:
    visible, changes = _expected(runs, run)
    for topic, landed in changes.items():
        tables = PROPTX_TABLES[topic]
        expected = consistent_state(landed, visible, False, proptx.KEY)
        got = _quantities(runs[run][tables["consistent"]]["rows"])
        assert got == {k: row["quantity"] for k, row in expected.items()}, topic
        latest = _quantities(runs[run][tables["current"]]["rows"])
        assert latest == {k: r["quantity"] for k, r in current_state(landed, proptx.KEY).items()}


def test_the_draw_tears_transactions_and_holds_views_back(runs: dict[str, Any]) -> None:
    """What the random landing must produce for the test above to mean
    anything: in the first build, transactions whose END or BEGIN landed
    but not all their events (hidden, and holding back the ones after
    them), so that the consistent views differ from the current ones; in
    the second, every transaction visible but the last (its END is not
    written: it holds back nothing after it)."""
    first_visible, first_changes = _expected(runs, "first")
    assert len(_transactions(first_changes) - first_visible) >= 3
    differs = [
        topic
        for topic, landed in first_changes.items()
        if consistent_state(landed, first_visible, False, proptx.KEY)
        != current_state(landed, proptx.KEY)
    ]
    assert differs == list(proptx.TOPICS.values())
    second_visible, second_changes = _expected(runs, "second")
    assert len(_transactions(second_changes) - second_visible) == 1
