"""`init DIR`: a new project with the machinery and none of the samples
(the end-to-end check, `make run` in such a project, is test_run_plan)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from project_paths import PROJECT

from python_helpers.project.init_project import InitError, init_project, templated
from python_helpers.topic.spec_files import SPEC_DIR


def test_init_writes_the_machinery_without_the_samples(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    init_project(PROJECT, target)
    assert (target / "macros" / "connectors" / "relational").is_dir() and (
        target / "python_helpers"
    ).is_dir()
    assert (target / "tests" / "dbt" / "generic").is_dir()
    assert (target / "models" / "docs" / "_cdc_guarantees.md").exists()
    assert (target / "docs" / "guarantees.md").exists()  # the manual
    assert "`docs/`" in (target / "README.md").read_text()
    # no sample model: the quarantine summary and its counts only (every
    # project's; the counts of no topic, until the first sync)
    models = sorted(p.relative_to(target / "models") for p in (target / "models").rglob("*.sql"))
    assert models == [
        Path("generated", "ops", "cdc_quarantine_counts.sql"),
        Path("ops", "cdc_quarantine_summary.sql"),
    ]
    counts = (target / "models" / "generated" / "ops" / "cdc_quarantine_counts.sql").read_text()
    assert "quarantines=[\n    ]" in counts
    assert not list((target / "topics").glob("*.yml")) and not (target / SPEC_DIR).exists()
    assert not (target / "sample_landing").exists() and (target / "landing").is_dir()
    assert not (target / "bench").exists()
    assert sorted(p.name for p in (target / "tests").iterdir()) == ["dbt"]
    makefile = (target / "Makefile").read_text()
    absent_from_makefile = ("tests/e2e", "tests/unit", "bench", "sample_landing", "#>>")
    for absent in (*absent_from_makefile, "#!project", "CHROMIUM)\n"):
        assert absent not in makefile, absent
    assert "test: setup\n\t$(PY) -m python_helpers run --all -- build\n" in makefile
    assert "\t$(PY) -m python_helpers sync --check\n" in makefile
    config = tomllib.loads((target / "pyproject.toml").read_text())
    assert config["tool"]["mypy"]["packages"] == ["python_helpers"]
    assert "testpaths" not in config["tool"]["pytest"]["ini_options"]
    assert config["tool"]["pytest"]["ini_options"]["pythonpath"] == ["."]
    with pytest.raises(InitError, match="not empty"):
        init_project(PROJECT, target)


def test_markers_keep_one_file_for_both() -> None:
    text = "a\n#>> checkout\nb\n#<<\n#!project c\nd\n"
    assert templated(text) == "a\nc\nd\n"
    here = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    assert here["tool"]["mypy"]["packages"] == ["python_helpers", "bench"]
