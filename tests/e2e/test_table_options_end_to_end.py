"""The table options of issue 25 on the MySQL and SQL Server connectors,
end to end on the shared run (e2e_harness.py; on PostgreSQL the random
histories of test_merge_properties.py draw them).

One accounts sequence on each connector (`shopdb.shop.accounts`, with its
binlog rotation, and `server1.testDB.dbo.accounts`; tests/support/fixtures/
samples_accounts.py writes them), its topic declaring `ignore_null_updates:
[owner]`, `history: {track: [balance]}` and `changes: true`: a snapshot and
balance updates in the first build; a delete, an owner-only change, an
update setting the owner to null with a new balance, one setting it to null
alone and a new account in the second; nothing new in the third.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from change_feed import RUNS, appended_rows, assert_feed_is_the_difference
from e2e_harness import (
    OPTION_FILES,
    OPTION_TABLES,
    OPTION_TOPICS,
    THRIFT,
    dbt_show,
    first_run_offsets,
)
from reference_model import current_state, events, history, position

pytestmark = pytest.mark.spark

CONNECTORS = sorted(OPTION_FILES)
IGNORE_NULL = ("owner",)
TRACKED = ("balance",)
VALUES = ("owner", "balance")
HISTORY_COLUMNS = (
    "account_id",
    *VALUES,
    "valid_from_position",
    "valid_to_position",
    "opened_by_op",
    "closed_by_op",
    "is_current",
)


def _landed(connector: str, run: str | None) -> list[dict[str, Any]]:
    """The events landed by the end of ``run`` (none before the first)."""
    if run is None:
        return []
    path = OPTION_FILES[connector]
    landed = events(path)
    if run == "first":
        return [e for e in landed if e["_offset"] in first_run_offsets(path)]
    return landed


def _state(connector: str, run: str | None) -> dict[Any, tuple[Any, ...]]:
    state = current_state(_landed(connector, run), "account_id", ignore_null=IGNORE_NULL)
    return {key: tuple(row[c] for c in VALUES) for key, row in state.items()}


@pytest.mark.parametrize("connector", CONNECTORS)
def test_the_samples_hold_what_the_tests_need(connector: str) -> None:
    """The second build brings a null owner that must be kept, and a
    change of the owner alone (untracked)."""
    first = _landed(connector, "first")
    later = [e for e in _landed(connector, "second") if e not in first]
    assert any(e["op"] == "u" and e["after"]["owner"] is None for e in later)
    previous: dict[int, dict[str, Any]] = {}
    owner_only = 0
    for event in sorted(_landed(connector, "second"), key=position):
        image = event["after"] or event["before"]
        was = previous.get(image["account_id"])
        if event["op"] == "u" and was and event["after"]["owner"] not in (None, was["owner"]):
            owner_only += event["after"]["balance"] == was["balance"]
        previous[image["account_id"]] = image
    assert owner_only == 1


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_null_owner_update_keeps_the_owner(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    """The current state equals the reference's with partial updates: an
    update's null owner keeps the key's owner."""
    rows = runs[run][OPTION_TABLES[connector]["current"]]["rows"]
    actual = {r["account_id"]: tuple(r[c] for c in VALUES) for r in rows}
    assert actual == _state(connector, run)
    if run != "first":
        assert actual[1] == ("ada l.", 80) and actual[2] == ("bob", 65)


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_the_history_opens_versions_on_balance_changes_only(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    """The history equals the reference's versions tracking the balance
    (with the owner kept on a null update): the owner-only change and the
    null-owner update that changes nothing update the open version in
    place."""

    def comparable(row: dict[str, Any]) -> str:
        return json.dumps([row[c] for c in HISTORY_COLUMNS], default=str)

    landed = _landed(connector, run)
    expected = history(landed, "account_id", ignore_null=IGNORE_NULL, track=TRACKED)
    rows = runs[run][OPTION_TABLES[connector]["history"]]["rows"]
    assert sorted(map(comparable, rows)) == sorted(map(comparable, expected))
    every = history(landed, "account_id", ignore_null=IGNORE_NULL)
    if run != "first":
        assert len(rows) < len(every)  # some changes were in place


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_the_change_feed_is_the_difference_of_consecutive_states(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    """Each build's rows of the feed are the difference of the reference
    states before and after it: every account inserted in the first,
    updates, a delete and an insert in the second, nothing in the third."""
    index = RUNS.index(run)
    before = _state(connector, RUNS[index - 1] if index else None)
    appended = appended_rows(runs, run, OPTION_TABLES[connector]["changes"])
    changes = assert_feed_is_the_difference(
        appended, "account_id", VALUES, before, _state(connector, run)
    )
    expected = {"first": {"insert"}, "second": {"insert", "update", "delete"}, "third": set()}
    assert set(changes.values()) == expected[run]


@pytest.mark.skipif(THRIFT, reason="dbt show needs the lane's server, stopped after the runs")
def test_the_state_as_of_each_event_from_the_tracked_history(runs: dict[str, Any]) -> None:
    """cdc_as_of on each connector's tracked history, at the position of
    every landed event (one dbt query for all of them, after the third
    build): the accounts live at that point and their balances (the
    tracked column: exact) equal the reference's replay up to it."""
    assert runs["third"]  # the shared runs are built: their warehouse is free
    points = {
        connector: sorted({position(e) for e in _landed(connector, "third")})
        for connector in CONNECTORS
    }
    selects = [
        f"select '{connector}' as connector, {index} as point, account_id, balance"
        f" from ({{{{ cdc_as_of(ref('{OPTION_TOPICS[connector][1]}__history'),"
        f" position={list(point)}) }}}})"
        for connector, at in points.items()
        for index, point in enumerate(at)
    ]
    rows = dbt_show(" union all ".join(selects))
    for connector, at in points.items():
        landed = _landed(connector, "third")
        for index, point in enumerate(at):
            upto = [e for e in landed if position(e) <= point]
            state = current_state(upto, "account_id", ignore_null=IGNORE_NULL)
            expected = {key: row["balance"] for key, row in state.items()}
            actual = {
                r["account_id"]: r["balance"]
                for r in rows
                if r["connector"] == connector and r["point"] == index
            }
            assert actual == expected, (connector, point)
