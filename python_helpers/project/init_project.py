"""``init DIR``: start a project for your own topics from this checkout.

The new project gets the machinery (macros, profiles, dbt's generic and
structure tests, the doc blocks, the manual in ``docs/``, the CLI, the
Makefile and the pinned requirements) and none of the samples (models, declarations, landings,
their Python tests and benchmarks). Files that differ between the two say
so with markers, so one file serves both: lines between ``#>> checkout``
and ``#<<`` are left out, and a line starting ``#!project `` is written
without that prefix.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from python_helpers.project import generated_models
from python_helpers.topic.spec_files import SPEC_DIR

COPIED = (
    ".gitattributes",
    ".gitignore",
    ".sqlfluff",
    ".sqlfluffignore",
    "Makefile",
    "assets",
    "docs",
    "dbt_project.yml",
    "profiles",
    "macros",
    "models/docs",
    "models/ops",
    "python_helpers",
    "pyproject.toml",
    "requirements.txt",
    "requirements-jars.txt",
    "requirements-producer.txt",
    "seeds",
    "tests/dbt",
)
# files whose checkout-only lines are left out (see the module's docstring)
TEMPLATED = ("Makefile", "pyproject.toml")
LANDING = "landing"
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc")
_README = """# {name}

Kafka Connect / Debezium change-data-capture topics turned into current-state
tables on Spark, as a dbt project (started with `python -m python_helpers init`).

- `make run`: sets everything up, then syncs the topics landed under
  `landing/<topic>/*.jsonl` (or `CDC_LANDING_DIR`), lands them and builds
  their models; `make test`: the same build with every dbt test, then
  `sync --check`, sqlfluff, ruff and mypy.
- Each topic is declared once, in `topics/<topic>.yml` (written by `sync`;
  edit it there, descriptions and tests included); its staging and
  current-state models are yours to edit (written once), everything under
  `models/generated/` is rewritten by every `sync`.
- The manual: `docs/` (from the checkout this project was started from,
  whose README names its pages; its sample topics are not here).
"""


class InitError(ValueError):
    """A target that is not an empty or new folder."""


def templated(text: str) -> str:
    """``text`` as the new project has it: checkout-only blocks left out,
    project-only lines switched on."""
    lines, skipping = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("#>> checkout"):
            skipping = True
        elif line.startswith("#<<") and skipping:
            skipping = False
        elif not skipping:
            lines.append(line.removeprefix("#!project "))
    return "".join(lines)


def fresh_project(source: Path, target: Path) -> Path:
    """A new project at ``target`` (emptied first): where the tests and
    benchmarks run ``sync`` on landings of their own, leaving this
    checkout's files as they are; returns ``target``."""
    shutil.rmtree(target, ignore_errors=True)
    init_project(source, target)
    return target


def init_project(source: Path, target: Path) -> list[Path]:
    """Write a new project at ``target`` from the checkout ``source``;
    returns the top-level paths written."""
    if target.exists() and any(target.iterdir()):
        raise InitError(f"{target} exists and is not empty: choose a new folder")
    written = []
    for item in COPIED:
        origin, destination = source / item, target / item
        destination.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, destination, ignore=_SKIPPED)
        elif item in TEMPLATED:
            destination.write_text(templated(origin.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copy2(origin, destination)  # its time too: make's stamps stay valid
        written.append(destination)
    shutil.rmtree(target / SPEC_DIR, ignore_errors=True)
    for folder in (LANDING, "topics"):
        (target / folder).mkdir()
        (target / folder / ".gitkeep").touch()
        written.append(target / folder)
    readme = target / "README.md"
    readme.write_text(_README.format(name=target.resolve().name), encoding="utf-8")
    written.append(readme)
    # what the models under models/ops read, for no topic yet (sync keeps them)
    for path, text in generated_models.project_files(target, []).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    written.append(target / "models" / "generated")
    return written
