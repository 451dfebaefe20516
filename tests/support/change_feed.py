"""The check of a change feed (`cdc_layer: changes`) against two
consecutive reference states, shared by the end-to-end modules."""

from __future__ import annotations

from typing import Any

RUNS = ["first", "second", "third"]


def appended_rows(runs: dict[str, Any], run: str, table: str) -> list[dict[str, Any]]:
    """The rows of the feed ``table`` that ``run`` appended (its crashed
    attempts included): those of invocations the previous run's export
    does not hold."""
    index = RUNS.index(run)
    earlier = runs[RUNS[index - 1]][table]["rows"] if index else []
    seen = {r["_cdc_invocation_id"] for r in earlier}
    return [r for r in runs[run][table]["rows"] if r["_cdc_invocation_id"] not in seen]


def assert_feed_is_the_difference(
    appended: list[dict[str, Any]],
    key: str,
    columns: tuple[str, ...],
    before: dict[Any, tuple[Any, ...]],
    after: dict[Any, tuple[Any, ...]],
) -> dict[Any, str]:
    """``appended`` (one build's rows of a feed) lists each key whose state
    the build changed, once: an insert for a key it brought, a delete for a
    key it removed, an update for a key whose ``columns`` it changed (or
    rewrote), with the new values and the previous ones of the reference
    states ``before`` and ``after`` (key -> values of ``columns``). Returns
    key -> change."""
    by_key = {r[key]: r for r in appended}
    assert len(by_key) == len(appended)  # a key once per build
    changes = {k: r["_cdc_change"] for k, r in by_key.items()}
    assert {k for k, c in changes.items() if c == "insert"} == after.keys() - before.keys()
    assert {k for k, c in changes.items() if c == "delete"} == before.keys() - after.keys()
    updated = {k for k, c in changes.items() if c == "update"}
    assert {k for k in before.keys() & after.keys() if before[k] != after[k]} <= updated
    assert updated <= before.keys() & after.keys()
    nothing = tuple(None for _ in columns)
    for k, row in by_key.items():
        new = None if row["_cdc_change"] == "delete" else tuple(row[c] for c in columns)
        old = tuple(row[f"_cdc_previous_{c}"] for c in columns)
        assert new == after.get(k), (k, row)
        assert old == before.get(k, nothing), (k, row)
    return changes
