"""The Spark column each source column becomes (schema.column_names):
deterministic, never two alike as Spark compares them, stable across
schema versions, keys never renamed; and sync of a topic with the
hostile names: every generated file passes the code check, renders as
data and keeps the names."""

from __future__ import annotations

import shutil
from pathlib import Path

import jinja2
import pytest
import yaml
from hostile_names import CANARY_LOG, HOSTILE_NAMES, hostile_topic
from hypothesis import given, settings
from hypothesis import strategies as st

from python_helpers.project.code_check import file_problem
from python_helpers.project.sync import sync
from python_helpers.schema.column_names import (
    ColumnNameError,
    catalog_key,
    is_plain_identifier,
    nested_names,
    spark_key,
    spark_names,
)
from python_helpers.topic import spec_files

NAMES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "name",
                "Name",
                "NAME",
                "_cdc_op",
                "#x",
                "",
                "name_2",
                "ß",
                "SS",
                "ǅ",
                "name ",
                "Name  ",
            ]
        ),
        st.text(max_size=6),
    ),
    max_size=12,
    unique=True,
)


# the hostile names Spark cannot hold as they are: the case-only pair's
# second, one dbt-spark's describe would end the column list at, and the
# trailing-blank pair's second (one column to the metastore)
MAPPED = {"name": "name_2", "#x": "_#x", "pad ": "pad _2"}


def _columns(names: list[str], mapping: dict[str, str]) -> list[str]:
    return [mapping.get(name, name) for name in names]


@settings(max_examples=300, deadline=None)
@given(NAMES, st.data())
def test_every_column_gets_a_name_spark_holds_apart(names: list[str], data: st.DataObject) -> None:
    keys = [n for n in names if n and not n.startswith(("#", "_")) and n.islower()][:1]
    try:
        mapping = spark_names(names, keys)
    except ColumnNameError:
        return
    columns = _columns(names, mapping)
    assert len({catalog_key(c) for c in columns}) == len(columns)
    assert all(c and not c.startswith("#") for c in columns)
    assert all(k not in mapping for k in keys)
    assert spark_names(names, keys) == mapping  # deterministic
    # a later schema version adds columns: what was mapped stays, the
    # columns that kept their names keep them
    more = data.draw(NAMES)
    later = names + [n for n in more if n not in names]
    again = spark_names(later, keys, mapping)
    assert _columns(names, again) == columns
    assert len({catalog_key(c) for c in _columns(later, again)}) == len(later)


def test_the_rule_on_the_issues_names() -> None:
    mapping = spark_names(["item_id", "Name", "name", "#x", "_cdc_op", ""], ["item_id"])
    assert mapping == {"name": "name_2", "#x": "_#x", "_cdc_op": "src_cdc_op", "": "_"}
    with pytest.raises(ColumnNameError, match="primary key column 'name'"):
        spark_names(["Name", "name"], ["name"], {"Name": "name"})
    # a name and the same name with trailing blanks: one column to the
    # metastore (Derby pads), so the second is mapped like a case pair
    assert spark_names(["pad", "pad ", "Pad  "]) == {"pad ": "pad _2", "Pad  ": "Pad  _2"}


@pytest.fixture(scope="module")
def hostile_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hostile")
    landing = root / "landing"
    for connector in ("postgresql", "mysql", "sqlserver"):
        topic, dump = hostile_topic(connector, "plain", HOSTILE_NAMES, "heldnames")
        (landing / topic).mkdir(parents=True)
        (landing / topic / "dump.jsonl").write_text(dump)
    project = root / "project"
    project.mkdir()
    shutil.copytree(Path(__file__).resolve().parents[2] / "macros", project / "macros")
    shutil.rmtree(project / "macros" / "generated")
    return project, landing


def test_a_topic_of_hostile_names_generates_inert_files(hostile_project: tuple[Path, Path]) -> None:
    project, landing = hostile_project
    result = sync(project, landing)
    assert not result.failed and not result.skipped, (result.failed, result.skipped)
    assert len(result.specs) == 3
    written = [*project.glob("models/**/*.sql"), *project.glob("models/**/*.yml")]
    written += [spec_files.spec_path(project, topic) for topic in result.specs]
    for path in written:
        assert file_problem(path.name, path.read_text(encoding="utf-8")) is None, path
    for topic, spec in result.specs.items():
        assert spec_files.read_file(spec_files.spec_path(project, topic).read_text()) == spec
        assert spec.column_names == MAPPED
        # derived, so in the generated spec only: the declaration is the person's
        declaration = yaml.safe_load((project / "topics" / f"{topic}.yml").read_text())
        assert declaration is None or "column_names" not in declaration
    # every description and column name renders as text: the canary's log
    # call stays a string
    environment = jinja2.Environment()
    environment.globals |= {"doc": lambda name: name, "var": lambda *a: False}
    rendered_names = set()
    for path in project.glob("models/generated/properties/**/*.yml"):
        for model in yaml.safe_load(path.read_text())["models"]:
            environment.from_string(model["description"]).render()
            for column in model.get("columns", []):
                rendered_names.add(environment.from_string(column["name"]).render())
                environment.from_string(column.get("description", "")).render()
    expected = {MAPPED.get(n, n) for n in HOSTILE_NAMES}
    assert expected <= rendered_names
    assert any(CANARY_LOG in name for name in rendered_names)


def test_a_second_sync_keeps_the_mapping_and_changes_nothing(
    hostile_project: tuple[Path, Path],
) -> None:
    project, landing = hostile_project
    sync(project, landing)
    assert not sync(project, landing, check=True).generated_changed


@settings(max_examples=300, deadline=None)
@given(NAMES, NAMES)
def test_nested_fields_get_names_the_metastore_keeps(names: list[str], more: list[str]) -> None:
    """A nested field whose name the Hive metastore cannot keep in a type's
    text gets a plain one, apart from its siblings; a field seen later never
    renames one seen before."""
    mapping = nested_names(names)
    fields = _columns(names, mapping)
    assert all(is_plain_identifier(f) for f in fields)
    kept = [n for n in names if is_plain_identifier(n)]
    if len({spark_key(n) for n in kept}) == len(kept):  # a case-only pair is not mapped
        assert len({spark_key(f) for f in fields}) == len(fields)
    later = names + [n for n in more if n not in names]
    assert _columns(names, nested_names(later)) == fields
    assert nested_names(["a_b", "a b", "ünï", "1st", "ok"]) == {
        "a b": "a_b_2",
        "ünï": "_n_",
        "1st": "_1st",
    }
