"""Run the CLI or dbt in a throwaway project copy, as a user's shell would."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from project_paths import PROJECT


def project_env(state: Path) -> dict[str, str]:
    """This process's environment as a user's shell in a project has it:
    the project's state folder and profiles, this checkout's helpers."""
    return os.environ | {
        "CDC_STATE_DIR": str(state),
        "DBT_PROFILES_DIR": "profiles",
        "PYTHONPATH": str(PROJECT),
    }


# Spark's own settings (expressions compiled, adaptive execution, the
# profile's shuffle partitions), in place of the suite's small-data ones
# (tests/conftest.py): for a module that runs as a user's shell does
USER_SPARK = {
    "CDC_CODEGEN_MODE": "FALLBACK",
    "CDC_ADAPTIVE_QUERIES": "true",
    "CDC_SHUFFLE_PARTITIONS": "4",
}


def export_options(out: Path, tables: Iterable[str]) -> list[str]:
    """`run`'s options that export ``tables`` to ``out`` in its own process
    after dbt (a separate `export` costs another Spark start-up)."""
    return ["--export", str(out), *(arg for table in tables for arg in ("--export-table", table))]


def run_in(
    project: Path,
    state: Path,
    *args: str,
    port: int | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> str:
    """Run ``args`` in ``project`` with its own state folder (and, given
    ``port``, the cluster target's Thrift port; ``extra_env`` on top of
    the environment); its output. Fails the test, with the end of both
    streams, when the command fails."""
    env = project_env(state) | dict(extra_env or {})
    if port is not None:
        env["CDC_SPARK_PORT"] = str(port)
    done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-4000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def emails(output: str, table: str) -> dict[int, str]:
    """id -> email of the rows of ``table`` in an `export` output."""
    rows = json.loads(output)[table]["rows"]
    return {json.loads(r)["id"]: json.loads(r)["email"] for r in rows}
