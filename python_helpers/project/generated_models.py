"""The plumbing models of each topic, generated and kept current.

A topic's base model (every landed record parsed once), its quarantine
view, its merged ``__state`` table, its history table and its heartbeat
view are derived from the topic's declaration and its schema: ``sync``
rewrites them from their templates whenever the text it would write
differs (a template, a declared setting or the names changed, or a person
edited one), and ``sync --check`` lists them while they differ. Their first
line says so. The staging and current-state models are the analysts' and
are never rewritten (``scaffold`` writes them once).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.project import model_templates
from python_helpers.project.model_names import MODELS_DIR, ModelNames, topic_models
from python_helpers.schema.metadata_topics import CHANGES, TRANSACTIONS
from python_helpers.spec.generate import TopicSpec

# the layers (meta.cdc_layer) whose models are generated
GENERATED_LAYERS = ("base", "quarantine", "state", "history", "heartbeats")


def _templates(
    spec: TopicSpec, names: ModelNames, layers: dict[str, str], settings: dict[str, Any]
) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each generated layer the topic has: (template, fields)."""
    common = {
        "topic": spec.topic,
        "connector": spec.connector,
        "source": names.source,
        "table": names.table,
        "base": names.base,
        "staging": names.staging,
        "current": names.current,
    }
    keys = list(spec.primary_key)
    keyed = common | {
        "key_list": ", ".join(keys),
        "unique_key": repr(keys),
        "merge_key": repr([*keys, "valid_from_position"]),
    }
    base: tuple[str, dict[str, Any]]
    if spec.kind != CHANGES:
        kind = "transaction metadata" if spec.kind == TRANSACTIONS else "schema-change"
        base = ("metadata_base", common | {"kind": kind})
    else:
        macro = (
            "cdc_mongodb_events"
            if connectors.stages_documents(spec.connector)
            else "cdc_debezium_events"
        )
        limit = settings.get("max_value_bytes")
        base = ("base", common | {"events_macro": macro, "max_value_bytes": limit})
    wanted = {
        "base": base,
        "quarantine": ("quarantine", common),
        "state": ("state", keyed),
        "history": ("history", keyed),
        "heartbeats": ("heartbeats", common),
    }
    return {layer: wanted[layer] for layer in GENERATED_LAYERS if layer in layers}


def wanted_files(
    project: Path, specs: dict[str, TopicSpec], settings: dict[str, dict[str, Any]]
) -> dict[Path, str]:
    """The text of every generated model of the topics in ``specs`` whose
    layer the project declares (by path): where the model's file is, else
    where a new one goes (``ModelNames.path``)."""
    models = topic_models(project)
    paths = {path.stem: path for path in (project / MODELS_DIR).rglob("*.sql")}
    wanted: dict[Path, str] = {}
    for topic, spec in specs.items():
        layers = models.get(topic, {})
        names = ModelNames.for_spec(spec).existing(layers)
        templates = _templates(spec, names, layers, settings.get(topic, {}))
        for layer, (template, fields) in templates.items():
            path = paths.get(layers[layer], project / names.path(layer))
            wanted[path] = model_templates.render(template, **fields)
    return wanted


def stale(wanted: dict[Path, str]) -> list[Path]:
    """The generated models that are missing or whose file says something
    else."""
    return [
        path
        for path, text in wanted.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write(wanted: dict[Path, str]) -> list[Path]:
    """Write the generated models that are missing or differ; returns
    their paths."""
    changed = stale(wanted)
    for path in changed:
        model_templates.write_sql(path, wanted[path])
    return changed
