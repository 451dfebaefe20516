"""Snapshots that know what vanished (issue 24), end to end on the shared
run (e2e_harness.py).

One sequence, written for the PostgreSQL, MySQL and SQL Server connectors
(`shop.public.stock`, `shopdb.shop.stock`, `server1.testDB.dbo.stock`, each
declaring `snapshot_deletes: true` and a history): an initial snapshot,
streamed changes, a connector restart whose re-snapshot lacks items 4 and 5
(deleted while the connector was down), split over the two builds, a late
older event of item 5, an incremental snapshot interleaved with updates
and a delete of a key it read, and a second incremental snapshot, reported
complete on the connector's notification topic (`shop.notifications`,
`shopdb.notifications`, `server1.notifications`; on MySQL its scan failed),
that lacks item 2 (tests/support/fixtures/samples_snapshots.py writes them).
`shop.public.stock_filtered` does not declare it: its second blocking
snapshot and its incremental snapshot are filtered and lack item 2, which
exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_harness import (
    STOCK_COLLECTIONS,
    STOCK_FILES,
    STOCK_FILTERED,
    STOCK_FILTERED_FILE,
    STOCK_NOTIFICATIONS,
    STOCK_SCANS,
    STOCK_TABLES,
    first_run_offsets,
)
from reference_model import (
    complete_snapshots,
    current_state,
    events,
    history,
    incremental_scans,
    notifications,
    position,
    vanished_key_deletes,
)

pytestmark = pytest.mark.spark

CONNECTORS = sorted(STOCK_FILES)
RUNS = ["first", "second", "third"]


def _quantities(rows: list[dict[str, Any]]) -> dict[int, int | None]:
    return {r["item_id"]: r["quantity"] for r in rows}


def _landed(path: Path, run: str) -> list[dict[str, Any]]:
    """The events of ``path`` landed by the end of ``run``."""
    landed = events(path)
    if run == "first":
        return [e for e in landed if e["_offset"] in first_run_offsets(path)]
    return landed


def _notices(connector: str, run: str) -> list[dict[str, Any]]:
    """The notifications landed by the end of ``run``: all of them, from
    the first build on (before the reads of the scan they report)."""
    return notifications(STOCK_NOTIFICATIONS[connector])


def _state(
    path: Path, run: str, snapshot_deletes: bool, connector: str | None = None
) -> dict[int, int | None]:
    """The reference's current state of ``path`` after ``run`` (with
    ``connector``: a stock topic, its notifications too)."""
    state = current_state(
        _landed(path, run),
        "item_id",
        snapshot_deletes=snapshot_deletes,
        notices=_notices(connector, run) if connector else None,
        table=STOCK_COLLECTIONS[connector] if connector else "",
    )
    return {key: row["quantity"] for key, row in state.items()}


def _vanished(connector: str, run: str) -> list[dict[str, Any]]:
    """The reference's deletes of vanished keys of the stock topic."""
    return vanished_key_deletes(
        _landed(STOCK_FILES[connector], run),
        "item_id",
        notices=_notices(connector, run),
        table=STOCK_COLLECTIONS[connector],
    )


