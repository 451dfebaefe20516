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


def add_source_table(path: Path, source: dict[str, Any], table: dict[str, Any]) -> bool:
    """Add ``table`` to the source named ``source['name']`` in ``path``
    (creating the file, or the source from ``source``, when missing).
    Returns False when a table of that name is already there."""
    yaml = _yaml()
    if path.exists():
        try:
            document = yaml.load(path.read_text(encoding="utf-8"))
        except YAMLError as error:
            raise PropertiesError(f"{path}: not valid YAML: {error}") from None
    else:
        document = None
    if document is None:
        document = {"version": 2, "sources": []}
    if not isinstance(document, dict):
        raise PropertiesError(f"{path}: expected a mapping at the top level")
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
    buffer = io.StringIO()
    yaml.dump(document, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return True
