"""The project's static checks, as `make lint` and `make typecheck` run
them: every model, macro-calling test and snapshot passes sqlfluff (the
project's own `lint` command, tests/dbt included), and the package and the
benchmarks pass mypy's strict mode.

They need no Spark and no shared run, so the suite runs them as a build
of the backlog (tests/support/backlog.py): on whichever of its two threads
is free first — mostly on a core the end-to-end builds leave idle near the
suite's end, where `make test` ran them one after the other, after pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from backlog import Backlog
from project_paths import PROJECT

# no Spark, but a minute of the slow lane's (the fast lane leaves them to
# `make lint` and `make typecheck`)
pytestmark = pytest.mark.spark

VENV_BIN = Path(sys.executable).parent


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=PROJECT, capture_output=True, text=True, check=False)


def _checks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    del tmp_path_factory  # the checks write nothing but their caches
    helpers = (sys.executable, "-m", "python_helpers")
    return {
        # as many processes as cores: while the other thread's build is
        # busy they share them, and the last build of the suite has both
        "lint": _check(
            *helpers, "lint", "--processes", str(os.cpu_count() or 1), "models", "tests/dbt"
        ),
        "mypy": _check(str(VENV_BIN / "mypy")),
    }


BACKGROUND_BUILD = _checks
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 74


@pytest.fixture(scope="module")
def checks(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def test_every_model_and_dbt_test_passes_the_linter(checks: dict[str, Any]) -> None:
    done = checks["lint"]
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]


def test_the_package_and_benchmarks_type_check(checks: dict[str, Any]) -> None:
    done = checks["mypy"]
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert "Success: no issues found" in done.stdout
