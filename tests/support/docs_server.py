"""`make docs` on the shared runs' warehouse, serving on 127.0.0.1 until
stopped (tests/e2e/test_docs_site.py reads the site).

Started by the shared runs' thread as soon as the runs are built
(e2e_harness.BackgroundRuns): the site's generation (`dbt docs generate`
over every relation of the warehouse, a minute or more) then runs while
the tests that need no runs still run, instead of after them all.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from project_paths import PROJECT

from python_helpers.engine.thrift import listening


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serving(log: Path, port: int) -> bool:
    """Our server, not another process on the port: dbt says it serves
    (flushed as it starts) and the port takes connections."""
    return f"Serving docs at {port}" in log.read_text() and listening(port)


class DocsServer:
    """`make docs` on the warehouse of ``state``, until its server listens.
    The port is free when chosen, but `make docs` binds it only after
    generating the site: when something took it meanwhile, the generated
    site is served again on another free port. ``url`` once serving."""

    def __init__(self, state: Path) -> None:
        # unbuffered: dbt's "Serving docs at" line reaches the log as it starts
        env = os.environ | {
            "CDC_STATE_DIR": str(state),
            "PYTHONUNBUFFERED": "1",
            "DBT_PROFILES_DIR": "profiles",
        }
        log_path = state / "docs-serve.log"
        port = free_port()
        command = ["make", "--no-print-directory", "docs", f"DOCS_PORT={port}"]
        dbt = PROJECT / ".venv" / "bin" / "dbt"
        for attempt in range(3):
            with log_path.open("w") as log:
                self.process = subprocess.Popen(
                    command,
                    cwd=PROJECT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            deadline = time.monotonic() + 900
            while not _serving(log_path, port) and self.process.poll() is None:
                assert time.monotonic() < deadline, "make docs did not serve within 15 minutes"
                time.sleep(1)
            if _serving(log_path, port) and self.process.poll() is None:
                break
            text = log_path.read_text()
            assert "Address already in use" in text and attempt < 2, text[-3000:]
            port = free_port()
            command = [str(dbt), "docs", "serve", "--host", "127.0.0.1", "--port", str(port)]
            command.append("--no-browser")
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
