"""The watch on the `cluster` target (issue 23: "it also runs against the
cluster target"), in the `make test-thrift` lane only (it needs the lane's
`CDC_DBT_TARGET=cluster`): a fresh project, a Spark Thrift server started
on its state folder, and `run --watch` pointed at it. Its first cycle lands
and builds the topic through the server; an event file added while it runs
reaches the current-state table, read from another process through the
same server; SIGTERM stops it; `maintain` compacts through the server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from project_paths import PROJECT, copy_sample_topic
from project_runs import emails, free_port, run_in

from python_helpers.engine import thrift
from python_helpers.project.init_project import fresh_project

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        os.environ.get("CDC_DBT_TARGET") != "cluster",
        reason="the cluster-target watch runs in `make test-thrift`",
    ),
]

TOPIC = "dbserver1.inventory.customers"
CURRENT = "cdc_current.mysql__dbserver1_inventory_customers"


def _wait_for(path: Path, text: str, count: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while path.read_text(encoding="utf-8").count(text) < count:
        assert time.monotonic() < deadline, f"timed out waiting for {count} x {text!r} in {path}"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def watched() -> dict[str, Any]:
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-watch-cluster" / "project")
    state = project / ".state"
    landing = project / "landing"
    copy_sample_topic(TOPIC, landing)
    template = json.loads(
        next((PROJECT / "sample_landing" / TOPIC).glob("*.jsonl")).read_text().splitlines()[0]
    )
    helpers = [sys.executable, "-m", "python_helpers"]
    # a port of its own: the lane's shared runs serve on the profile's port
    port = free_port()
    env = os.environ | {"CDC_STATE_DIR": str(state), "CDC_SPARK_PORT": str(port)}
    env |= {"PYTHONPATH": str(PROJECT)}
    server = thrift.Server(state, port)
    thrift.start(project, server)
    result: dict[str, Any] = {}
    try:
        log = state / "watch" / "watch.log"
        out_path = state / "watch.out"
        with out_path.open("w", encoding="utf-8") as out:
            process = subprocess.Popen(
                [*helpers, "run", "--watch", "--interval", "1"],
                cwd=project,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
            )
        try:
            _wait_for(out_path, " staged, ", 1)
            template["payload"]["op"] = "c"
            template["payload"]["after"] |= {"id": 4001, "email": "cluster@example.com"}
            # compact, as the sample is written: the schema block's text is
            # its version (with spaces it is a version sync has not seen)
            (landing / TOPIC / "z-cluster.jsonl").write_text(
                json.dumps(template, separators=(",", ":")) + "\n", encoding="utf-8"
            )
            _wait_for(out_path, " 1 landed, ", 1)
            result["export"] = run_in(project, state, *helpers, "export", CURRENT, port=port)
            process.send_signal(signal.SIGTERM)
            result["exit"] = process.wait(timeout=180)
        finally:
            if process.poll() is None:
                process.kill()
        result["output"] = out_path.read_text(encoding="utf-8")
        result["log"] = log.read_text(encoding="utf-8")
        result["maintain"] = run_in(
            project, state, *helpers, "maintain", "--topic", TOPIC, port=port
        )
        result["export_maintained"] = run_in(project, state, *helpers, "export", CURRENT, port=port)
    finally:
        thrift.stop(server)
    return result


def test_the_watch_lands_and_builds_through_the_cluster_target(watched: dict[str, Any]) -> None:
    assert "through the cluster target" in watched["log"]
    assert "serving the tables" not in watched["output"]  # the cluster serves already
    assert emails(watched["export"], CURRENT)[4001] == "cluster@example.com"
    assert watched["exit"] == 0


def test_maintain_goes_through_the_cluster_target(watched: dict[str, Any]) -> None:
    assert f"{CURRENT}__state:" in watched["maintain"]
    assert emails(watched["export_maintained"], CURRENT) == emails(watched["export"], CURRENT)
