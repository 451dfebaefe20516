"""The names of a topic's models, and the models a project has per topic
(found by ``meta.cdc_topic`` and ``meta.cdc_layer``, whatever their names).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from python_helpers import connectors
from python_helpers.project.naming import entity_name, raw_table_name
from python_helpers.project.project_check import read_properties
from python_helpers.schema.metadata_topics import SCHEMA_CHANGES
from python_helpers.spec.generate import TopicSpec

MODELS_DIR = Path("models")


@dataclass(frozen=True)
class ModelNames:
    """The dbt names scaffolded for one topic."""

    folder: str
    entity: str
    source: str
    table: str
    base: str
    staging: str
    quarantine: str
    current: str
    state: str
    heartbeats: str
    history: str
    changes: str
    consistent: str
    progress: str

    @classmethod
    def for_spec(cls, spec: TopicSpec, entity: str | None = None) -> ModelNames:
        folder = connectors.lookup(spec.connector).folder
        # a schema-change topic is named after the server alone: say what it is
        suffix = "_schema_changes" if spec.kind == SCHEMA_CHANGES else ""
        entity = entity or entity_name(spec.topic) + suffix
        return cls(
            folder=folder,
            entity=entity,
            source=f"{folder}_landing",
            table=raw_table_name(spec.topic),
            base=f"base_{folder}__{entity}",
            staging=f"stg_{folder}__{entity}",
            quarantine=f"stg_{folder}__{entity}__quarantine",
            current=f"{folder}__{entity}",
            state=f"{folder}__{entity}__state",
            heartbeats=f"stg_{folder}__{entity}__heartbeats",
            history=f"{folder}__{entity}__history",
            changes=f"{folder}__{entity}__changes",
            consistent=f"{folder}__{entity}__consistent",
            progress=f"{folder}__{entity}__progress",
        )

    def existing(self, layers: dict[str, str]) -> ModelNames:
        """These names with the topic's models as the project has them
        (``layers``: meta.cdc_layer -> model name; scaffolded under an older
        naming, or renamed by hand). The current-state view is named after
        the state table (``<current>__state``): a topic may have more
        current-layer views (e.g. one with soft deletes)."""
        current = layers["state"].removesuffix("__state") if "state" in layers else self.current
        return replace(
            self,
            base=layers.get("base", self.base),
            staging=layers.get("staging", self.staging),
            quarantine=layers.get("quarantine", self.quarantine),
            state=layers.get("state", self.state),
            heartbeats=layers.get("heartbeats", self.heartbeats),
            history=layers.get("history", f"{current}__history"),
            changes=layers.get("changes", f"{current}__changes"),
            consistent=layers.get("consistent", f"{current}__consistent"),
            progress=layers.get("progress", f"{current}__progress"),
            current=current,
            entity=current.removeprefix(f"{self.folder}__"),
        )

    def path(self, layer: str) -> Path:
        """Where the model of ``layer`` (``meta.cdc_layer``) is written when
        it is new, under the models folder."""
        folder = {
            "base": Path("staging", "base", self.folder),
            "staging": Path("staging", self.folder),
            "quarantine": Path("staging", self.folder),
            "heartbeats": Path("staging", self.folder),
            "state": Path("current", self.folder),
            "current": Path("current", self.folder),
            "history": Path("history", self.folder),
            "changes": Path("changes", self.folder),
            "consistent": Path("current", self.folder),
            "progress": Path("current", self.folder),
        }[layer]
        return MODELS_DIR / folder / f"{getattr(self, layer)}.sql"


def topic_models(project: Path) -> dict[str, dict[str, str]]:
    """The models of each topic by layer (``meta.cdc_topic``,
    ``meta.cdc_layer``): topic -> layer -> model name."""
    found: dict[str, dict[str, str]] = {}
    for _, loaded in read_properties(project / MODELS_DIR):
        for model in loaded.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or model.get("meta") or {}
            if meta.get("cdc_layer") and meta.get("cdc_topic"):
                found.setdefault(meta["cdc_topic"], {})[meta["cdc_layer"]] = model["name"]
    return found


def scaffolded_topics(project: Path) -> set[str]:
    """Topics that already have a staging model."""
    return {topic for topic, layers in topic_models(project).items() if "staging" in layers}
