"""An executor lost in the middle of a build, on a standalone cluster
(issue 56): `make test-cluster` only (it needs a cluster: CDC_SPARK_MASTER).

A project made by `init` lands the flattened MySQL customers through a
Thrift server submitted to the cluster, and `run -- build` starts; once dbt
has created its first model, one of the application's executor JVMs is
killed (SIGKILL, as when a worker's machine dies). Spark runs the lost tasks
again on the other executor (the worker starts a new one), so the build
either finishes or fails and the next run finishes it; either way the
current state equals the plain-Python reference of what was landed, and
every landed record is one staged or quarantined row: nothing lost, nothing
doubled.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import flattened_smt
import pytest
from project_paths import PROJECT, SAMPLE_LANDING, copy_sample_topic
from project_runs import free_port, run_in
from reference_model import current_state, flattened_changes

from python_helpers.engine import standalone, thrift
from python_helpers.project.init_project import fresh_project

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        not os.environ.get(thrift.MASTER_VARIABLE) or os.environ.get("CDC_DBT_TARGET") != "cluster",
        reason="an executor is killed on the standalone cluster of `make test-cluster`",
    ),
]

TOPIC = flattened_smt.MYSQL_TOPIC
CURRENT = f"cdc_current.flattened__{TOPIC.replace('.', '_')}"
COLUMNS = ("first_name", "last_name", "email")
SUMMARY = re.compile(r"(\d+) landed, (\d+) staged, (\d+) quarantined, (\d+) tombstones")


def _app_id(timeout: float = 120) -> str:
    """The application id the cluster gave the server started last (the
    master's status page: the server's log shows errors only)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := standalone.newest_application()) is not None:
            return found
        time.sleep(1)
    raise AssertionError("the master lists no application")


def _parent_command(pid: int) -> str:
    """The command line of process ``pid``'s parent."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    parent = re.search(r"^PPid:\s+(\d+)", status, re.MULTILINE)
    assert parent is not None
    return Path(f"/proc/{parent.group(1)}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _executors(app: str) -> list[int]:
    """The process ids of the application's executor JVMs."""
    found = subprocess.run(["pgrep", "-f", "--", f"--app-id {app}"], capture_output=True, text=True)
    return sorted(int(pid) for pid in found.stdout.split())


def _started_executors(app: str, count: int = 2, timeout: float = 120) -> list[int]:
    """The application's executors once ``count`` of them run."""
    deadline = time.monotonic() + timeout
    while len(found := _executors(app)) < count:
        assert time.monotonic() < deadline, f"{len(found)} executor(s) of {app} running"
        time.sleep(1)
    return found


@pytest.fixture(scope="module")
def lost(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("executor-loss")
    project = fresh_project(PROJECT, root / "project")
    state = project / ".state"
    landing = root / "landing"
    copy_sample_topic(TOPIC, landing)
    port = free_port()
    env = os.environ | {
        "CDC_STATE_DIR": str(state),
        "CDC_SPARK_PORT": str(port),
        "PYTHONPATH": str(PROJECT),
        "DBT_PROFILES_DIR": "profiles",
    }
    helpers = [sys.executable, "-m", "python_helpers"]
    server = thrift.Server(state, port)
    thrift.start(project, server)
    result: dict[str, Any] = {"runs": []}
    try:
        app = _app_id()
        before = _started_executors(app)
        result["parents"] = [_parent_command(pid) for pid in before]
        out_path = root / "run.out"
        with out_path.open("w", encoding="utf-8") as out:
            build = subprocess.Popen(
                [*helpers, "run", "--landing", str(landing), "--", "build"],
                cwd=project,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        try:
            deadline = time.monotonic() + 600
            while " OK created " not in out_path.read_text(encoding="utf-8"):
                assert build.poll() is None, out_path.read_text(encoding="utf-8")[-3000:]
                assert time.monotonic() < deadline, "dbt created no model in time"
                time.sleep(0.2)
            victim = before[0]
            os.kill(victim, signal.SIGKILL)
            result["victim"] = victim
            result["exit"] = build.wait(timeout=900)
        finally:
            if build.poll() is None:
                build.kill()
        result["runs"].append(out_path.read_text(encoding="utf-8"))
        if result["exit"] != 0:  # the next run finishes what the lost one left
            done = subprocess.run(
                [*helpers, "run", "--landing", str(landing), "--", "build"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
            )
            assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
            result["runs"].append(done.stdout)
        result["before"] = before
        result["after"] = _executors(app)
        result["server_log"] = server.log_file.read_text(encoding="utf-8")
        result["export"] = run_in(project, state, *helpers, "export", CURRENT, port=port)
    finally:
        thrift.stop(server)
    return result


def test_the_cluster_ran_the_build_on_two_executors(lost: dict[str, Any]) -> None:
    """Each worker ran one of the application's executors, and the one
    killed was lost to the driver in the middle of the build."""
    assert len(lost["before"]) == 2
    assert lost["victim"] not in lost["after"]
    assert "Lost executor" in lost["server_log"] or "lost executor" in lost["server_log"].lower()


def test_an_executor_lost_mid_build_loses_and_doubles_nothing(lost: dict[str, Any]) -> None:
    changes = flattened_changes(SAMPLE_LANDING / TOPIC / flattened_smt.MYSQL_FILE)
    expected = current_state(changes, "id")
    rows = [json.loads(row) for row in json.loads(lost["export"])[CURRENT]["rows"]]
    actual = {row["id"]: row for row in rows}
    assert len(rows) == len(actual)  # one row per key
    assert sorted(actual) == sorted(expected)
    for key, row in expected.items():
        assert {c: actual[key][c] for c in COLUMNS} == {c: row[c] for c in COLUMNS}
    # every landed record is one staged, quarantined or tombstone row (over the runs:
    # a failed run's records are counted by the run that finishes them)
    counts = [tuple(map(int, found)) for run in lost["runs"] for found in SUMMARY.findall(run)]
    landed = sum(c[0] for c in counts)
    assert landed == sum(c[1] + c[2] + c[3] for c in counts)
    lines = (SAMPLE_LANDING / TOPIC / flattened_smt.MYSQL_FILE).read_text().splitlines()
    assert landed == len(lines)


def test_the_executors_are_the_workers_children(lost: dict[str, Any]) -> None:
    """The tasks ran in executor JVMs the cluster's workers started, not in
    the driver's process (the Thrift server's own JVM)."""
    assert all(standalone.WORKER_CLASS in parent for parent in lost["parents"])
