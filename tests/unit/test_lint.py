"""`python -m python_helpers lint` lints the SQL as written: every macro a
model calls is stood in for (no dbt, no Spark), the CTE it reads counts as
used, and a rule broken in the model's own text still fails the lint."""

from __future__ import annotations

import shutil
from pathlib import Path

from project_paths import PROJECT

from python_helpers.project.lint import called_macros, defined_macros, lint, sql_files

MODEL = (
    PROJECT
    / "models"
    / "generated"
    / "state"
    / "postgres"
    / "postgres__shop_public_orders__state.sql"
)


def _project(tmp_path: Path, model_text: str) -> Path:
    project = tmp_path / "project"
    for item in ("macros", ".sqlfluff", ".sqlfluffignore"):
        source = PROJECT / item
        if source.is_dir():
            shutil.copytree(source, project / item)
        else:
            shutil.copy(source, project / item)
    (project / "models").mkdir()
    (project / "models" / MODEL.name).write_text(model_text, encoding="utf-8")
    return project


def test_the_macros_the_models_call_get_stand_ins() -> None:
    defined = defined_macros(PROJECT / "macros")
    called = called_macros(sql_files([str(PROJECT / "models")]), defined)
    assert {"cdc_current_state", "cdc_current_view", "cdc_debezium_changes"} <= set(called)
    assert "cdc_valid_at" in called  # an expression, with a keyword argument
    assert "ref" not in called and "config" not in called  # dbt's builtins


def test_a_sample_model_passes_and_a_broken_rule_fails(tmp_path: Path) -> None:
    text = MODEL.read_text(encoding="utf-8")
    assert lint(_project(tmp_path / "good", text), ["models"], tmp_path / "good", 1) == 0
    shouted = text.replace("select * from final", "SELECT * FROM final")
    assert shouted != text
    assert lint(_project(tmp_path / "bad", shouted), ["models"], tmp_path / "bad", 1) != 0
