"""The tests of what a watch built, run once the landing is quiet.

``make run`` builds with ``dbt build``: a topic's tests run before the
models after them, and a failing one stops its merge. A watch wants the
change visible first: each cycle runs the changed topics' models
(``dbt run``) and notes them here as unchecked, with the time their first
unchecked cycle began. Their tests run later (``dbt test``), once the
landing is quiet, or at least every ``--checks-every`` seconds under a
steady stream (``run.tail.Tail``), over every staging run
since that time (var ``cdc_test_since_micros``, read by
``cdc_test_window``), so no batch goes unchecked however many cycles ran
between. The note lives in the state folder: a watch stopped before its
checks leaves them to the next run, which runs them at its end.
"""

from __future__ import annotations

import json
from pathlib import Path

from python_helpers.run import build_plan, rebuilds

CHECKS_FILE = "unchecked.json"
# the window starts this long before the cycle did: `_staged_at` is the
# engine's clock (a cluster's), `since` this process's
CLOCK_MARGIN_MICROS = 60_000_000


def pending(state: Path) -> tuple[list[str], int | None]:
    """The unchecked topics (sorted) and the micros since when, if any."""
    path = state / CHECKS_FILE
    if not path.exists():
        return [], None
    note = json.loads(path.read_text(encoding="utf-8"))
    return sorted(note["topics"]), int(note["since_micros"])


def add(state: Path, topics: list[str], since_micros: int) -> None:
    """Note ``topics`` as built and not yet tested, by a cycle that began at
    ``since_micros``."""
    if not topics:
        return
    known, since = pending(state)
    note = {
        "topics": sorted(set(known) | set(topics)),
        "since_micros": min(
            since_micros - CLOCK_MARGIN_MICROS, since if since is not None else since_micros
        ),
    }
    state.mkdir(parents=True, exist_ok=True)
    (state / CHECKS_FILE).write_text(json.dumps(note), encoding="utf-8")


def done(state: Path, topics: list[str]) -> None:
    """The tests of ``topics`` passed; a topic noted meanwhile stays."""
    known, since = pending(state)
    left = sorted(set(known) - set(topics))
    if not left or since is None:
        (state / CHECKS_FILE).unlink(missing_ok=True)
        return
    (state / CHECKS_FILE).write_text(
        json.dumps({"topics": left, "since_micros": since}), encoding="utf-8"
    )


def test_args(dbt_args: list[str], topics: list[str], since_micros: int) -> list[str]:
    """``dbt test`` of ``topics`` (and what is downstream of them, as their
    build selected) over the staging runs since ``since_micros``; the other
    arguments (a --target) as the run's own ``dbt_args`` give them."""
    window = json.dumps({"cdc_test_since_micros": since_micros})
    return [
        "test",
        *dbt_args[1:],
        "--select",
        *rebuilds.selectors(topics),
        "--exclude",
        *build_plan.UNCHANGED_VIEWS,
        "--vars",
        window,
    ]
