"""Snapshots that know what vanished (issue 24), end to end on the shared
run (e2e_harness.py).

`shop.public.stock` declares `snapshot_deletes: true`. Its landing holds an
initial snapshot, streamed changes, a connector restart whose re-snapshot
lacks items 4 and 5 (deleted while the connector was down), split over the
two builds, a late older event of item 5, and an incremental snapshot
interleaved with updates and a delete of a key it read
(tests/python/fixtures/write_samples.py writes it). `shop.public.stock_filtered`
does not declare it: its second blocking snapshot is filtered and lacks
item 2, which exists.
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_harness import (
    STOCK,
    STOCK_FILE,
    STOCK_FILTERED,
    STOCK_FILTERED_FILE,
    STOCK_STATE,
    first_run_offsets,
)
from reference_model import complete_snapshots, current_state, events

pytestmark = pytest.mark.spark


def _quantities(rows: list[dict[str, Any]]) -> dict[int, int | None]:
    return {r["item_id"]: r["quantity"] for r in rows}


def _expected(path: Any, run: str, snapshot_deletes: bool) -> dict[int, int | None]:
    landed = events(path)
    if run == "first":
        landed = [e for e in landed if e["_offset"] in first_run_offsets(path)]
    state = current_state(landed, "item_id", snapshot_deletes=snapshot_deletes)
    return {key: row["quantity"] for key, row in state.items()}


def test_the_samples_hold_what_the_tests_need() -> None:
    """The first build lands one complete snapshot and the start of the
    re-snapshot; the second build completes it (the fixture is what the
    other tests assume)."""
    landed = events(STOCK_FILE)
    first = [e for e in landed if e["_offset"] in first_run_offsets(STOCK_FILE)]
    assert [p[0] for p in complete_snapshots(first)] == [1000]
    assert [p[0] for p in complete_snapshots(landed)] == [1000, 5000]


@pytest.mark.parametrize("run", ["first", "second", "third"])
def test_current_state_equals_the_reference_with_snapshot_deletes(
    runs: dict[str, Any], run: str
) -> None:
    expected = _expected(STOCK_FILE, "first" if run == "first" else "all", True)
    assert _quantities(runs[run][STOCK]["rows"]) == expected


def test_an_incomplete_re_snapshot_deletes_nothing(runs: dict[str, Any]) -> None:
    """The first build holds the re-snapshot's start marker and one read, not
    its end: items 4 and 5 are still there."""
    assert _quantities(runs["first"][STOCK]["rows"]) == {1: 10, 2: 21, 3: 30, 4: 40, 5: 50, 6: 60}


def test_a_complete_re_snapshot_deletes_the_keys_it_lacks(runs: dict[str, Any]) -> None:
    """Items 4 and 5 vanished: the re-snapshot at LSN 5000 lacks them. They
    are delete markers at the snapshot's first position (LSN 5000, offset
    7), marked `vanished`; the older update of item 5 (LSN 1150) landed in
    the same build does not bring it back. Item 1, read by the snapshot and
    updated after it, keeps its newer update."""
    current = _quantities(runs["second"][STOCK]["rows"])
    assert current == {1: 11, 2: 21, 3: 32, 7: 71}
    state = {r["item_id"]: r for r in runs["second"][STOCK_STATE]["rows"]}
    vanished = {k: r for k, r in state.items() if r["_cdc_source_snapshot"] == "vanished"}
    assert sorted(vanished) == [4, 5]
    for row in vanished.values():
        assert row["_cdc_op"] == "d"
        assert row["_cdc_position"] == [5000, 7]
        assert row["_cdc_is_snapshot"] is True
        assert row["_cdc_source_committed_at"].startswith("2025-01-02T06:40:05")


def test_an_incremental_snapshot_never_overwrites_a_newer_change(runs: dict[str, Any]) -> None:
    """Item 6 was read by the incremental snapshot, then deleted: deleted
    (a streamed delete, not a vanished key). Item 3 was read at LSN 5750,
    then updated at 5800: the update stands. Item 7 was updated at 5500,
    then read at 5600: the read (same value) is its newest event."""
    state = {r["item_id"]: r for r in runs["second"][STOCK_STATE]["rows"]}
    assert state[6]["_cdc_op"] == "d" and state[6]["_cdc_source_snapshot"] == "false"
    assert (state[3]["quantity"], state[3]["_cdc_op"]) == (32, "u")
    assert (state[7]["quantity"], state[7]["_cdc_source_snapshot"]) == (71, "incremental")


def test_a_topic_without_snapshot_deletes_keeps_what_a_snapshot_lacks(
    runs: dict[str, Any],
) -> None:
    """The filtered blocking snapshot (quantity > 0) is complete by its
    markers but lacks item 2: the topic does not declare snapshot_deletes,
    so item 2 stays, as the plain replay of its events says."""
    assert complete_snapshots(events(STOCK_FILTERED_FILE))  # it looks complete
    current = _quantities(runs["second"][STOCK_FILTERED]["rows"])
    assert current == _expected(STOCK_FILTERED_FILE, "all", False) == {1: 12, 2: 0, 3: 30}
