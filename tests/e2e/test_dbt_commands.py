"""dbt's own commands, typed as the README's "Using dbt directly" says,
between two `make run`s, in a project made by `init` (issue 53).

A user runs `make run`, then `dbt seed`, `dbt build`, `dbt run`, `dbt
test`, `dbt build --full-refresh`, `dbt seed` and `dbt build` again, then
lands more and runs `make run` again. Every command exits 0, and the
current-state table equals the plain-Python reference of what was landed
after each stage: the flattened MySQL customers (schema blocks, deletes as
tombstones and as the converter's null payload; one topic: each command
costs a Spark start-up, what the test is about, more than its nodes).

Before the fix, `dbt seed` after `make run` failed with
LOCATION_ALREADY_EXISTS (the seed was a Hive text table whose folder
outlived its drop), and from then on every `make run` failed too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import flattened_smt
import pytest
from backlog import Backlog
from project_paths import PROJECT, SAMPLE_LANDING
from project_runs import export_options, project_env
from reference_model import current_state, flattened_changes

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

TOPICS = (flattened_smt.MYSQL_TOPIC,)
FILES = {flattened_smt.MYSQL_TOPIC: flattened_smt.MYSQL_FILE}
COLUMNS = ("first_name", "last_name", "email")
# each command once, then the two that broke again (a second seed and build
# after the full refresh): any number of times, in any order
DBT_COMMANDS = (
    ("seed",),
    ("build",),
    ("run",),
    ("test",),
    ("build", "--full-refresh"),
    ("seed",),
    ("build",),
)


def _land(landing: Path, lines: dict[str, int] | None) -> None:
    """Each topic's file (its first ``lines[topic]`` lines, else all) and
    its declaration as the folder's topic.yml."""
    for topic in TOPICS:
        folder = landing / topic
        folder.mkdir(parents=True, exist_ok=True)
        text = (SAMPLE_LANDING / topic / FILES[topic]).read_text(encoding="utf-8")
        kept = text.splitlines(keepends=True)[: lines[topic] if lines else None]
        (folder / FILES[topic]).write_text("".join(kept), encoding="utf-8")
        shutil.copy(PROJECT / "topics" / f"{topic}.yml", folder / "topic.yml")


def _expected(lines: dict[str, int] | None) -> dict[str, dict[Any, dict[str, Any]]]:
    expected = {}
    for topic in TOPICS:
        changes = flattened_changes(SAMPLE_LANDING / topic / FILES[topic])
        expected[topic] = current_state(changes[: lines[topic] if lines else None], "id")
    return expected


class Project:
    """The init project, its state folder and landing: commands run as a
    user's shell runs them."""

    def __init__(self, root: Path) -> None:
        self.root = fresh_project(PROJECT, root / "project")
        self.state = self.root / ".state"
        self.landing = root / "landing"
        self.env = project_env(self.state)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=self.root, env=self.env, capture_output=True, text=True)

    def make_run(self) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        """`make run`, and the current-state tables its process exported
        after dbt (RUN_ARGS: a separate export costs a Spark start-up)."""
        venv = Path(sys.executable).parents[1]
        out = self.root / "target" / "after-make-run.json"
        out.unlink(missing_ok=True)
        export = " ".join(export_options(out, TABLES.values()))
        done = self.run(
            "make",
            "--no-print-directory",
            "run",
            f"VENV={venv}",
            f"CDC_LANDING_DIR={self.landing}",
            f"RUN_ARGS={export}",
        )
        return done, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}

    def export(self) -> dict[str, Any]:
        """The current-state tables as `export` writes them."""
        done = self.run(sys.executable, "-m", "python_helpers", "export", *TABLES.values())
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)  # type: ignore[no-any-return]


TABLES = {topic: f"cdc_current.flattened__{topic.replace('.', '_')}" for topic in TOPICS}


def _current(exported: dict[str, Any]) -> dict[str, dict[Any, dict[str, Any]]]:
    return {
        topic: {row["id"]: row for row in map(json.loads, exported[table]["rows"])}
        for topic, table in TABLES.items()
    }


def _assert_current(
    exported: dict[str, Any], expected: dict[str, dict[Any, dict[str, Any]]]
) -> None:
    actual = _current(exported)
    for topic, rows in expected.items():
        assert sorted(actual[topic]) == sorted(rows), topic
        for key, row in rows.items():
            assert {c: actual[topic][key][c] for c in COLUMNS} == {c: row[c] for c in COLUMNS}


def _commands(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every command's outcome, in order, and the tables exported after
    each stage (the test reads them; built on either of the suite's
    threads, tests/support/backlog.py)."""
    project = Project(tmp_path_factory.mktemp("dbt-commands"))
    _land(project.landing, flattened_smt.FIRST_LINES)
    first, after_first = project.make_run()
    dbt = str(Path(sys.executable).parent / "dbt")
    commands = [project.run(dbt, *command) for command in DBT_COMMANDS]
    after_commands = project.export()
    _land(project.landing, None)
    second, after_second = project.make_run()
    return {
        "first": first,
        "after_first": after_first,
        "commands": commands,
        "after_commands": after_commands,
        "second": second,
        "after_second": after_second,
    }


BACKGROUND_BUILD = _commands
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 240


@pytest.fixture(scope="module")
def outcomes(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def test_dbt_commands_between_two_make_runs(outcomes: dict[str, Any]) -> None:
    first = flattened_smt.FIRST_LINES
    done = outcomes["first"]
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    _assert_current(outcomes["after_first"], _expected(first))
    for number, (command, done) in enumerate(
        zip(DBT_COMMANDS, outcomes["commands"], strict=True), start=1
    ):
        output = (done.stdout + done.stderr)[-4000:]
        assert done.returncode == 0, f"command {number}: dbt {' '.join(command)}\n{output}"
    _assert_current(outcomes["after_commands"], _expected(first))
    done = outcomes["second"]
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    _assert_current(outcomes["after_second"], _expected(None))
