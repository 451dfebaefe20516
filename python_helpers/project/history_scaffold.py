"""Scaffold the SCD type 2 history model of a topic (``history: true`` in
its declaration): ``models/history/<folder>/<current>__history.sql`` and its
properties file ``_<folder>__<entity>__history.yml``, written once like the
other scaffolded models (see scaffold.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.connectors import DOCUMENTS
from python_helpers.project import model_templates
from python_helpers.project.columns import (
    STAGING_METADATA,
    extra_columns,
    metadata_columns,
    model_meta,
    row_columns,
    write_properties,
)
from python_helpers.project.model_names import MODELS_DIR, ModelNames, topic_models
from python_helpers.project.project_check import ProjectError, check_project
from python_helpers.project.scaffold import write_sql
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.spec.generate import TopicSpec

VERSION_OPS = {"opened_by_op": ["c", "r", "u"], "closed_by_op": ["c", "r", "u", "d", "t"]}
VERSION_COLUMNS = [
    "valid_from_position",
    "valid_from",
    "valid_to_position",
    "valid_to",
    "opened_by_op",
    "closed_by_op",
    "is_current",
]


def history_name(names: ModelNames) -> str:
    return f"{names.current}__history"


def history_unsupported(spec: TopicSpec) -> str | None:
    """Why the topic cannot have a history model, or None."""
    if spec.kind != CHANGES:
        return "not a change-event topic"
    connector = connectors.lookup(spec.connector)
    if not connector.history:
        why = " (documents are replayed, not merged)" if connector.shape == DOCUMENTS else ""
        return f"{connector.title} topics have no history model{why}"
    if not spec.primary_key:
        return "no primary key (a key schema or primary_key in its declaration topics/<topic>.yml)"
    return None


def _version_columns() -> list[dict[str, Any]]:
    columns = []
    for name in VERSION_COLUMNS:
        column: dict[str, Any] = {"name": name, "description": f'{{{{ doc("{name}") }}}}'}
        if name == "valid_from_position":
            column["data_tests"] = ["not_null"]
        elif name in VERSION_OPS:
            accepted = {"arguments": {"values": VERSION_OPS[name]}}
            column["data_tests"] = [{"accepted_values": accepted}]
        columns.append(column)
    return columns


def _history_model(spec: TopicSpec, names: ModelNames) -> dict[str, Any]:
    key_list = ", ".join(spec.primary_key)
    return {
        "name": history_name(names),
        "description": f"History of topic `{spec.topic}` (SCD type 2): one row per"
        f" version of each {key_list}, opened by a create, snapshot read or update and"
        " closed by the key's next change or a truncate, in source order. Late events"
        " split the version they fall in; a re-sent event opens no second version."
        f" Its open versions (`is_current`) equal `{names.current}`.",
        "config": model_meta(spec, "history"),
        "data_tests": [
            {
                "cdc_unique_combination": {
                    "arguments": {"columns": [*spec.primary_key, "valid_from_position"]}
                }
            }
        ],
        "columns": row_columns(spec, key_tests=False)
        + metadata_columns(STAGING_METADATA + extra_columns(spec), None)
        + _version_columns(),
    }


def scaffold_history(project: Path, spec: TopicSpec, names: ModelNames) -> list[Path]:
    """Write the history model of one topic; returns the files written."""
    folder = project / MODELS_DIR / "history" / names.folder
    keys = list(spec.primary_key)
    sql = folder / f"{history_name(names)}.sql"
    write_sql(
        sql,
        model_templates.render(
            "history",
            topic=spec.topic,
            key_list=", ".join(keys),
            merge_key=repr([*keys, "valid_from_position"]),
            unique_key=repr(keys),
            staging=names.staging,
        ),
    )
    properties = folder / f"_{names.folder}__{names.entity}__history.yml"
    write_properties(properties, [_history_model(spec, names)], spec)
    return [sql, properties]


def scaffold_histories(
    project: Path, specs: list[TopicSpec], entities: dict[str, str] | None = None
) -> list[Path]:
    """Scaffold the history models of ``specs`` (the topics asking for one)
    that have none yet, then check that the project still parses."""
    existing = topic_models(project)
    taken = {path.stem: path for path in sorted((project / MODELS_DIR).rglob("*.sql"))}
    touched: list[Path] = []
    for spec in specs:
        layers = existing.get(spec.topic, {})
        if "history" in layers or history_unsupported(spec):
            continue
        names = ModelNames.for_spec(spec, (entities or {}).get(spec.topic)).existing(layers)
        if history_name(names) in taken:
            raise ProjectError(
                f"topic {spec.topic!r} would get history model {history_name(names)!r},"
                f" which {taken[history_name(names)]} already is: set `model_name: <name>`"
                " in the topic's declaration"
            )
        touched += scaffold_history(project, spec, names)
    if touched:
        check_project(project / MODELS_DIR)
    return touched
