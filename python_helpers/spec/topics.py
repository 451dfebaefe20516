"""A topic resolved once: its spec and its declaration, as every generator
reads them.

``sync`` resolves each topic of the project once — the schema versions
merged into its ``TopicSpec``, the settings of its declaration
``topics/<topic>.yml`` (the landing's ``topic.yml`` imported) — and hands
the same ``Topic`` to everything it generates; a topic not in this landing
is resolved from its stored spec and declaration.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_helpers.spec import declarations
from python_helpers.spec.generate import TopicSpec


@dataclass(frozen=True)
class Topic:
    """One topic of the project: its spec and its declared settings."""

    spec: TopicSpec
    settings: dict[str, Any]

    @property
    def name(self) -> str:
        return self.spec.topic

    @property
    def model_name(self) -> str | None:
        """The declared ``<entity>`` of its model names, if any."""
        value = self.settings.get("model_name")
        return str(value) if value else None

    @property
    def history(self) -> bool:
        """Whether it declares a history (``true`` or the columns it tracks)."""
        return bool(self.settings.get("history"))

    @property
    def changes(self) -> bool:
        """Whether it declares a change feed."""
        return self.settings.get("changes") is True


def resolve(
    project: Path, specs: dict[str, TopicSpec], settings: dict[str, dict[str, Any]]
) -> dict[str, Topic]:
    """Every topic of ``specs`` with its settings: ``settings`` for the
    topics a sync just declared, the stored declaration for the others."""
    return {
        topic: Topic(
            spec, settings[topic] if topic in settings else stored_settings(project, topic)
        )
        for topic, spec in specs.items()
    }


def stored_settings(project: Path, topic: str) -> dict[str, Any]:
    """The settings of the topic's declaration as stored (none when it has
    no valid one: it is named when its topic is synced)."""
    path = declarations.declaration_path(project, topic)
    try:
        return declarations.read_settings(path) if path.exists() else {}
    except declarations.DeclarationError:
        return {}  # no other topic stops on it
