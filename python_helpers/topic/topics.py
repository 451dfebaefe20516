"""A topic resolved once: its spec, its declaration and its columns, as
every generator reads them.

``sync`` resolves each topic of the project once — the schema versions
merged into its ``TopicSpec``, the settings of its declaration
``topics/<topic>.yml`` (the landing's ``topic.yml`` imported) — and hands
the same ``Topic`` to everything it generates; a topic not in this landing
is resolved from its stored spec and declaration.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from python_helpers.schema.envelope import SpecError
from python_helpers.schema.spark_types import DecodedColumn
from python_helpers.topic import declarations
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.settings import Declaration


@dataclass(frozen=True)
class TopicColumn:
    """One column of a topic: its source name, its Spark name, how its
    values are decoded (``None``: a column the declaration describes that
    is not a row column, e.g. a document's field) and what the person wrote
    about it in the declaration (``columns:``: a description, dbt tests)."""

    source: str
    name: str
    decoded: DecodedColumn | None
    description: str | None = None
    data_tests: tuple[Any, ...] = ()


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

    @cached_property
    def columns(self) -> tuple[TopicColumn, ...]:
        """Its row columns, in the row image's order, each with the person's
        words about it; then the other columns the declaration describes."""
        declared = self.declaration.columns
        rows = [
            TopicColumn(row.source, row.name, row.decoded, *_words(declared, row.source))
            for row in self.spec.row_columns
        ]
        known = {column.source for column in rows}
        others = [
            TopicColumn(source, self.spec.spark_name(source), None, *_words(declared, source))
            for source in declared
            if source not in known
        ]
        return (*rows, *others)


def _words(declared: dict[str, dict[str, Any]], source: str) -> tuple[str | None, tuple[Any, ...]]:
    """The declared description (stripped; none when blank) and dbt tests of column ``source``."""
    entry = declared.get(source, {})
    text = str(entry.get("description") or "").strip()
    return text or None, tuple(entry.get("data_tests") or ())


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
