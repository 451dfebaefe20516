"""A watch's deferred tests (python_helpers/run/checks.py) and when its
tail runs (python_helpers/run/tail.py), without dbt."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from python_helpers.run import build_plan, checks
from python_helpers.run import tail as tail_module
from python_helpers.run.tail import Tail


def test_unchecked_topics_accumulate_from_the_first_unchecked_cycle(tmp_path: Path) -> None:
    checks.add(tmp_path, ["a.b.c"], 5_000_000_000)
    checks.add(tmp_path, ["a.b.d"], 9_000_000_000)  # a later cycle: the window stays
    topics, since = checks.pending(tmp_path)
    assert topics == ["a.b.c", "a.b.d"]
    assert since == 5_000_000_000 - checks.CLOCK_MARGIN_MICROS
    checks.done(tmp_path, ["a.b.c"])  # a topic noted meanwhile stays, with its window
    assert checks.pending(tmp_path) == (["a.b.d"], since)
    checks.done(tmp_path, ["a.b.d"])
    assert checks.pending(tmp_path) == ([], None)
    assert not (tmp_path / checks.CHECKS_FILE).exists()


def test_the_tests_select_the_topics_over_the_window_on_the_runs_target() -> None:
    args = checks.test_args(["build", "--target", "cluster"], ["a.b.c"], 123)
    assert args[:3] == ["test", "--target", "cluster"]
    assert args[args.index("--select") + 1] == "config.meta.cdc_topic:a.b.c+"
    at = args.index("--exclude") + 1
    assert args[at : at + len(build_plan.UNCHANGED_VIEWS)] == list(build_plan.UNCHANGED_VIEWS)
    assert json.loads(args[args.index("--vars") + 1]) == {"cdc_test_since_micros": 123}


def test_the_tail_waits_for_a_quiet_landing_and_at_most_every_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tail_module, "QUIET_SECONDS", 0.2)
    waiting = [True]
    tail = Tail(every=0.6, waiting=lambda: waiting[0])
    assert tail.defers
    assert not tail.due({"t1": 1})  # a file waits: the next cycle first
    waiting[0] = False
    assert not tail.due({"t2": 2})  # nothing waits, but a cycle just landed
    time.sleep(0.25)
    assert tail.due({})  # quiet for QUIET_SECONDS: now
    assert tail.take() == {"t1": 1, "t2": 2}
    assert tail.take() == {}
    waiting[0] = True
    assert not tail.due({"t3": 3})
    time.sleep(0.65)
    assert tail.due({"t4": 4})  # a steady stream delays it, never starves it


def test_checks_every_zero_runs_the_tail_after_every_cycle() -> None:
    tail = Tail(every=0, waiting=lambda: True)
    assert not tail.defers
    assert tail.due({"t": 1})
