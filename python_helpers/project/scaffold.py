"""Write the SQL a person owns for each topic: its staging and
current-state models, from their templates, once.

A model a person owns is written when its file is missing (a new topic, or
a file deleted to get the template back) and never touched again: ``sync``
rewrites only what is under ``models/generated/`` (``generated_models``).
Its properties (description, tests, columns) are generated with the
topic's others, from the declaration's ``description:`` and ``columns:``.

Model names come from the topic (see ``naming.entity_name``), so two topics
never share a model name; a name that another file of the project already
has stops the sync, naming both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.project import model_templates
from python_helpers.project.model_names import MODELS_DIR, ModelNames, properties_header
from python_helpers.project.model_templates import write_sql
from python_helpers.project.project_check import ProjectError
from python_helpers.project.topic_properties import ANALYST_LAYERS, topic_layers
from python_helpers.project.transaction_groups import transaction_groups
from python_helpers.schema.metadata_topics import (
    CHANGES,
    KIND_LABELS,
    NOTIFICATIONS,
    SCHEMA_CHANGES,
    TRANSACTIONS,
)
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.topics import Topic

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
    current = {
        connectors.DOCUMENTS: {"topic": spec.topic, "base": names.base},
        connectors.ROWS: {
            "topic": spec.topic,
            "key_list": ", ".join(spec.primary_key),
            "state": names.state,
        },
    }[spec.shape]
    template = connectors.lookup(spec.connector).current_template
    return {"staging": ("staging", staging), "current": (template, current)}


def scaffold(
    project: Path,
    spec: TopicSpec,
    entity: str | None = None,
    match: str | None = None,
    found: dict[str, Path] | None = None,
) -> list[Path]:
    """Write the models a person owns of one topic that the project lacks
    (``found``: the project's SQL files by model name; a person may move
    theirs anywhere under models/); returns the files written. ``match``:
    for a transaction topic, how its connector identifies one transaction
    (none while the connector is unknown: the id as written)."""
    if found is None:
        found = _sql_files(project)
    names = ModelNames.for_spec(spec, entity)
    layers = [layer for layer in topic_layers(spec, False) if layer in ANALYST_LAYERS]
    written: list[Path] = []
    for layer, (template, fields) in _analyst_models(spec, names, match).items():
        if layer in layers and getattr(names, layer) not in found:
            path = project / names.path(layer)
            write_sql(path, model_templates.render(template, **fields))
            written.append(path)
    return written


def _owner(path: Path) -> str | None:
    """The topic whose generated properties file ``path`` is, or None."""
    if not path.exists():
        return None
    with path.open(encoding="utf-8") as file:
        first = file.readline()
    if not first.startswith(properties_header("").split(" for topic ")[0]):
        return None
    return first.partition(" for topic ")[2].removesuffix(": do not edit.\n")


def _sql_files(project: Path) -> dict[str, Path]:
    return {path.stem: path for path in sorted((project / MODELS_DIR).rglob("*.sql"))}


def scaffold_all(project: Path, topics: list[Topic]) -> list[Path]:
    """Write the owned models that are missing. Two topics with one model
    name, or a generated model's name that another file has, stop it
    (``ProjectError`` names them)."""
    found = _sql_files(project)
    claimed: dict[str, str] = {}
    specs = [topic.spec for topic in topics]
    for topic in topics:
        spec, names = topic.spec, ModelNames.for_topic(topic)
        owner = _owner(project / names.properties())
        for layer in ("base", "staging", "quarantine", "current", "state"):
            name = getattr(names, layer)
            other = claimed.setdefault(name, owner or spec.topic)
            generated_elsewhere = layer not in ANALYST_LAYERS and found.get(name) not in (
                None,
                project / names.path(layer),
            )
            if other != spec.topic or generated_elsewhere:
                what = f"topic {other!r}'s" if other != spec.topic else str(found[name])
                raise ProjectError(
                    f"topic {spec.topic!r} would have model {name!r}, which {what} already"
                    " is: set `model_name: <name>` in the topic's declaration topics/<topic>.yml"
                )
    written: list[Path] = []
    groups = transaction_groups({spec.topic: spec for spec in specs})
    for topic in topics:
        match = groups[topic.name].match if topic.name in groups else None
        written += scaffold(project, topic.spec, topic.model_name, match, found)
    return written
