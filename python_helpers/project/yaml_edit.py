"""Structural edits of dbt properties files the user may have reformatted.

A round-trip YAML load/dump keeps comments, key order and quoting; the file
is parsed, the entry added where it belongs, and written back, so a sources
file stays valid whatever indentation the user gave it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError


class PropertiesError(ValueError):
    """A properties file cannot be read or edited."""


def _yaml() -> YAML:
    yaml = YAML()  # round trip
    yaml.preserve_quotes = True
    yaml.width = 4096  # no folding: no trailing blanks, one line per value
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


class SourceEdits:
    """Tables added to sources files, each file read once and written once
    (``write``), however many tables go into it: scaffolding a whole
    database edits one sources file per connector, not once per topic."""

    def __init__(self) -> None:
        self._documents: dict[Path, Any] = {}

    def add(self, path: Path, source: dict[str, Any], table: dict[str, Any]) -> bool:
        """Add ``table`` to the source named ``source['name']`` in ``path``
        (creating the file, or the source from ``source``, when missing).
        Returns False when a table of that name is already there."""
        document = self._document(path)
        sources = document.setdefault("sources", [])
        if not isinstance(sources, list):
            raise PropertiesError(f"{path}: `sources` is not a list")
        entry = next(
            (s for s in sources if isinstance(s, dict) and s.get("name") == source["name"]), None
        )
        if entry is None:
            entry = dict(source)
            sources.append(entry)
        tables = entry.get("tables")
        if tables is None:
            tables = entry["tables"] = []
        if not isinstance(tables, list):
            raise PropertiesError(f"{path}: `tables` of source {source['name']!r} is not a list")
        if any(isinstance(t, dict) and t.get("name") == table["name"] for t in tables):
            return False
        tables.append(table)
        return True

    def write(self) -> None:
        """Write every edited file."""
        yaml = _yaml()
        for path, document in self._documents.items():
            buffer = io.StringIO()
            yaml.dump(document, buffer)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(buffer.getvalue(), encoding="utf-8")
        self._documents.clear()

    def _document(self, path: Path) -> Any:
        if path in self._documents:
            return self._documents[path]
        document = None
        if path.exists():
            try:
                document = _yaml().load(path.read_text(encoding="utf-8"))
            except YAMLError as error:
                raise PropertiesError(f"{path}: not valid YAML: {error}") from None
        if document is None:
            document = {"version": 2, "sources": []}
        if not isinstance(document, dict):
            raise PropertiesError(f"{path}: expected a mapping at the top level")
        self._documents[path] = document
        return document


def add_source_table(path: Path, source: dict[str, Any], table: dict[str, Any]) -> bool:
    """``SourceEdits.add`` of one table, written at once."""
    edits = SourceEdits()
    added = edits.add(path, source, table)
    if added:
        edits.write()
    return added


def remove_models(path: Path, names: set[str]) -> None:
    """Take the entries of models ``names`` out of a properties file (a
    round trip: the rest keeps its comments and formatting); the file is
    deleted when it declares nothing else."""
    yaml = _yaml()
    # the layout of the properties files sync writes (PyYAML's): a file left
    # as written changes only where entries go
    yaml.width = 88
    yaml.indent(mapping=2, sequence=2, offset=0)
    try:
        document = yaml.load(path.read_text(encoding="utf-8"))
    except YAMLError as error:
        raise PropertiesError(f"{path}: not valid YAML: {error}") from None
    models = document.get("models") if isinstance(document, dict) else None
    if not isinstance(models, list):
        return
    models[:] = [m for m in models if not (isinstance(m, dict) and m.get("name") in names)]
    if not models:
        del document["models"]
    if not set(document) - {"version"}:
        path.unlink()
        return
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    # a folded plain scalar ends its line in a blank, which YAML drops
    lines = [line.rstrip(" ") for line in buffer.getvalue().split("\n")]
    path.write_text("\n".join(lines), encoding="utf-8")
