"""A run builds only what changed since the last good build; a project
started with `init` holds only its own topics.

In a new project made by `python -m python_helpers init` (the machinery,
no samples) with a landing of two topics (`dbserver1.inventory.customers`,
`postgres.tpcch.warehouse`, their settings in the landing's topic.yml):
the first `make run` builds everything, and the project's models, tables
and docs site hold those two topics only; after one
new event in the first topic, the next `run` builds only that topic's
models and tests; with nothing new, `run` starts neither Spark nor dbt;
after an analyst edits the second topic's staging model, `run` builds that
model and what depends on it (dbt's `state:modified+` against the last
good build), nothing of the first topic; an edit that loses its change
events fails the run, which names the topic, the broken rule and its rows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from backlog import Backlog
from project_paths import PROJECT, copy_sample_topic
from project_runs import project_env, run_in
from report_pages import read_report_page

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

CHANGED = "dbserver1.inventory.customers"
QUIET = "postgres.tpcch.warehouse"
CHANGED_NAME = "dbserver1_inventory_customers"
QUIET_NAME = "tpcch_warehouse"


def _new_event(topic_dir: Path) -> str:
    """A create of a new key, made from the topic's first event."""
    path = next(topic_dir.glob("*.jsonl"))
    event = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    event["payload"]["op"] = "c"
    event["payload"]["after"] |= {"id": 2001, "email": "new.customer@example.com"}
    return json.dumps(event, separators=(",", ":")) + "\n"


def _built(project: Path) -> dict[str, list[str]]:
    """The models and tests of the last dbt invocation, by the topic token
    their name (a test: its models' names) carries."""
    manifest = json.loads((project / "target" / "manifest.json").read_text(encoding="utf-8"))
    results = json.loads((project / "target" / "run_results.json").read_text(encoding="utf-8"))
    built: dict[str, list[str]] = {}
    for result in results["results"]:
        node = manifest["nodes"][result["unique_id"]]
        names = [node["name"], *node["depends_on"].get("nodes", [])]  # a seed: none
        token = next(
            (t for t in (CHANGED_NAME, QUIET_NAME) if any(t in name for name in names)), "other"
        )
        if any("cdc_quarantine_" in name for name in names):
            token = "other"  # counts every topic's quarantine: no one topic's
        built.setdefault(token, []).append(f"{node['resource_type']}:{node['name']}")
    return built


def _plan_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("plan")
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-plan" / "project")
    state = project / ".state"
    landing = root / "landing"
    for topic in (CHANGED, QUIET):
        copy_sample_topic(topic, landing)
    helpers = [sys.executable, "-m", "python_helpers"]
    run = [*helpers, "run", "--landing", str(landing)]
    venv = Path(sys.executable).parents[1]  # this suite's: the pins are the same
    make_run = ["make", "--no-print-directory", "run", f"VENV={venv}"]
    out: dict[str, Any] = {
        "first": run_in(project, state, *make_run, f"CDC_LANDING_DIR={landing}"),
        "first_built": _built(project),
        "docs": run_in(project, state, str(venv / "bin" / "dbt"), "docs", "generate"),
        "catalog": json.loads((project / "target" / "catalog.json").read_text()),
        "manifest": json.loads((project / "target" / "manifest.json").read_text()),
        "project": project,
    }
    with (landing / CHANGED / "z-new.jsonl").open("w", encoding="utf-8") as handle:
        handle.write(_new_event(landing / CHANGED))
    out["one_event"] = run_in(project, state, *run, "--show")
    out["one_event_built"] = _built(project)
    results = project / "target" / "run_results.json"
    before = results.stat().st_mtime_ns
    out["nothing"] = run_in(project, state, *run)
    out["nothing_touched_dbt"] = results.stat().st_mtime_ns != before
    out["metrics"] = json.loads(run_in(project, state, *helpers, "report", "--json"))
    out["metrics_table"] = json.loads(
        run_in(project, state, *helpers, "report", "--json", "--from-table")
    )
    out["report_page"] = root / "report.html"
    out["report"] = run_in(project, state, *helpers, "report", "--html", str(out["report_page"]))
    staging = next((project / "models" / "staging").rglob(f"stg_*{QUIET_NAME}.sql"))
    staging.write_text(
        staging.read_text(encoding="utf-8") + "-- edited by an analyst\n", encoding="utf-8"
    )
    out["edited"] = run_in(project, state, *run)
    out["edited_built"] = _built(project)
    # an edit that loses every change event: the base model's check fails
    # (landed records no longer all accounted for), the run says which rule
    original = staging.read_text(encoding="utf-8")
    staging.write_text(original.replace("select * from final", "select * from final where false"))
    out["broken"] = _failing_run(project, state, *run)
    staging.write_text(original, encoding="utf-8")
    return out


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _plan_runs
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 129


