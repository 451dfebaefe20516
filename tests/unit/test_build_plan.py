"""What a run builds (python_helpers/run/build_plan.py), without dbt: the
selection made of the changed topics, and the views it leaves alone."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    need no re-creating, so the build excludes them, and the topic's views
    that carry no test (staging, quarantine, heartbeats: the base model's
    test checks their rows)."""
    project, state = _project(tmp_path), tmp_path / "state"
    _good_build(state, project)
    build_plan.add(state, ["bank.public.orders"])
    planned = build_plan.plan(state, project, ["build"])
    assert planned.narrowed and planned.topics == ["bank.public.orders"]
    assert planned.args == [
        "build",
        "--indirect-selection",
        "cautious",
        "--select",
        "config.meta.cdc_topic:bank.public.orders+",
        "--exclude",
        *build_plan.UNCHANGED_VIEWS,
        "config.materialized:view,config.meta.cdc_layer:staging",
        "config.materialized:view,config.meta.cdc_layer:quarantine",
        "config.materialized:view,config.meta.cdc_layer:heartbeats",
    ]


def test_topics_with_nothing_in_the_landing_are_not_built(tmp_path: Path) -> None:
    """A declared topic with no record in the landing is left out of every
    build (first or narrowed) with what depends on it; its change stays
    noted until it has records."""
    project, state = _project(tmp_path), tmp_path / "state"
    absent = ["sample.public.a", "sample.public.b"]
    build_plan.add(state, ["mine.public.orders", "sample.public.a"])
    first = build_plan.plan(state, project, ["build"], absent=absent)
    assert first.args == [
        "build",
        "--exclude",
        "config.meta.cdc_topic:sample.public.a+",
        "config.meta.cdc_topic:sample.public.b+",
    ]
    assert first.reason == "no earlier good build: everything but 2 topic(s) with no landing"
    assert first.topics == ["mine.public.orders"]
    build_plan.succeeded(state, project, first)
    assert build_plan.pending(state) == ["sample.public.a"]
    _good_build(state, project)
    (project / "models" / "m.sql").write_text("select 2 as edited\n", encoding="utf-8")
    edited = build_plan.plan(state, project, ["build"], absent=absent)
    assert edited.args is not None and edited.args[edited.args.index("--exclude") + 1 :][:2] == [
        "config.meta.cdc_topic:sample.public.a+",
        "config.meta.cdc_topic:sample.public.b+",
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
        "--indirect-selection",
        "cautious",
        "--select",
        "config.meta.cdc_topic:bank.public.orders+",
        "config.meta.cdc_topic:bank.public.payments+",
        "--exclude",
        *build_plan.UNCHANGED_VIEWS,
        "config.meta.cdc_topic:bank.public.orders,config.materialized:view",
    ]
    # a build (tests included) keeps the views that carry tests (excluding
    # one excludes its tests): it leaves the untested ones of the topic that
    # only got records, and re-creates every view of the respecified one
    assert planned.args is not None
    assert [a for a in planned.args if "config.materialized:view" in a] == [
        "config.meta.cdc_topic:bank.public.orders,config.materialized:view,"
        f"config.meta.cdc_layer:{layer}"
        for layer in build_plan.UNTESTED_VIEW_LAYERS
    ]
    build_plan.succeeded(state, project, planned)
    assert build_plan.pending(state) == []
    assert build_plan.pending(state, build_plan.RESPECIFIED_FILE) == []


def test_a_first_dbt_run_loads_the_seeds_first(tmp_path: Path) -> None:
    """`run -- run` (dbt's `run`, which loads no seed) in a new project
    failed on the quarantine summary, which reads the seed, every time: a
    `run` that builds more than the changed topics' models loads the seeds
    first; a build loads them itself, a narrowed run leaves the views that
    read them alone, a selection of the user's is the user's."""
    project, state = _project(tmp_path), tmp_path / "state"
    build_plan.add(state, ["shop.public.orders"])
    first = build_plan.plan(state, project, ["run"])
    assert first.args is not None and build_plan.needs_seeds(first, first.args)
    build = build_plan.plan(state, project, ["build"])
    assert build.args is not None and not build_plan.needs_seeds(build, build.args)
    _good_build(state, project)
    narrowed = build_plan.plan(state, project, ["run"])
    assert narrowed.args is not None and not build_plan.needs_seeds(narrowed, narrowed.args)
    chosen = build_plan.plan(state, project, ["run", "--select", "m"])
    assert chosen.args is not None and not build_plan.needs_seeds(chosen, chosen.args)


def test_narrows_agrees_with_the_plan_and_a_full_refresh_is_not_short(tmp_path: Path) -> None:
    """``narrows`` (a run's Spark may start for a short life) is true
    exactly when ``plan`` narrows the build and it is incremental."""
    project, state = _project(tmp_path), tmp_path / "state"
    assert not build_plan.narrows(state, ["build"])  # no good build yet
    _good_build(state, project)
    build_plan.add(state, ["bank.public.orders"])
    for args, build_all in (
        (["build"], False),
        (["run"], False),
        (["build"], True),
        (["build", "--select", "x"], False),
        (["run-operation", "m"], False),
    ):
        assert build_plan.narrows(state, args, build_all) == (
            build_plan.plan(state, project, args, build_all).narrowed
        ), (args, build_all)
    assert not build_plan.narrows(state, ["build", "--full-refresh"])


def test_a_good_build_is_kept_from_where_dbt_wrote_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `DBT_TARGET_PATH` set, dbt writes its manifest there: the
    build kept for the next run's comparison is that one, so the next run
    is narrowed (it read `target/` alone and built everything again)."""
    project, state = _project(tmp_path), tmp_path / "state"
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "manifest.json").write_text('{"nodes": {}}', encoding="utf-8")
    build_plan.add(state, ["bank.public.orders"])
    first = build_plan.plan(state, project, ["build"])
    assert first.reason == "no earlier good build: everything"
    build_plan.succeeded(state, project, first)
    build_plan.add(state, ["bank.public.orders"])
    assert build_plan.plan(state, project, ["build"]).narrowed
