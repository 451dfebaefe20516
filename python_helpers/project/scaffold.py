"""Scaffold the dbt files for a topic that has no models yet.

Per topic the analysts' SQL models are written from the templates (staging
and current state) with one properties file per topic and layer
(``_stg_<folder>__<entity>.yml``, ``_<folder>__<entity>.yml``) that also
declares the generated models (base, quarantine, state, history and
heartbeats for Huawei CDL topics), which ``generated_models`` writes. The
raw table is added to the folder's ``_<folder>__sources.yml`` by a
structural YAML edit (round trip: comments, order and the user's formatting
survive). The staging and current-state
models and the properties files belong to the analysts from then on; the
plumbing (base, quarantine, state, history, heartbeats) is rewritten by
every sync (``generated_models``). After writing, ``check_project`` re-reads
every properties file and fails naming the file if the project would not
parse.

Model names come from the topic (see ``naming.entity_name``), so two topics
never share a model name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.project import model_templates
from python_helpers.project.columns import LANDING_COLUMNS, metadata_columns, write_properties
from python_helpers.project.model_names import MODELS_DIR, ModelNames, scaffolded_topics
from python_helpers.project.model_templates import write_sql
from python_helpers.project.project_check import ProjectError, check_project
from python_helpers.project.topic_properties import ANALYST_LAYERS, model_entries, topic_layers
from python_helpers.project.transaction_groups import transaction_groups
from python_helpers.project.yaml_edit import SourceEdits
from python_helpers.schema.metadata_topics import (
    CHANGES,
    KIND_LABELS,
    NOTIFICATIONS,
    SCHEMA_CHANGES,
    TRANSACTIONS,
)
from python_helpers.spec.generate import TopicSpec

# the analysts' table of each metadata kind: its template
ANALYST_TEMPLATES = {
    TRANSACTIONS: "transactions",
    SCHEMA_CHANGES: "schema_history",
    NOTIFICATIONS: "snapshot_scans",
}


def _analyst_models(
    spec: TopicSpec, names: ModelNames, match: str | None
) -> dict[str, tuple[str, dict[str, Any]]]:
    """The analysts' models of a topic by layer: (template, fields);
    ``match``: how a transaction topic's connector identifies one
    transaction, when its group is known (``TransactionGroup.match``)."""
    if spec.kind != CHANGES:
        kind = KIND_LABELS[spec.kind]
        table = ANALYST_TEMPLATES[spec.kind]
        fields = {"topic": spec.topic, "staging": names.staging, "match": match}
        return {
            "staging": (
                "metadata_staging",
                {"topic": spec.topic, "kind": kind, "base": names.base},
            ),
            "current": (table, fields),
        }
    staging = {"topic": spec.topic, "connector": spec.connector, "base": names.base}
    if connectors.stages_documents(spec.connector):
        current = {"topic": spec.topic, "base": names.base}
        return {"staging": ("staging", staging), "current": ("mongodb_current", current)}
    key_list = ", ".join(spec.primary_key)
    current = {"topic": spec.topic, "key_list": key_list, "state": names.state}
    return {"staging": ("staging", staging), "current": ("current", current)}


def _source_description(spec: TopicSpec) -> str:
    if spec.kind != CHANGES:
        return f"Raw Kafka records of the {KIND_LABELS[spec.kind]} topic `{spec.topic}`."
    what = "MongoDB topic" if connectors.stages_documents(spec.connector) else "topic"
    return (
        f"Raw Kafka records of {what} `{spec.topic}`, one row per record, as landed"
        " by `python -m python_helpers land`."
    )


def scaffold(
    project: Path,
    spec: TopicSpec,
    entity: str | None = None,
    sources: SourceEdits | None = None,
    match: str | None = None,
) -> list[Path]:
    """Write the analysts' files of one topic (staging and current-state
    models, their properties files); returns the files touched. Its raw
    table goes into ``sources`` (written by the caller), else at once.
    ``match``: for a transaction topic, how its connector identifies one
    transaction (none while the connector is unknown: the id as written)."""
    if sources is None:
        edits = SourceEdits()
        written = scaffold(project, spec, entity, edits, match)
        edits.write()
        return written
    names = ModelNames.for_spec(spec, entity)
    layers = [layer for layer in topic_layers(spec, False) if layer in ANALYST_LAYERS]
    entries = dict(zip(layers, model_entries(spec, names, layers), strict=True))
    touched: list[Path] = []
    for layer, (template, fields) in _analyst_models(spec, names, match).items():
        if layer in layers:
            path = project / names.path(layer)
            write_sql(path, model_templates.render(template, **fields))
            touched.append(path)
    staging_dir = project / MODELS_DIR / "staging" / names.folder
    touched.append(_add_source(sources, staging_dir, names, spec, _source_description(spec)))
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    write_properties(staging_yml, [entries["staging"]])
    touched.append(staging_yml)
    if "current" in entries:
        current_dir = project / MODELS_DIR / "current" / names.folder
        current_yml = current_dir / f"_{names.folder}__{names.entity}.yml"
        write_properties(current_yml, [entries["current"]])
        touched.append(current_yml)
    return touched


def scaffold_all(
    project: Path, specs: list[TopicSpec], entities: dict[str, str] | None = None
) -> list[Path]:
    """Scaffold the topics that have no models yet, then check that the
    project still parses (``ProjectError`` names the file if not)."""
    existing = scaffolded_topics(project)
    new = [spec for spec in specs if spec.topic not in existing]
    taken = {path.stem: path for path in sorted((project / MODELS_DIR).rglob("*.sql"))}
    for spec in new:
        names = ModelNames.for_spec(spec, (entities or {}).get(spec.topic))
        for name in (names.base, names.staging, names.quarantine, names.current, names.state):
            if name in taken:
                raise ProjectError(
                    f"topic {spec.topic!r} would be scaffolded as model {name!r}, which"
                    f" {taken[name]} already is: set `model_name: <name>` in the topic's"
                    " declaration topics/<topic>.yml"
                )
            taken[name] = Path(f"<{spec.topic}>")
    touched: dict[Path, None] = {}  # in order, once each
    sources = SourceEdits()
    groups = transaction_groups({spec.topic: spec for spec in specs})
    for spec in new:
        if spec.topic not in existing:
            match = groups[spec.topic].match if spec.topic in groups else None
            entity = (entities or {}).get(spec.topic)
            for path in scaffold(project, spec, entity, sources, match):
                touched[path] = None
    sources.write()
    check_project(project / MODELS_DIR)
    return list(touched)


# A raw record's loaded-at time for `dbt source freshness` (thresholds in
# dbt_project.yml): its Kafka timestamp, else when it was landed.
LOADED_AT = "coalesce(timestamp_millis(kafka_timestamp_ms), timestamp_micros(landing_batch))"


def _add_source(
    sources: SourceEdits, staging_dir: Path, names: ModelNames, spec: TopicSpec, description: str
) -> Path:
    """Add the topic's raw landing table to its folder's sources file (a
    structural edit, written once per sync); returns that file."""
    path = staging_dir / f"_{names.folder}__sources.yml"
    sources.add(
        path,
        _source_entry(names.source, spec.connector),
        {
            "name": names.table,
            "description": description,
            "meta": {"cdc_topic": spec.topic},
            "columns": metadata_columns(LANDING_COLUMNS),
        },
    )
    return path


def _source_entry(source: str, connector: str) -> dict[str, Any]:
    return {
        "name": source,
        "description": f"Raw Kafka topics written by the {connector} connector, one"
        " table per topic, landed by `python -m python_helpers land`.",
        "schema": "{{ var('cdc_landing_schema', 'cdc_landing') }}",
        "loader": "python_helpers land",
        "config": {"loaded_at_field": LOADED_AT},
        "tables": [],
    }
