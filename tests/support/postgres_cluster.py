"""A PostgreSQL cluster of the test's own (Debian's PostgreSQL 15, the
`postgresql` package): `initdb` into a folder under the state folder,
`pg_ctl` on a free loopback port with `wal_level=logical` (what Debezium's
pgoutput capture needs), stopped at the end. As root (CI, this machine) the
server runs as the `postgres` user, which `initdb` requires; SQL goes
through `psql` on the same port."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from project_runs import free_port

SERVER_USER = "postgres"
SETTINGS = {
    "wal_level": "logical",
    "max_replication_slots": "20",
    "max_wal_senders": "20",
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


def _binaries() -> Path:
    """Where initdb and pg_ctl are: pg_config's bindir, else PATH."""
    found = shutil.which("pg_config")
    if found:
        done = subprocess.run([found, "--bindir"], capture_output=True, text=True)
        if done.returncode == 0 and (Path(done.stdout.strip()) / "initdb").exists():
            return Path(done.stdout.strip())
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    initdb = shutil.which("initdb")
    if initdb is None:
        raise RuntimeError(
            "PostgreSQL's initdb is not installed (Debian: apt-get install postgresql)"
        )
    return Path(initdb).resolve().parent


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", SERVER_USER, "--", *args] if os.geteuid() == 0 else args


class Cluster:
    """A running cluster: ``sql`` runs statements, ``rows`` reads a query."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.database = "postgres"

    def _psql(self, *args: str, stdin: str | None = None) -> str:
        command = [
            "psql",
            "-X",
            "-q",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            self.database,
            *args,
        ]
        done = subprocess.run(command, input=stdin, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr[-3000:]}\n{(stdin or '')[:2000]}")
        return done.stdout

    def sql(self, statements: str) -> None:
        """Run ``statements`` (a script: each statement its own transaction
        unless the script says begin/commit)."""
        self._psql(stdin=statements)

    def rows(self, query: str) -> list[dict[str, Any]]:
        """The rows of ``query`` as PostgreSQL's JSON of them (numbers as
        exact decimals)."""
        wrapped = f"select coalesce(json_agg(q), '[]') from ({query}) as q"
        text = self._psql("-At", "-c", wrapped)
        loaded: list[dict[str, Any]] = json.loads(text, parse_float=Decimal)
        return loaded

    def value(self, query: str) -> str:
        return self._psql("-At", "-c", query).strip()

    def connector_settings(self) -> dict[str, str]:
        """The Debezium PostgreSQL connector's connection settings."""
        return {
            "database.hostname": "127.0.0.1",
            "database.port": str(self.port),
            "database.user": "postgres",
            "database.password": "postgres",
            "database.dbname": self.database,
        }


@contextmanager
def running_cluster(folder: Path) -> Iterator[Cluster]:
    """A fresh cluster in ``folder`` (emptied first), stopped at the end."""
    binaries = _binaries()
    if folder.exists():
        stop(folder)
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, SERVER_USER)
    init = [
        str(binaries / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--locale=C",
    ]
    subprocess.run(_as_server_user(init), check=True, capture_output=True)
    port = free_port()
    options = " ".join(f"-c {name}={value}" for name, value in SETTINGS.items())
    options += f" -c port={port} -c unix_socket_directories={folder}"
    start = [
        str(binaries / "pg_ctl"),
        "-D",
        str(data),
        "-o",
        options,
        "-l",
        str(folder / "server.log"),
        "-w",
        "start",
    ]
    subprocess.run(_as_server_user(start), check=True, capture_output=True)
    cluster = Cluster(folder, port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                cluster.value("select 1")
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield cluster
    finally:
        stop(folder)


def stop(folder: Path) -> None:
    """Stop the cluster in ``folder`` if one runs there."""
    data = folder / "data"
    if (data / "postmaster.pid").exists():
        command = [str(_binaries() / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(command), capture_output=True)
