"""A standalone Spark cluster on this machine: a master and workers.

``start`` runs pyspark's own ``deploy.master.Master`` and
``deploy.worker.Worker`` classes through ``spark-class`` (the pinned
pyspark's jars: nothing is fetched), bound to 127.0.0.1, each worker with
its own cores, memory and work folder; their pids, logs and work folders
live under ``<state>/cluster/``. A Thrift server submitted to its master
(``thrift.start`` with ``CDC_SPARK_MASTER`` set) runs every task in a
worker's executor JVM: another process than the driver, as on EMR,
Dataproc or Kubernetes. ``stop`` ends them all. docs/cluster.md says what
is verified on it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_helpers.engine.thrift import HOST, MASTER_VARIABLE, listening, spark_home

MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
__all__ = ["MASTER_VARIABLE", "Cluster", "executor_pids", "newest_application", "start", "stop"]


@dataclass(frozen=True)
class Cluster:
    """Where a cluster's processes keep their pids, logs and work."""

    state: Path
    port: int = 7077
    web_port: int = 8090
    workers: int = 2
    # two cores a worker (on any machine): two applications at once (the
    # suite's shared runs and a test's own server) each get an executor on
    # every worker (an application takes at most thrift.EXECUTOR_CONF's
    # spark.cores.max)
    worker_cores: int = 2
    worker_memory: str = "3g"

    @property
    def folder(self) -> Path:
        return self.state / "cluster"

    @property
    def url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    def pid_file(self, name: str) -> Path:
        return self.folder / f"{name}.pid"

    def log_file(self, name: str) -> Path:
        return self.folder / f"{name}.log"

    @property
    def names(self) -> list[str]:
        return ["master", *(f"worker-{n}" for n in range(1, self.workers + 1))]


def _environ(cluster: Cluster) -> dict[str, str]:
    return dict(os.environ) | {
        "SPARK_HOME": spark_home(),
        "SPARK_LOCAL_IP": HOST,
        "SPARK_LOG_DIR": str(cluster.folder),
        # the daemons themselves are small; executors get the app's memory
        "SPARK_DAEMON_MEMORY": "512m",
    }


def _command(cluster: Cluster, name: str) -> list[str]:
    spark_class = str(Path(spark_home()) / "bin" / "spark-class")
    if name == "master":
        return [
            spark_class,
            MASTER_CLASS,
            "--host",
            HOST,
            "--port",
            str(cluster.port),
            "--webui-port",
            str(cluster.web_port),
        ]
    work = cluster.folder / name
    work.mkdir(parents=True, exist_ok=True)
    return [
        spark_class,
        WORKER_CLASS,
        "--host",
        HOST,
        "--webui-port",
        "0",
        "--cores",
        str(cluster.worker_cores),
        "--memory",
        cluster.worker_memory,
        "--work-dir",
        str(work.resolve()),
        cluster.url,
    ]


def running_pid(cluster: Cluster, name: str) -> int | None:
    """The process id of the cluster's process ``name``, if it runs."""
    path = cluster.pid_file(name)
    if not path.exists():
        return None
    pid = int(path.read_text().strip())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def master_status(web_port: int = Cluster.web_port) -> dict[str, Any]:
    """The master's status page as JSON (workers, applications); {} when
    it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{web_port}/json/", timeout=5) as page:
            found = json.load(page)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def alive_workers(cluster: Cluster) -> int:
    """How many workers the master counts as alive (0 when it does not
    answer)."""
    return int(master_status(cluster.web_port).get("aliveworkers", 0))


def newest_application(web_port: int = Cluster.web_port) -> str | None:
    """The id of the application that registered last, of those running."""
    apps = master_status(web_port).get("activeapps", [])
    newest = max(apps, key=lambda app: app.get("starttime", 0), default=None)
    return str(newest["id"]) if newest else None


def _spawn(cluster: Cluster, name: str) -> None:
    with cluster.log_file(name).open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            _command(cluster, name),
            env=_environ(cluster),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stop ends its children too
        )
    cluster.pid_file(name).write_text(str(process.pid))


def start(cluster: Cluster, timeout: float = 180) -> None:
    """Start the master, then the workers, and wait until the master counts
    every worker alive. Refuses when one of them already runs or a port is
    taken."""
    if any(running_pid(cluster, name) is not None for name in cluster.names):
        raise RuntimeError(f"a cluster already runs (pid files in {cluster.folder})")
    for port in (cluster.port, cluster.web_port):
        if listening(port):
            raise RuntimeError(f"{HOST}:{port} is taken by another process")
    cluster.folder.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    _spawn(cluster, "master")
    while not listening(cluster.port):
        _check(cluster, "master", deadline)
    for name in cluster.names[1:]:
        _spawn(cluster, name)
    while alive_workers(cluster) < cluster.workers:
        for name in cluster.names:
            _check(cluster, name, deadline)


def _check(cluster: Cluster, name: str, deadline: float) -> None:
    """Wait a moment; stop everything and raise when ``name`` died or the
    deadline passed."""
    if running_pid(cluster, name) is None:
        stop(cluster)
        raise RuntimeError(f"the cluster's {name} exited: see {cluster.log_file(name)}")
    if time.monotonic() > deadline:
        stop(cluster)
        raise RuntimeError(f"the cluster did not start in time: see {cluster.folder}")
    time.sleep(1)


def stop(cluster: Cluster, timeout: float = 60) -> bool:
    """Stop the workers (and their executors), then the master; False when
    none ran."""
    stopped = False
    for name in reversed(cluster.names):
        pid = running_pid(cluster, name)
        if pid is not None:
            stopped = True
            os.killpg(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while running_pid(cluster, name) is not None and time.monotonic() < deadline:
                time.sleep(0.5)
            if running_pid(cluster, name) is not None:
                os.killpg(pid, signal.SIGKILL)
        cluster.pid_file(name).unlink(missing_ok=True)
    return stopped


def executor_pids() -> list[int]:
    """The process ids of this machine's executor JVMs (a worker starts one
    per application it serves)."""
    found = subprocess.run(["pgrep", "-f", EXECUTOR_CLASS], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]
