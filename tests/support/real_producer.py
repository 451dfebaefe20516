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

import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from postgres_cluster import Cluster
from project_paths import PROJECT

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
    config = landing.parent / f"{properties['slot.name']}.properties"
    _write_properties(config, properties)
    marker = f"{properties['topic.prefix']}.public.{MARKER_TABLE}"
    log = landing.parent / f"{properties['slot.name']}.log"
    command = [
        sys.executable,
        "-m",
        "python_helpers",
        "capture",
        "--config",
        str(config),
        "--landing",
        str(landing),
        "--until-topic",
        marker,
        "--idle",
        str(timeout),
        "--max-seconds",
        str(timeout),
    ]
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(command, cwd=PROJECT, stdout=sink, stderr=subprocess.STDOUT)
        try:
            slot = properties["slot.name"]
            deadline = time.monotonic() + 120
            while (
                cluster.value(
                    "select count(*) from pg_replication_slots"
                    f" where slot_name = '{slot}' and active"
                )
                != "1"
            ):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the capture did not start: {log.read_text()[-4000:]}")
                time.sleep(0.3)
            workload(cluster)
            cluster.sql(f"insert into {MARKER_TABLE} (at) values (clock_timestamp());")
            process.wait(timeout)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    output = log.read_text(encoding="utf-8")
    if process.returncode != 0 or "stopped: a record of" not in output:
        raise RuntimeError(f"capture failed ({process.returncode}): {output[-4000:]}")
    return output
