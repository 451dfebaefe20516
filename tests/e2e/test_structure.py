"""The structure rules (tests/dbt/structure) fail on the models that break
them, and only on those.

The project's own models keep every rule: the singular tests run in every
`dbt build` of the end-to-end suite (and of the schema-evolution test, on
models `sync` scaffolds). Here they run, with real dbt and Spark, on a copy
of the project's macros and tests with a few hand-written models: one
compliant chain and one model per way of breaking a rule.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from project_paths import PROJECT

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

SOURCES_YML = """\
version: 2
sources:
  - name: raw
    description: Raw landings.
    schema: cdc_landing
    tables:
      - name: events
        description: Raw events.
        columns:
          - name: id
            description: Event id.
"""
COMPLIANT_YML = """\
version: 2
models:
  - name: base_events
    description: One row per raw event.
    columns:
      - name: id
        description: Event id.
        data_tests: [unique, not_null]
  - name: events_state
    description: State per id.
    data_tests:
      - cdc_unique_combination:
          arguments:
            columns: [id]
    columns:
      # declared for its test only: described where it is said once
      - name: id
        data_tests: [not_null]
  - name: reads_current
    description: A staging model reading a current-state model.
    columns:
      - name: id
"""
MODELS = {
    # compliant: reads the source in generated/base, tested, documented
    "generated/base/base_events.sql": "select id from {{ source('raw', 'events') }}",
    "generated/state/events_state.sql": "select id from {{ ref('base_events') }}",
    # reads a source outside staging; no description; no key test
    "current/reads_source.sql": "select id from {{ source('raw', 'events') }}",
    # staging reading a later layer; a column without description; no key test
    "staging/reads_current.sql": "select id from {{ ref('events_state') }}",
    # in no layer folder; no description; no key test
    "marts/elsewhere.sql": "select id from {{ ref('base_events') }}",
}
EXPECTED = {
    "source_outside_staging": {"reads_source"},
    "primary_key_untested": {"reads_source", "reads_current", "elsewhere"},
    "undocumented": {"reads_source", "reads_current", "elsewhere"},
    "later_layer_dependency": {"reads_current", "elsewhere"},
}


def _project(root: Path) -> Path:
    project = fresh_project(PROJECT, root / "project")
    models = project / "models"
    (models / "generated" / "base").mkdir(parents=True)
    (models / "generated" / "base" / "_sources.yml").write_text(SOURCES_YML)
    (models / "_models.yml").write_text(COMPLIANT_YML)
    for path, sql in MODELS.items():
        (models / path).parent.mkdir(parents=True, exist_ok=True)
        (models / path).write_text(sql + "\n")
    return project


def test_structure_rules_name_exactly_the_models_that_break_them(tmp_path: Path) -> None:
    project = _project(tmp_path)
    env = os.environ | {
        "CDC_STATE_DIR": str(tmp_path / "state"),
        "DBT_PROFILES_DIR": "profiles",
        "PYTHONPATH": str(PROJECT),
    }
    python = sys.executable
    subprocess.run([python, "-m", "python_helpers", "jars"], cwd=project, env=env, check=True)
    done = subprocess.run(
        [str(Path(python).parent / "dbt"), "test", "--select", "tag:cdc_structure"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout[-3000:]  # dbt's exit code for failed tests
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    failures = {r["unique_id"].split(".")[2]: r["failures"] for r in results}
    compiled = project / "target" / "compiled" / "cdc" / "tests" / "dbt" / "structure"
    for rule, models in EXPECTED.items():
        name = f"cdc_structure__{rule}"
        sql = (compiled / f"{name}.sql").read_text()
        named = set(re.findall(r"\('([a-z_]+)', '", sql))
        assert named == models, (rule, named)
        assert failures[name] == len(re.findall(r"\('[a-z_]+', '", sql)), rule
    undocumented = (compiled / "cdc_structure__undocumented.sql").read_text()
    assert "column id has no description" in undocumented
    assert (
        "marts/elsewhere.sql is in no layer folder"
        in (compiled / "cdc_structure__later_layer_dependency.sql").read_text()
    )
