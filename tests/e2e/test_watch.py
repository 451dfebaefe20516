"""A watch lands and builds what arrives, serves its tables to other
processes, maintains them, and stops cleanly.

In a project made by `init` with one topic (`dbserver1.inventory.customers`)
and a maintenance policy tight enough to act within a few cycles, one
`run --watch` process runs the whole module: after its first cycle, each
new event file is visible in the current-state table read by a second
process (`export`, `dbt show`, `dbt docs generate`, each with the
project's defaults); its cycles compact and expire by the policy; a SIGTERM
sent to its process group (the JVM included) while a cycle lands stops it
after that step, reported as a stop, and the next `run`
finishes the cycle's work, every landed record accounted for (the
topic's dbt tests, in `run`'s build). The watch's cycles build the models
first (`dbt run`, the topic's views left as they are) and test after
(`dbt test`, over every staging run since the first untested cycle).
`maintain` then compacts the tables to no delete file, the rows unchanged,
and purges the delete markers past their retention
(`cdc_marker_retention_days: 0` here).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from backlog import Backlog
from project_paths import PROJECT, copy_sample_topic
from project_runs import emails, export_options, free_port, run_in

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

TOPIC = "dbserver1.inventory.customers"
CURRENT = "cdc_current.mysql__dbserver1_inventory_customers"
MODEL = "mysql__dbserver1_inventory_customers"
POLICY = {  # tight enough to act within the module's few cycles
    "compact_delete_files: 8": "compact_delete_files: 2",
    "max_snapshots: 100": "max_snapshots: 4",
    "keep_snapshots: 20": "keep_snapshots: 2",
    # markers of any age: purged by `maintain` (the pipeline's own purge is
    # due a day after the first run only)
    "cdc_marker_retention_days: null": "cdc_marker_retention_days: 0",
}


def _event(template: str, key: int, email: str, op: str) -> str:
    event = json.loads(template)
    event["payload"]["op"] = op
    event["payload"]["after"] |= {"id": key, "email": email}
    return json.dumps(event, separators=(",", ":")) + "\n"


def _wait(check: Callable[[], bool], what: str, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def _watch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The module's watch and what the other processes saw (built on either
    of the suite's threads, tests/support/backlog.py)."""
    del tmp_path_factory  # its project lives in the state folder, as before
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-watch" / "project")
    settings = (project / "dbt_project.yml").read_text(encoding="utf-8")
    for default, tight in POLICY.items():
        assert default in settings
        settings = settings.replace(default, tight)
    (project / "dbt_project.yml").write_text(settings, encoding="utf-8")
    state = project / ".state"
    landing = project / "landing"
    copy_sample_topic(TOPIC, landing)
    template = (
        next((PROJECT / "sample_landing" / TOPIC).glob("*.jsonl")).read_text().splitlines()[0]
    )
    env = os.environ | {"CDC_STATE_DIR": str(state), "PYTHONPATH": str(PROJECT)}
    env.pop("CDC_DBT_TARGET", None)
    helpers = [sys.executable, "-m", "python_helpers"]
    out_path = state / "watch.out"
    state.mkdir(parents=True, exist_ok=True)
    port, metrics_port = free_port(), free_port()
    run_in(project, state, *helpers, "jars")  # what `make watch` sets up first
    with out_path.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(
            [
                *helpers,
                "run",
                "--watch",
                "--interval",
                "1",
                "--serve-port",
                str(port),
                "--metrics-port",
                str(metrics_port),
            ],
            cwd=project,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group, as a service's
        )
    log = state / "watch" / "watch.log"

    def output() -> str:
        return out_path.read_text(encoding="utf-8")

    def lines(pattern: str) -> list[str]:
        return [x for x in output().splitlines() if re.search(pattern, x)]

    result: dict[str, Any] = {"project": project, "port": port}
    try:
        _wait(lambda: bool(lines(r"^\S+ run \d+: .* staged, ")), "the first cycle")
        assert not lines("FAILED"), output()
        for number in range(1, 5):  # a new key, then updates of it: delete files
            op = "c" if number == 1 else "u"
            (landing / TOPIC / f"z-{number}.jsonl").write_text(
                _event(template, 3001, f"v{number}@example.com", op), encoding="utf-8"
            )
            _wait(lambda n=number: len(lines(r" 1 landed, ")) >= n, f"event {number}")
            if number == 1:
                scrape = f"http://127.0.0.1:{metrics_port}/metrics"
                with urllib.request.urlopen(scrape, timeout=30) as response:
                    result["metrics"] = response.read().decode("utf-8")
                result["export"] = run_in(project, state, *helpers, "export", CURRENT)
                # a reader's failing statement (a table that does not exist)
                result["failed_reader"] = subprocess.run(
                    [*helpers, "export", "cdc_current.no_such_table"],
                    cwd=project,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                result["show"] = run_in(
                    project, state, *helpers, "dbt", "show", "--select", MODEL, "--limit", "50"
                )
                result["docs"] = run_in(project, state, *helpers, "dbt", "docs", "generate")
                result["catalog"] = json.loads((project / "target" / "catalog.json").read_text())
        # the tests and maintenance wait for a quiet landing (5 s)
        _wait(
            lambda: "tests of 1 topic(s) passed" in log.read_text().rsplit(" 1 landed, ", 1)[-1],
            "the tests and maintenance after the last event",
        )
        result["export_last"] = run_in(project, state, *helpers, "export", CURRENT)
        cycles_before = log.read_text(encoding="utf-8").count("--- cycle")
        (landing / TOPIC / "z-5.jsonl").write_text(
            _event(template, 3002, "killed@example.com", "c"), encoding="utf-8"
        )
        _wait(
            lambda: (
                "landing landing:" in log.read_text(encoding="utf-8").split("--- cycle")[-1]
                and log.read_text(encoding="utf-8").count("--- cycle") > cycles_before
            ),
            "the landing of the last event",
        )
        result["log_before_stop"] = log.read_text(encoding="utf-8")
        # a service manager's stop: SIGTERM to the whole group (the JVM too)
        os.killpg(process.pid, signal.SIGTERM)
        try:
            result["exit"] = process.wait(timeout=180)
        except subprocess.TimeoutExpired:
            # where it waits: every thread's stack (the watch's SIGUSR1)
            process.send_signal(signal.SIGUSR1)
            time.sleep(3)
            raise AssertionError(
                f"the watch outlived SIGTERM by 180 s:\n{output()[-8000:]}"
            ) from None
    finally:
        if process.poll() is None:
            process.kill()
    result["output"] = output()
    result["log"] = log.read_text(encoding="utf-8")
    result["serving_left"] = (state / "watch" / "serving.json").exists()
    result["unchecked_left"] = (state / "unchecked.json").exists()
    # the current view and its state table, before `maintain`: exported by
    # the `run` itself, after its dbt (one Spark start-up)
    both = (CURRENT, f"{CURRENT}__state")
    after = state / "after-run.json"
    result["run_after"] = run_in(project, state, *helpers, "run", *export_options(after, both))
    result["export_after"] = result["state_before"] = after.read_text(encoding="utf-8")
    result["unchecked_after_run"] = (state / "unchecked.json").exists()
    # the base model's test (the accounting): its window is the staging runs'
    test_node = (
        "cdc_checks_base_mysql__dbserver1_inventory_customers_source_mysql_landing_dbserver1"
        "_inventory_customers___ref_stg_mysql__dbserver1_inventory_customers__quarantine___ref"
        "_stg_mysql__dbserver1_inventory_customers___c__r__u__d__t"
    )
    compile_test = [*helpers, "dbt", "compile", "--select", test_node]
    result["window_latest"] = run_in(project, state, *compile_test)
    since_first = json.dumps({"cdc_test_since_micros": 0})
    result["window_since"] = run_in(project, state, *compile_test, "--vars", since_first)
    result["maintain"] = run_in(project, state, *helpers, "maintain", "--topic", TOPIC)
    result["state_after"] = result["export_maintained"] = run_in(
        project, state, *helpers, "export", *both
    )
    return result


BACKGROUND_BUILD = _watch
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 194


@pytest.fixture(scope="module")
def watched(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def test_a_new_event_is_visible_to_other_processes_while_the_watch_runs(
    watched: dict[str, Any],
) -> None:
    assert emails(watched["export"], CURRENT)[3001] == "v1@example.com"
    assert "v1@example.com" in watched["show"]
    assert watched["catalog"]["nodes"][f"model.cdc.{MODEL}"]["metadata"]["type"] == "view"
    assert emails(watched["export_last"], CURRENT)[3001] == "v4@example.com"


def test_each_cycle_that_did_something_prints_one_line(watched: dict[str, Any]) -> None:
    runs = [x for x in watched["output"].splitlines() if re.search(r"^\S+ run \d+: ", x)]
    new_key = next(x for x in runs if " 1 landed, " in x)
    assert (
        "1 topic(s), 1 landed, 1 staged, 0 quarantined, 0 tombstones, keys 1 upserted / 0 deleted"
        in new_key
    )
    # the lag in the unit a person reads (sample events are years old)
    assert re.search(r", lag \d+(\.\d)? (s|min|h|days), ", new_key), new_key
    assert "serving the tables on 127.0.0.1" in watched["output"]


def test_the_watch_maintains_the_tables_by_the_policy(watched: dict[str, Any]) -> None:
    assert "maintenance: compacted" in watched["log"]
    assert "expired" in watched["log"]


def test_sigterm_stops_after_the_current_step_and_run_finishes_the_work(
    watched: dict[str, Any],
) -> None:
    assert watched["exit"] == 0
    assert "stopping after the current step (SIGTERM)" in watched["output"]
    # the stop is a stop: the cycle under way was not cut short by the
    # JVM's death, and nothing printed a traceback
    assert not re.search(r"FAILED|retrying|Traceback|Py4J|closed file", watched["output"])
    stopped_cycle = watched["log"][len(watched["log_before_stop"]) :]
    assert "--- cycle" not in stopped_cycle.split("landing landing:", 1)[-1]
    assert not re.search(r"Traceback|Py4J|does not exist in the JVM|closed file", stopped_cycle)
    assert watched["output"].rstrip().splitlines()[-1].split(" ", 1)[1].startswith("watch stopped")
    assert not watched["serving_left"]
    # the stopped cycle finished its landing; `run` builds what it left
    assert "nothing new to land" in watched["run_after"]
    assert emails(watched["export_after"], CURRENT)[3002] == "killed@example.com"


def test_maintain_compacts_to_no_delete_file_and_changes_no_row(watched: dict[str, Any]) -> None:
    state_line = next(
        x for x in watched["maintain"].splitlines() if x.startswith(f"{CURRENT}__state:")
    )
    assert " 0 delete file(s)" in state_line
    snapshots = int(re.search(r"(\d+) snapshot", state_line).group(1))  # type: ignore[union-attr]
    assert snapshots <= 3  # keep_snapshots, and the maintain's own rewrite
    before, after = (json.loads(watched[k])[CURRENT] for k in ("export_after", "export_maintained"))
    assert before["types"] == after["types"]
    assert sorted(before["rows"]) == sorted(after["rows"])  # compaction may reorder


def test_maintain_purges_delete_markers_past_their_retention(watched: dict[str, Any]) -> None:
    def ops(output: str) -> list[str]:
        rows = json.loads(output)[f"{CURRENT}__state"]["rows"]
        return sorted(json.loads(row)["_cdc_op"] for row in rows)

    assert "d" in ops(watched["state_before"])  # the sample deletes a customer
    assert ops(watched["state_after"]) == [op for op in ops(watched["state_before"]) if op != "d"]


def test_the_watch_makes_changes_visible_first_and_tests_them_after(
    watched: dict[str, Any],
) -> None:
    log = watched["log"]
    views_left = f"config.meta.cdc_topic:{TOPIC},config.materialized:view"
    topic = re.escape(TOPIC)
    assert re.search(
        rf"^dbt run (--indirect-selection cautious )?--select config.meta.cdc_topic:{topic}\+ ",
        log,
        re.M,
    )
    assert views_left in log
    assert re.search(r"^tests of 1 topic\(s\) passed$", log, re.M)
    # the stop came mid-landing, after the earlier cycles' tests had run
    assert not watched["unchecked_left"] and not watched["unchecked_after_run"]


def test_the_tests_window_reaches_back_to_the_first_untested_staging_run(
    watched: dict[str, Any],
) -> None:
    def window(output: str) -> int:
        found = re.search(r"_landed_at >= timestamp_micros\((\d+)\)", output)
        assert found, output
        return int(found.group(1))

    # since 0: every staging run, back to the sample's first landing; the
    # latest run alone starts at the last event `run` landed
    assert window(watched["window_since"]) < window(watched["window_latest"])


def test_the_watch_serves_prometheus_metrics_that_parse(watched: dict[str, Any]) -> None:
    """Issue 45: scraped from the watch's /metrics after its first cycles,
    every sample parses; the topic's landed records and the cycles count."""
    from prometheus_client.parser import text_string_to_metric_families

    samples = [
        sample
        for family in text_string_to_metric_families(watched["metrics"])
        for sample in family.samples
    ]
    landed = {s.labels["topic"]: s.value for s in samples if s.name == "cdc_records_landed_total"}
    assert landed[TOPIC] > 0
    runs = {s.labels["outcome"]: s.value for s in samples if s.name == "cdc_runs_total"}
    assert runs["success"] >= 2


def test_a_readers_failing_statement_stays_out_of_the_watchs_output(
    watched: dict[str, Any],
) -> None:
    """Issue 45: the reader gets its error; the watch prints no stack trace
    of it (it printed 60 lines of `ERROR SparkExecuteStatementOperation`)."""
    failed = watched["failed_reader"]
    assert failed.returncode != 0
    assert "no_such_table" in failed.stdout + failed.stderr
    output = watched["output"]
    assert "SparkExecuteStatementOperation" not in output
    assert "TABLE_OR_VIEW_NOT_FOUND" not in output
