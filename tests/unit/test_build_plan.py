"""What a run builds (python_helpers/run/build_plan.py), without dbt: the
selection made of the changed topics, and the views it leaves alone."""

from __future__ import annotations

from pathlib import Path

from python_helpers.run import build_plan


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: p\n", encoding="utf-8")
    (project / "models" / "m.sql").write_text("select 1\n", encoding="utf-8")
    return project


def _good_build(state: Path, project: Path) -> None:
    (state / build_plan.LAST_BUILD_DIR).mkdir(parents=True)
    (state / build_plan.LAST_BUILD_DIR / "manifest.json").write_text("{}", encoding="utf-8")
    digest = build_plan.project_digest(project)
    (state / build_plan.PROJECT_DIGEST_FILE).write_text(digest, encoding="utf-8")


def test_a_narrowed_build_selects_the_topics_and_skips_the_consistent_views(
    tmp_path: Path,
) -> None:
    """A topic's change reaches every transaction-consistent view of its
    connector through the progress model; with nothing edited those views
    need no re-creating, so the build excludes them."""
    project, state = _project(tmp_path), tmp_path / "state"
    _good_build(state, project)
    build_plan.add(state, ["bank.public.orders"])
    planned = build_plan.plan(state, project, ["build"])
    assert planned.narrowed and planned.topics == ["bank.public.orders"]
    assert planned.args == [
        "build",
        "--select",
        "config.meta.cdc_topic:bank.public.orders+",
        "--exclude",
        build_plan.UNCHANGED_VIEWS,
    ]


def test_an_edited_project_builds_the_views_too(tmp_path: Path) -> None:
    """An edit (a new topic's generated view, a changed column list) is
    built with everything that depends on it, consistent views included."""
    project, state = _project(tmp_path), tmp_path / "state"
    _good_build(state, project)
    build_plan.add(state, ["bank.public.orders"])
    (project / "models" / "m.sql").write_text("select 2 as edited\n", encoding="utf-8")
    planned = build_plan.plan(state, project, ["build"])
    assert not planned.narrowed
    assert "--exclude" not in (planned.args or [])
    assert "state:modified+" in (planned.args or [])


def test_a_watch_leaves_the_views_of_topics_that_only_got_records(tmp_path: Path) -> None:
    """A view reads its table's new rows as it is: a watch's `dbt run` does
    not re-create (drop, then create) the views of a topic that only got
    new records, so a reader never finds them missing mid-cycle. A topic
    whose spec sync regenerated gets its views re-created."""
    project, state = _project(tmp_path), tmp_path / "state"
    _good_build(state, project)
    build_plan.add(state, ["bank.public.orders", "bank.public.payments"])
    build_plan.add(state, ["bank.public.payments"], respecified=True)
    planned = build_plan.plan(state, project, ["build"])
    assert planned.models_only() == [
        "run",
        "--select",
        "config.meta.cdc_topic:bank.public.orders+",
        "config.meta.cdc_topic:bank.public.payments+",
        "--exclude",
        build_plan.UNCHANGED_VIEWS,
        "config.meta.cdc_topic:bank.public.orders,config.materialized:view",
    ]
    # a build (tests included) keeps every view: excluding one excludes its tests
    assert planned.args is not None and "config.materialized:view" not in " ".join(planned.args)
    build_plan.succeeded(state, project, planned)
    assert build_plan.pending(state) == []
    assert build_plan.pending(state, build_plan.RESPECIFIED_FILE) == []
