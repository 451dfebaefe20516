"""Which current-state tables `run --show` prints (docs/pipeline.md, step
5): a narrowed build's topics', a self-selected build's ran topics', every
one after a whole build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python_helpers.engine.show import built_current_models, ran_current_models
from python_helpers.run import build_plan
from python_helpers.run.pipeline import _shown_models


def _node(name: str, topic: str | None, layer: str, kind: str = "model") -> dict[str, object]:
    meta = {"cdc_topic": topic, "cdc_layer": layer} if topic else {}
    return {"resource_type": kind, "name": name, "alias": name, "config": {"meta": meta}}


def _project(tmp_path: Path) -> Path:
    nodes = {
        "model.cdc.base_a": _node("base_a", "db.a", "staging"),
        "model.cdc.a__state": _node("a__state", "db.a", "state"),
        "model.cdc.a": _node("a", "db.a", "current"),
        "model.cdc.b": _node("b", "db.b", "current"),
        "model.cdc.c": _node("c", "db.c", "current"),
        "model.cdc.cdc_quarantine_counts": _node("cdc_quarantine_counts", None, "ops"),
        "test.cdc.checks_b": _node("checks_b", "db.b", "staging", "test"),
    }
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "manifest.json").write_text(json.dumps({"nodes": nodes}))
    return tmp_path


def test_the_topics_of_the_nodes_a_build_ran(tmp_path: Path) -> None:
    project = _project(tmp_path)
    ran = ["model.cdc.a__state", "test.cdc.checks_b", "model.cdc.cdc_quarantine_counts"]
    # the current models of db.a and db.b (a test carries its topic too);
    # the ops model names none
    assert ran_current_models(project, ran) == {"a", "b"}
    # a node the manifest does not know (a seed of another run) names no topic
    assert ran_current_models(project, ["seed.cdc.gone"]) == set()
    assert built_current_models(project, ["db.a", "db.b"]) == {"a", "b"}


def test_a_self_selected_build_shows_its_topics_and_a_whole_build_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_project(tmp_path))  # the run's manifest: target/ of the project
    selected = build_plan.Plan(["run", "-s", "config.meta.cdc_topic:db.a+"], [], "as asked")
    assert _shown_models(selected, ["model.cdc.a__state"]) == {"a"}
    whole = build_plan.Plan(["build"], [], "as asked")
    assert _shown_models(whole, ["model.cdc.a", "model.cdc.b"]) is None
    narrowed = build_plan.Plan(["build", "--select", "x"], ["db.c"], "1 changed", True)
    assert _shown_models(narrowed, ["model.cdc.a"]) == {"c"}