@pytest.mark.parametrize("connector", CONNECTORS)
def test_the_samples_hold_what_the_tests_need(connector: str) -> None:
    """The first build lands one complete snapshot and the start of the
    re-snapshot; the second build completes it (what the tests below
    assume), and the re-snapshot lacks items 4 and 5."""
    path = STOCK_FILES[connector]
    first = list(complete_snapshots(_landed(path, "first")))
    both = complete_snapshots(_landed(path, "second"))
    assert len(first) == 1 and list(both)[0] == first[0] and len(both) == 2
    resnapshot = both[max(both)]
    assert sorted(row["item_id"] for row in resnapshot) == [1, 2, 3, 6]
    # the second incremental snapshot: its scan complete (not on MySQL: it
    # failed), standing for items 1, 3 (read), 7 and 8 (changed since its
    # start, the update of 1 at offset 20), not for 2
    scans = incremental_scans(
        _landed(path, "second"), _notices(connector, "second"), STOCK_COLLECTIONS[connector]
    )
    if connector == "mysql":
        assert scans == {}
    else:
        ((start, rows),) = scans.items()
        assert start[-1] == 20 and sorted({r["item_id"] for r in rows}) == [1, 3, 7, 8]


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_current_state_equals_the_reference_with_snapshot_deletes(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    expected = _state(STOCK_FILES[connector], run, True, connector)
    assert _quantities(runs[run][STOCK_TABLES[connector]["current"]]["rows"]) == expected


@pytest.mark.parametrize("connector", CONNECTORS)
def test_an_incomplete_re_snapshot_deletes_nothing(runs: dict[str, Any], connector: str) -> None:
    """The first build holds the re-snapshot's start marker and one read, not
    its end: items 4 and 5 are still there. It also holds the notifications
    of the second incremental snapshot, its scan complete, but none of the
    scan's reads: item 2 is still there too."""
    rows = runs["first"][STOCK_TABLES[connector]["current"]]["rows"]
    assert _quantities(rows) == {1: 10, 2: 21, 3: 30, 4: 40, 5: 50, 6: 60}
    scans = runs["first"][STOCK_SCANS[connector]]["rows"]
    assert STOCK_COLLECTIONS[connector] in {r["scanned_collection"] for r in scans}


@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_complete_re_snapshot_deletes_the_keys_it_lacks(
    runs: dict[str, Any], connector: str
) -> None:
    """Items 4 and 5 vanished: the re-snapshot lacks them. They are delete
    markers at the snapshot's first position (offset 7), marked `vanished`;
    the older update of item 5 landed in the same build does not bring it
    back. Item 1, read by the snapshot and updated after it, keeps its
    newer updates."""
    tables = STOCK_TABLES[connector]
    current = _quantities(runs["second"][tables["current"]]["rows"])
    assert {k: v for k, v in current.items() if k != 2} == {1: 12, 3: 32, 7: 72, 8: 80}
    started_at = list(max(complete_snapshots(events(STOCK_FILES[connector]))))
    assert started_at[-1] == 7
    state = {r["item_id"]: r for r in runs["second"][tables["state"]]["rows"]}
    vanished = {k: r for k, r in state.items() if r["_cdc_source_snapshot"] == "vanished"}
    assert sorted(k for k in vanished if k != 2) == [4, 5]
    for item in (4, 5):
        row = vanished[item]
        assert (row["_cdc_op"], row["_cdc_position"]) == ("d", started_at)
        assert row["_cdc_is_snapshot"] is True
        assert row["_cdc_source_committed_at"].startswith("2025-01-02T06:40:05")


@pytest.mark.parametrize("connector", CONNECTORS)
def test_a_complete_incremental_scan_deletes_the_keys_it_lacks(
    runs: dict[str, Any], connector: str
) -> None:
    """The second incremental snapshot's scan, reported complete on the
    notification topic, lacks item 2: a delete marker at its start (the
    oldest event made since its STARTED notification: the update of item 1,
    offset 20), marked `vanished`, at its end's time. Item 7, whose chunk
    read was replaced by its update made meanwhile, stays. On MySQL the
    scan failed (SQL_EXCEPTION): item 2 stays. The snapshot-scans model
    shows the scan with its start."""
    tables = STOCK_TABLES[connector]
    state = {r["item_id"]: r for r in runs["second"][tables["state"]]["rows"]}
    assert (state[7]["quantity"], state[7]["_cdc_op"]) == (72, "u")
    closed = [
        r["closed_by_op"] for r in runs["second"][tables["history"]]["rows"] if r["item_id"] == 7
    ]
    assert "d" not in closed  # never vanished, not even for a moment
    scans = [
        r
        for r in runs["second"][STOCK_SCANS[connector]]["rows"]
        if r["scanned_collection"] == STOCK_COLLECTIONS[connector]
    ]
    assert [(r["scan_status"], r["total_rows_scanned"]) for r in scans] == [
        ("SQL_EXCEPTION" if connector == "mysql" else "SUCCEEDED", 3)
    ]
    assert scans[0]["started_at"].startswith("2025-01-02T06:40:06.000")
    assert scans[0]["completed_at"].startswith("2025-01-02T06:40:06.200")
    if connector == "mysql":
        assert (state[2]["_cdc_op"], state[2]["quantity"]) == ("r", 21)
        return
    start = [position(e) for e in events(STOCK_FILES[connector]) if e["_offset"] == 20]
    row = state[2]
    assert (row["_cdc_op"], row["_cdc_source_snapshot"]) == ("d", "vanished")
    assert [tuple(row["_cdc_position"])] == start
    assert row["_cdc_source_committed_at"].startswith("2025-01-02T06:40:06.2")


@pytest.mark.parametrize("connector", CONNECTORS)
def test_an_incremental_snapshot_never_overwrites_a_newer_change(
    runs: dict[str, Any], connector: str
) -> None:
    """Item 6 was read by the first incremental snapshot, then deleted:
    deleted (a streamed delete, not a vanished key). Item 3 was read at
    5750 (31), then updated at 5800 (32): the update stands until the second
    snapshot reads it again (32). Item 7 was updated at 5500, then read at
    5600 (71), then updated at 6080 (72)."""
    state = {r["item_id"]: r for r in runs["second"][STOCK_TABLES[connector]["state"]]["rows"]}
    assert (state[6]["_cdc_op"], state[6]["_cdc_source_snapshot"]) == ("d", "false")
    assert (state[3]["quantity"], state[3]["_cdc_source_snapshot"]) == (32, "incremental")
    assert (state[7]["quantity"], state[7]["_cdc_op"]) == (72, "u")


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("connector", CONNECTORS)
def test_history_closes_the_versions_of_vanished_keys(
    runs: dict[str, Any], connector: str, run: str
) -> None:
    """The history equals the reference's versions of the events landed so
    far plus a delete of each vanished key at the snapshot's first
    position: items 4 and 5 are closed by `d` there once the re-snapshot is
    complete, and open before."""
    landed = _landed(STOCK_FILES[connector], run)
    columns = ("item_id", "quantity", "valid_from_position", "valid_to_position", "closed_by_op")
    expected = sorted(
        tuple(json.dumps(v[c]) for c in columns)
        for v in history(landed + _vanished(connector, run), "item_id")
    )
    rows = runs[run][STOCK_TABLES[connector]["history"]]["rows"]
    assert sorted(tuple(json.dumps(r[c]) for c in columns) for r in rows) == expected
    vanished = [r for r in rows if r["item_id"] in (4, 5) and r["closed_by_op"] == "d"]
    started_at = [position(e) for e in landed if e["_offset"] == 7]
    assert [tuple(r["valid_to_position"]) for r in vanished] == started_at * (
        0 if run == "first" else 2
    )


def test_a_topic_without_snapshot_deletes_keeps_what_a_snapshot_lacks(
    runs: dict[str, Any],
) -> None:
    """The filtered blocking snapshot (quantity > 0) is complete by its
    markers but lacks item 2: the topic does not declare snapshot_deletes,
    so item 2 stays, as the plain replay of its events says."""
    assert len(complete_snapshots(events(STOCK_FILTERED_FILE))) == 2  # both look complete
    # and so does its incremental scan, reported complete on shop.notifications
    notices = notifications(STOCK_NOTIFICATIONS["postgresql"])
    assert incremental_scans(events(STOCK_FILTERED_FILE), notices, "public.stock_filtered")
    current = _quantities(runs["second"][STOCK_FILTERED]["rows"])
    assert current == _state(STOCK_FILTERED_FILE, "second", False) == {1: 12, 2: 0, 3: 30}
