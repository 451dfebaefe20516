"""One declaration per topic, in the project: ``topics/<topic>.yml``.

A declaration holds what a person decides about a topic (its primary key,
model name, history, where its schema comes from, the converter's decimal
format, the schema-change policy, the largest value it parses, whether a
complete snapshot deletes the keys it lacks, the columns whose nulls an
update ignores, whether it has a change feed, and the words and tests a
person gives the topic's models: ``description``, ``columns``); everything
else is derived by ``sync`` from it and from the topic's schema blocks.

A landing folder's ``topic.yml`` is input: ``sync`` imports it into the
topic's declaration the first time it sees it and again whenever its text
changes (its md5 is recorded in the declaration's header), so a setting
edited in the declaration stays as edited while the landing's file does
not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from python_helpers.digest import text_md5
from python_helpers.land.landing import TOPIC_CONFIG_FILE
from python_helpers.schema.envelope import SpecError
from python_helpers.topic.settings import Declaration

DECLARATION_DIR = Path("topics")
SETTINGS = (
    "primary_key",
    "model_name",
    "history",
    "schema_from",
    "connector",
    "max_lag",
    "max_staleness",
    "decimal_format",
    "schema_changes",
    "max_value_bytes",
    "snapshot_deletes",
    "ignore_null_updates",
    "changes",
    "notifications_for",
    "column_names",
    "description",
    "columns",
    "landing",
)
_IMPORTED = re.compile(r"^# imported: ([0-9a-f]{32}) ", re.MULTILINE)
_HEADER = (
    "# Topic `{topic}`: what is decided about it.\n"
    "# Edit freely (see README, Adding a topic): sync derives everything else from it.\n"
)
_IMPORT_LINE = (
    "# imported: {md5} (the landing's topic.yml; a changed topic.yml is imported again)\n"
)


class DeclarationError(SpecError):
    """A declaration or a landing's topic.yml that cannot be read."""


@dataclass(frozen=True)
class Declared:
    """A topic's settings as ``sync`` uses them, and the file to name when
    one of them is wrong (the landing's topic.yml when it was just
    imported, else the declaration)."""

    topic: str
    settings: dict[str, Any]
    origin: Path
    imported: str | None = None


def declaration_path(project: Path, topic: str) -> Path:
    return project / DECLARATION_DIR / f"{topic}.yml"


def _settings(path: Path, text: str) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise DeclarationError(f"{path}: not YAML: {error}") from None
    if not isinstance(loaded, dict):
        raise DeclarationError(f"{path}: expected a mapping of settings")
    unknown = sorted(str(key) for key in loaded if key not in SETTINGS)
    if unknown:
        raise DeclarationError(
            f"{path}: unknown setting(s) {', '.join(unknown)}; expected {', '.join(SETTINGS)}"
        )
    return dict(loaded)


def read_settings(path: Path) -> dict[str, Any]:
    """The settings a declaration file holds (DeclarationError if wrong)."""
    return _settings(path, path.read_text(encoding="utf-8"))


def _read(path: Path) -> tuple[dict[str, Any], str | None] | None:
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    found = _IMPORTED.search(text)
    return _settings(path, text), found.group(1) if found else None


def table_landings(project: Path) -> dict[str, tuple[str, str]]:
    """topic -> (table, Kafka topic) of every declaration with a `landing:`
    (its records are read from that Kafka-source table, not from files).
    A declaration that cannot be read is left out here: sync names it."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted((project / DECLARATION_DIR).glob("*.yml")):
        topic = path.name[: -len(".yml")]
        if "landing" not in path.read_text(encoding="utf-8"):
            continue  # most declarations: no YAML parsed (a run reads them all)
        try:
            stored = _read(path)
            if stored is None or "landing" not in stored[0]:
                continue
            parsed = Declaration.parse(stored[0], path)
        except SpecError:
            continue
        if parsed.landing_table is not None:
            found[topic] = (parsed.landing_table, parsed.landing_topic or topic)
    return found


def declared(project: Path, topic_dir: Path) -> Declared:
    """The settings of the topic landed in ``topic_dir``: its declaration,
    with the landing's topic.yml applied over it when that file is new or
    changed since it was last imported."""
    path = declaration_path(project, topic_dir.name)
    stored = _read(path)
    settings, imported = stored if stored is not None else ({}, None)
    landing_file = topic_dir / TOPIC_CONFIG_FILE
    if not landing_file.exists():
        return Declared(topic_dir.name, settings, path, imported)
    text = landing_file.read_text(encoding="utf-8")
    md5 = text_md5(text)
    if md5 == imported:
        return Declared(topic_dir.name, settings, path, imported)
    return Declared(topic_dir.name, settings | _settings(landing_file, text), landing_file, md5)


def _value(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return str(yaml.safe_dump(value, default_flow_style=True, width=1 << 16)).strip()
    return str(yaml.safe_dump({"v": value}, default_flow_style=False)).strip()[len("v: ") :]


def _comments(text: str) -> list[str]:
    """A file's own comment lines (not the header sync writes)."""
    ours = _HEADER.splitlines()[1:] + ["# imported: "]
    return [
        line
        for line in text.splitlines()
        if line.startswith("#")
        and not line.startswith("# Topic `")
        and not any(line.startswith(mark) for mark in ours)
    ]


def render(declared_: Declared, comments: list[str] | None = None) -> str:
    """A declaration's text: the header, ``comments``, then the settings in
    SETTINGS order (lists and mappings in flow style)."""
    text = _HEADER.format(topic=declared_.topic)
    if declared_.imported:
        text += _IMPORT_LINE.format(md5=declared_.imported)
    text += "".join(f"{line}\n" for line in comments or ())
    for key in SETTINGS:
        if key in declared_.settings:
            text += f"{key}: {_value(declared_.settings[key])}\n"
    return text


def _wanted_text(project: Path, item: Declared) -> str | None:
    """The text to write for ``item``, or None when its file already says
    it (same settings and import record; a person's comments and layout
    stay as they are)."""
    path = declaration_path(project, item.topic)
    if not path.exists():
        landing_file = item.origin if item.origin.name == TOPIC_CONFIG_FILE else None
        kept = _comments(landing_file.read_text(encoding="utf-8")) if landing_file else []
        return render(item, kept)
    text = path.read_text(encoding="utf-8")
    found = _IMPORTED.search(text)
    if _settings(path, text) == item.settings and (found and found.group(1)) == item.imported:
        return None
    return render(item, _comments(text))


def stale(project: Path, wanted: list[Declared]) -> list[Path]:
    """The declarations that are missing or say other settings than ``wanted``."""
    return [
        declaration_path(project, item.topic)
        for item in wanted
        if _wanted_text(project, item) is not None
    ]


def write(project: Path, wanted: list[Declared]) -> list[Path]:
    """Write the declarations that are missing or changed; returns their paths."""
    written = []
    for item in wanted:
        text = _wanted_text(project, item)
        if text is None:
            continue
        path = declaration_path(project, item.topic)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