@pytest.fixture(scope="module")
def plan_runs(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _failing_run(project: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = project_env(state)
    return subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)


def test_a_project_from_init_holds_only_its_own_topics(plan_runs: dict[str, Any]) -> None:
    """No sample model, table or doc page: the docs site (manifest and
    catalog) lists the two landed topics' models and sources only."""
    project = plan_runs["project"]
    assert not (project / "sample_landing").exists() and (project / "landing").is_dir()
    assert sorted(p.name for p in (project / "topics").glob("*.yml")) == [
        f"{CHANGED}.yml",
        f"{QUIET}.yml",
    ]
    nodes = plan_runs["manifest"]["nodes"].values()
    models = [n for n in nodes if n["resource_type"] == "model"]
    # every model is a topic's, but the quarantine summary of those two
    ops = sorted(n["name"] for n in models if "cdc_topic" not in n["config"]["meta"])
    assert ops == ["cdc_quarantine_counts", "cdc_quarantine_summary"]
    topics = {n["config"]["meta"].get("cdc_topic") for n in models if n["name"] not in ops}
    assert topics == {CHANGED, QUIET}
    sources = {s["name"] for s in plan_runs["manifest"]["sources"].values()}
    assert sources == {CHANGED_NAME, "postgres_tpcch_warehouse", "_run_metrics"}
    relations = {n["metadata"]["name"] for n in plan_runs["catalog"]["nodes"].values()}
    shared = {"cdc_quarantine_counts", "cdc_quarantine_summary", "cdc_quarantine_reasons"}
    assert shared <= relations
    topic_relations = relations - shared
    assert topic_relations and all(CHANGED_NAME in r or QUIET_NAME in r for r in topic_relations)
    counts = next(n for n in models if n["name"] == "cdc_quarantine_counts")
    quarantines = sorted(n.rsplit(".", 1)[-1] for n in counts["depends_on"]["nodes"])
    assert quarantines == [
        f"stg_mysql__{CHANGED_NAME}__quarantine",
        f"stg_postgres__postgres_{QUIET_NAME}__quarantine",
    ]
    assert "PASS=" in plan_runs["first"] and "source freshness" in plan_runs["first"]


def test_the_first_run_builds_everything(plan_runs: dict[str, Any]) -> None:
    assert "(no earlier good build: everything)" in plan_runs["first"]
    built = plan_runs["first_built"]
    assert any(n.startswith("model:") for n in built[CHANGED_NAME])
    assert any(n.startswith("model:") for n in built[QUIET_NAME])
    # the quarantine reasons (a seed), both topics' quarantine counted, the summary
    shared = {"model:cdc_quarantine_counts", "model:cdc_quarantine_summary"}
    assert shared | {"seed:cdc_quarantine_reasons"} <= set(built["other"])


def test_one_new_event_builds_only_its_topic(plan_runs: dict[str, Any]) -> None:
    one_event = plan_runs["one_event"]
    assert "landing" in one_event and "1 topic(s) with changed files" in one_event
    assert "(1 changed topic(s))" in plan_runs["one_event"]
    built = plan_runs["one_event_built"]
    assert set(built) == {CHANGED_NAME, "other"}, built
    # the quarantine counts of the topics built (a merge of their rows) and
    # their key's test; the summary view is left as it is
    assert sorted(built["other"]) == [
        "model:cdc_quarantine_counts",
        "test:cdc_unique_combination_cdc_quarantine_counts_topic__reason",
    ]
    models = [n for n in built[CHANGED_NAME] if n.startswith("model:")]
    tests = [n for n in built[CHANGED_NAME] if n.startswith("test:")]
    # its chain but the views that carry no test and need no re-creating
    # (staging, quarantine: a view reads its table's new rows as it is), and
    # one test per tested model: base (the accounting), state, current
    first_models = [n for n in plan_runs["first_built"][CHANGED_NAME] if n.startswith("model:")]
    untested_views = [n for n in first_models if n.startswith("model:stg_")]
    assert len(untested_views) == 2
    assert sorted(models) == sorted(set(first_models) - set(untested_views))
    assert len(tests) == 3 and all(t.startswith("test:cdc_checks_") for t in tests), tests
    # issue 43: at most half of the 17 nodes a topic cost per run before
    assert len(models) + len(tests) <= 8
    first_tests = [n for n in plan_runs["first_built"][CHANGED_NAME] if n.startswith("test:")]
    assert len(first_models) + len(first_tests) <= 8, plan_runs["first_built"][CHANGED_NAME]


def test_show_after_a_narrowed_run_prints_only_the_built_tables(plan_runs: dict[str, Any]) -> None:
    shown = plan_runs["one_event"]
    assert "(the 1 built by this run; 1 others unchanged" in shown
    assert f"cdc_current.mysql__{CHANGED_NAME}: " in shown
    assert f"cdc_current.postgres__postgres_{QUIET_NAME}" not in shown


def test_nothing_new_starts_neither_spark_nor_dbt(plan_runs: dict[str, Any]) -> None:
    output = plan_runs["nothing"]
    assert "nothing new to land" in output
    assert "nothing new since the last good build: no dbt" in output
    assert "Spark starting" not in output and not plan_runs["nothing_touched_dbt"]


def test_an_edited_model_is_built_with_what_depends_on_it(plan_runs: dict[str, Any]) -> None:
    assert "(0 changed topic(s) and edited nodes)" in plan_runs["edited"]
    built = plan_runs["edited_built"]
    assert set(built) == {QUIET_NAME}, built
    models = {n for n in built[QUIET_NAME] if n.startswith("model:")}
    assert any(n.startswith("model:stg_") for n in models)
    assert not any(n.startswith("model:base_") for n in models)  # upstream: not rebuilt


def test_a_failed_check_names_its_topic_rule_and_rows(plan_runs: dict[str, Any]) -> None:
    broken = plan_runs["broken"]
    assert broken.returncode != 0, broken.stdout[-2000:]
    lines = [x for x in broken.stderr.splitlines() if x.startswith(f"error: topic '{QUIET}'")]
    # dbt's line for the failed test, then one line per broken rule: the
    # rule, its column, how many rows and an example
    assert any("cdc_checks_base_" in x and " fail: " in x for x in lines), broken.stderr[-3000:]
    rules = [x for x in lines if "accounting: " in x]
    assert rules, broken.stderr[-3000:]
    assert all(" row(s), e.g. " in x for x in rules), rules


def _landed_total(output: str) -> int:
    line = next(x for x in output.splitlines() if "record(s) landed into" in x)
    return int(line.split()[0])


def test_every_run_that_did_something_is_kept_in_the_metrics_table(
    plan_runs: dict[str, Any],
) -> None:
    """One row per run and touched topic: the first run (both topics, every
    record staged or quarantined, every key new), the one-event run (its
    topic only: one record, one new key, a lag); the run with nothing new
    leaves no row."""
    rows = plan_runs["metrics"]
    # `report` reads the state folder's log (no Spark start); the same rows
    # as the table
    assert rows == plan_runs["metrics_table"]
    by_run: dict[int, dict[str, Any]] = {}
    for row in rows:
        by_run.setdefault(row["run_id"], {})[row["topic"]] = row
    assert len(by_run) == 2, sorted(by_run)
    first, second = (by_run[run] for run in sorted(by_run))
    assert set(first) == {CHANGED, QUIET} and set(second) == {CHANGED}
    assert sum(r["records_landed"] for r in first.values()) == _landed_total(plan_runs["first"])
    for row in first.values():
        assert (
            row["records_staged"] + row["records_quarantined"] + row["records_tombstones"]
            == row["records_landed"]
        )
        assert row["records_staged"] > 0 and row["keys_updated"] == 0 and row["keys_inserted"] > 0
        assert row["dbt_seconds"] > 0 and row["land_seconds"] > 0
        assert row["run_ended_at"] >= row["run_started_at"]
    one = second[CHANGED]
    assert (one["records_landed"], one["records_staged"], one["records_quarantined"]) == (1, 1, 0)
    assert (one["keys_inserted"], one["keys_updated"], one["keys_deleted"]) == (1, 0, 0)
    assert json.loads(one["quarantined_by_reason"]) == {}
    assert one["lag_seconds"] > 0 and one["newest_source_commit_at"] is not None


def test_the_report_charts_lag_and_throughput_in_chromium(plan_runs: dict[str, Any]) -> None:
    text = plan_runs["report"]
    runs_listed = sorted({row["run_id"] for row in plan_runs["metrics"]})
    assert all(str(run) in text for run in runs_listed)
    assert f"topics of run {runs_listed[-1]}:" in text and f"{CHANGED}: 1 landed" in text
    shown = read_report_page(plan_runs["report_page"], "run-report.png")
    # the runs' two charts, then each topic's four (lag, throughput, keys, quarantine)
    assert sorted(shown["topics"]) == sorted({CHANGED, QUIET}) and shown["charts"] == 2 + 4 * 2
    width, visible = shown["widths"]
    assert width <= visible
    assert shown["run_rate_points"] == len(runs_listed)
    lagged = [r for r in plan_runs["metrics"] if r["lag_seconds"]]
    assert shown["lag_points"] >= len({r["run_id"] for r in lagged})


def test_every_run_leaves_a_prometheus_textfile_that_parses(plan_runs: dict[str, Any]) -> None:
    """Issue 45: each run (the failed one included) is counted in the state
    folder's textfile, which prometheus_client's parser reads whole."""
    from prometheus_client.parser import text_string_to_metric_families

    path = plan_runs["project"] / ".state" / "metrics" / "cdc.prom"
    samples = [
        sample
        for family in text_string_to_metric_families(path.read_text(encoding="utf-8"))
        for sample in family.samples
    ]
    runs = {s.labels["outcome"]: s.value for s in samples if s.name == "cdc_runs_total"}
    assert runs["failure"] >= 1 and runs["success"] >= 3, runs
    landed = {s.labels["topic"]: s.value for s in samples if s.name == "cdc_records_landed_total"}
    assert landed.keys() == {CHANGED, QUIET} and landed[CHANGED] > landed[QUIET] > 0
