"""Where dbt writes its artifacts (manifest, run results) for a project."""

from __future__ import annotations

import os
from pathlib import Path


def target_path(project: Path) -> Path:
    """``DBT_TARGET_PATH`` (relative to the project, or absolute) when set,
    else the project's ``target`` (its dbt_project.yml's `target-path`)."""
    return project / os.environ.get("DBT_TARGET_PATH", "target")
