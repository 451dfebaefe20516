"""The real producer in the suite: Debezium's engine
(`python -m python_helpers capture`, its own process) streaming a
PostgreSQL cluster of the test's own (postgres_cluster.py) into a landing
as Kafka holds each record, while a workload runs on the database.

The capture starts with a snapshot; once its replication slot exists,
every later transaction is streamed, so the workload runs then; the
workload's last statement writes a row of the marker table, and the
capture stops when that row's record arrives (its topic is not written):
every transaction before it has been captured."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from postgres_cluster import Cluster
from project_paths import PROJECT
from project_runs import run_in

from python_helpers.project.init_project import fresh_project

MARKER_TABLE = "capture_marker"


def connector_properties(
    cluster: Cluster, prefix: str, slot: str, offsets: Path, extra: Mapping[str, str]
) -> dict[str, str]:
    """A PostgreSQL connector's settings (pgoutput, a publication of every
    table), its offsets in the file ``offsets``, ``extra`` on top."""
    return {
        "name": slot,
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "offset.storage": "org.apache.kafka.connect.storage.FileOffsetBackingStore",
        "offset.storage.file.filename": str(offsets),
        "offset.flush.interval.ms": "0",
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot,
        "publication.name": f"{slot}_publication",
        "publication.autocreate.mode": "all_tables",
        "snapshot.mode": "initial",
        **cluster.connector_settings(),
        **extra,
    }


def _write_properties(path: Path, properties: Mapping[str, str]) -> None:
    path.write_text("".join(f"{k}={v}\n" for k, v in properties.items()), encoding="utf-8")


def capture_during(
    cluster: Cluster,
    landing: Path,
    properties: Mapping[str, str],
    workload: Callable[[Cluster], None],
    timeout: float = 300.0,
) -> str:
    """Capture into ``landing`` while ``workload`` runs on ``cluster``;
    the capture's output. The marker table must exist."""
    return capture_many(cluster, landing, [properties], workload, timeout)[0]


def capture_many(
    cluster: Cluster,
    landing: Path,
    configurations: Sequence[Mapping[str, str]],
    workload: Callable[[Cluster], None],
    timeout: float = 300.0,
) -> list[str]:
    """One capture per configuration (each its own slot, topic prefix and
    process), all into ``landing``, while ``workload`` runs once; their
    outputs. The marker table must exist."""
    processes = []
    try:
        for properties in configurations:
            config = landing.parent / f"{properties['slot.name']}.properties"
            _write_properties(config, properties)
            marker = f"{properties['topic.prefix']}.public.{MARKER_TABLE}"
            log = landing.parent / f"{properties['slot.name']}.log"
            command = [
                sys.executable, "-m", "python_helpers", "capture", "--config", str(config),
                "--landing", str(landing), "--until-topic", marker, "--idle", str(timeout),
                "--max-seconds", str(timeout),
            ]  # fmt: skip
            with log.open("w", encoding="utf-8") as sink:
                process = subprocess.Popen(
                    command, cwd=PROJECT, stdout=sink, stderr=subprocess.STDOUT
                )
            processes.append((process, log))
        slots = ", ".join(f"'{p['slot.name']}'" for p in configurations)
        deadline = time.monotonic() + 180
        while cluster.value(
            f"select count(*) from pg_replication_slots where slot_name in ({slots}) and active"
        ) != str(len(configurations)):  # fmt: skip
            for process, log in processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a capture did not start: {log.read_text()[-4000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("the captures' slots are not active after 180 s")
            time.sleep(0.3)
        workload(cluster)
        cluster.sql(f"insert into {MARKER_TABLE} (at) values (clock_timestamp());")
        for process, _ in processes:
            process.wait(timeout)
    finally:
        for process, _ in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    outputs = []
    for process, log in processes:
        output = log.read_text(encoding="utf-8")
        if process.returncode != 0 or "stopped: a record of" not in output:
            raise RuntimeError(f"capture failed ({process.returncode}): {output[-4000:]}")
        outputs.append(output)
    return outputs


def build_landing(
    project_dir: Path, landing: Path, views: Sequence[str]
) -> tuple[Path, str, dict[str, Any]]:
    """A project made by `init` in ``project_dir`` runs `make run` on
    ``landing`` as a user's shell would; the project, the run's output and
    ``views`` as `export` prints them."""
    project = fresh_project(PROJECT, project_dir)
    state = project / ".state"
    venv = Path(sys.executable).parents[1]
    make_run = ["make", "--no-print-directory", "run", f"VENV={venv}"]
    run = run_in(project, state, *make_run, f"CDC_LANDING_DIR={landing}")
    helpers = [sys.executable, "-m", "python_helpers"]
    exported: dict[str, Any] = json.loads(run_in(project, state, *helpers, "export", *views))
    return project, run, exported
