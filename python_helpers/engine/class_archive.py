"""A class-data-sharing archive of the classes an embedded Spark loads.

Every one-shot run starts a JVM that loads and verifies thousands of classes
(Spark, Scala, Hive's metastore client, Iceberg) before its first
statement. A dynamic CDS archive (JDK 13+) holds them ready to map: on this
machine it cut the start to the first Iceberg read from 9.8-10.6 s to
6.3-6.8 s, and from 23-30 s to 12-14 s under load (docs/performance.md,
"Starts and landing").

``make setup`` (the ``jars`` command) writes it once into the virtual
environment, beside the pyspark whose jars it holds:
``<venv>/cdc-spark-classes.jsa``, with a note of the JDK and pyspark it
was made with (``<venv>/cdc-spark-classes.json``; a different JDK or
pyspark makes it again). The profile passes ``CDC_JVM_SHARING`` to the
embedded Spark's JVM: the CLI and the test suite set it to this archive;
a `dbt` typed in a shell uses the default the profile names,
``.venv/cdc-spark-classes.jsa``. A JVM that finds no archive there, or one
of another JDK or other jars, runs without it, silently: the archive only
ever saves time, and a failure to write it is a warning.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from hashlib import sha256
from pathlib import Path
from typing import Any

from python_helpers.engine.jars import install_iceberg_jar

ARCHIVE_NAME = "cdc-spark-classes.jsa"
NOTE_NAME = "cdc-spark-classes.json"
SHARING_ENV = "CDC_JVM_SHARING"
# the JVM's own notes on the archive (missing, made by another JDK) silenced
QUIET = "-Xlog:cds*=off"


def archive_path() -> Path:
    """Where this environment's archive is (or is to be)."""
    return Path(sys.prefix) / ARCHIVE_NAME


def sharing_flags(archive: Path) -> str:
    return f"-XX:SharedArchiveFile={archive} {QUIET}"


def use_archive() -> None:
    """Let the Spark this process (and its children) start map this
    environment's archive, unless ``CDC_JVM_SHARING`` says otherwise."""
    os.environ.setdefault(SHARING_ENV, sharing_flags(archive_path()))


def _java() -> Path | None:
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else shutil.which("java")
    return Path(found).resolve() if found else None


def fingerprint() -> dict[str, Any]:
    """What the archive depends on: the JDK's binary, pyspark's version and
    the jars it starts the JVM with."""
    import pyspark

    java = _java()
    # the JVM's class path, as pyspark gives it (the real path: the archive
    # holds it, and a different one makes the JVM set the archive aside)
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    listing = "\n".join(f"{p} {p.stat().st_size}" for p in sorted(jars.glob("*.jar")))
    return {
        "java": None if java is None else f"{java} {java.stat().st_mtime_ns}",
        "pyspark": pyspark.__version__,
        "jars": sha256(listing.encode()).hexdigest(),
    }


def ensure_archive(project: Path) -> str:
    """Write the archive unless the one there was made for this JDK and
    pyspark; returns what happened, for people. One writer at a time."""
    archive = archive_path()
    note = archive.with_name(NOTE_NAME)
    wanted = fingerprint()
    with (archive.with_name(ARCHIVE_NAME + ".lock")).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            noted = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            noted = None
        if noted is not None and noted.get("made_for") == wanted:
            note.touch()  # newer than the environment: make asks no more
            if archive.exists():
                return f"{archive} (up to date)"
            return f"none: {noted.get('problem', 'not written')}"
        started = time.monotonic()
        problem = _write(project, archive)
        note.write_text(
            json.dumps({"made_for": wanted, "problem": problem}, indent=2) + "\n",
            encoding="utf-8",
        )
        if problem is not None:
            archive.unlink(missing_ok=True)
            print(f"warning: no class archive (Spark starts slower): {problem}", file=sys.stderr)
            return f"none: {problem}"
        return f"{archive} (written in {time.monotonic() - started:.0f}s)"


def _write(project: Path, archive: Path) -> str | None:
    """Run the workload in a JVM that archives what it loaded at its exit;
    the archive replaces the old one whole. Returns a problem, or None."""
    partial = archive.with_name(ARCHIVE_NAME + ".partial")
    partial.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="cdc-class-archive-") as scratch:
        state = Path(scratch)
        install_iceberg_jar(state)
        env = os.environ | {
            "CDC_STATE_DIR": str(state),
            SHARING_ENV: f"-XX:ArchiveClassesAtExit={partial} {QUIET}",
        }
        done = subprocess.run(
            [sys.executable, "-m", "python_helpers.engine.class_archive"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        return f"the workload failed: {(done.stdout + done.stderr)[-500:]}"
    if not partial.exists():
        return "the JVM wrote no archive"
    partial.replace(archive)
    return None


# what a build does, in small: the classes of these statements are archived
_WORKLOAD = (
    "create database if not exists cdc_archive",
    "create table cdc_archive.t (id int, v string, at timestamp, d decimal(10, 2))"
    " using iceberg tblproperties ('format-version' = '2',"
    " 'write.delete.mode' = 'merge-on-read', 'write.parquet.compression-codec' = 'zstd')",
    "insert into cdc_archive.t select cast(id as int), to_json(named_struct('a', id)),"
    " current_timestamp(), cast(id as decimal(10, 2)) from range(10)",
    "select from_json(v, 'struct<a: bigint>').a as a, count(*) over (partition by id % 2"
    " order by at) as n, max_by(v, at) over (partition by id) as m,"
    " row_number() over (partition by id order by at desc) as r from cdc_archive.t",
    "merge into cdc_archive.t as t using (select 1 as id, 'x' as v, current_timestamp() as at,"
    " cast(1 as decimal(10, 2)) as d) as s on t.id = s.id"
    " when matched then update set * when not matched then insert *",
    "delete from cdc_archive.t where id = 2",
    "insert into cdc_archive.t by name select * from cdc_archive.t where id = 3",
    "create or replace view cdc_archive.v as select id, v from cdc_archive.t",
    "select * from cdc_archive.v where id < 5 order by id",
    "describe table extended cdc_archive.t",
    "show tables in cdc_archive",
    "select count(*) from cdc_archive.t.snapshots",
    "select typeof(struct(t.*)), to_json(struct(t.*)) from cdc_archive.t as t limit 1",
    "drop view cdc_archive.v",
    "drop table cdc_archive.t",
)


def _workload() -> None:
    from python_helpers.engine.spark_session import local_spark

    lines = Path(os.environ["CDC_STATE_DIR"]) / "lines.jsonl"
    lines.write_text('{"a": 1}\n{"a": 2}\n', encoding="utf-8")
    spark = local_spark(Path("."))
    for statement in (*_WORKLOAD, f"select count(*) from text.`{lines}`"):
        spark.sql(statement).collect()
    spark.stop()


if __name__ == "__main__":
    _workload()
