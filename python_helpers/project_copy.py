"""A throwaway copy of this dbt project without any topic's models.

The benchmark and the schema-evolution test run `sync` (which scaffolds
models and rewrites the generated schema macro) on landings of their own:
they do it in a copy, so the project's own files stay as they are.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from python_helpers.spec_files import LEGACY_MACRO, SPEC_DIR

COPIED = ("dbt_project.yml", "profiles", "macros", "tests/dbt", "models/docs")


def project_copy(project: Path, target: Path) -> Path:
    """Copy the project's configuration and macros to ``target`` (emptied
    first), without models or generated schemas; returns ``target``."""
    if target.exists():
        shutil.rmtree(target)
    for item in COPIED:
        source = project / item
        destination = target / item
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination)
        else:
            shutil.copy(source, destination)
    (target / LEGACY_MACRO).unlink(missing_ok=True)
    shutil.rmtree(target / SPEC_DIR, ignore_errors=True)
    return target
