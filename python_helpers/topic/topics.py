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

from python_helpers.schema.envelope import SpecError
from python_helpers.topic import declarations
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.settings import Declaration


@dataclass(frozen=True)
class Topic:
    """One topic of the project: its spec and its declaration."""

    spec: TopicSpec
    declaration: Declaration

    @property
    def name(self) -> str:
        return self.spec.topic

    @property
    def model_name(self) -> str | None:
        """The declared ``<entity>`` of its model names, if any."""
        return self.declaration.model_name

    @property
    def history(self) -> bool:
        """Whether it declares a history (``true`` or the columns it tracks)."""
        return self.declaration.history

    @property
    def changes(self) -> bool:
        """Whether it declares a change feed."""
        return self.declaration.changes


def resolve(
    project: Path, specs: dict[str, TopicSpec], declared: dict[str, Declaration]
) -> dict[str, Topic]:
    """Every topic of ``specs`` with its declaration: ``declared`` for the
    topics a sync just declared, the stored declaration for the others."""
    return {
        topic: Topic(spec, declared[topic] if topic in declared else stored(project, topic))
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


def stored(project: Path, topic: str) -> Declaration:
    """The topic's declaration as stored, checked (the defaults when it has
    no valid one: it is named when its topic is synced)."""
    path = declarations.declaration_path(project, topic)
    try:
        return Declaration.parse(stored_settings(project, topic), path)
    except SpecError:
        return Declaration(path)
