"""What the last landing that ran to the end saw, noted in the state
folder: the next run compares the landing with it and, with nothing new,
starts neither Spark nor dbt."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from python_helpers.land.landing import landing_paths, topic_dirs
from python_helpers.naming import raw_table_name

LAST_LANDING_FILE = "last-landing.json"


def landing_fingerprint(landing: Path, known_topics: Iterable[str]) -> dict[str, Any]:
    """What a landing looks like from outside: every dump file's size and
    modification time, and the raw tables the project knows. Taken before
    a landing reads anything, so a file that changes meanwhile is seen as
    changed next time."""
    files = {}
    for topic_dir in topic_dirs(landing):
        for path in landing_paths(topic_dir):
            stat = path.stat()
            below = path.relative_to(topic_dir).as_posix()
            files[f"{topic_dir.name}/{below}"] = [stat.st_size, stat.st_mtime_ns]
    return {
        "landing": str(landing.resolve()),
        "files": files,
        "tables": sorted({raw_table_name(t) for t in known_topics}),
        "topics": sorted(known_topics),
    }


def changed_topics(fingerprint: dict[str, Any], state: Path) -> set[str] | None:
    """The topics whose dump files differ from what this state folder's last
    landing saw (``landing_fingerprint``), plus known topics whose raw table
    that landing did not create; None when there is no such landing to
    compare with (then every topic is landed). An empty set: nothing to
    land, and Spark need not start. Any doubt answers None."""
    remembered = _remembered(state)
    if remembered is None or remembered.get("landing") != fingerprint["landing"]:
        return None
    old, new = _files_by_topic(remembered.get("files", {})), _files_by_topic(fingerprint["files"])
    changed = {topic for topic in old.keys() | new.keys() if old.get(topic) != new.get(topic)}
    tables = set(remembered.get("tables", ()))
    created = {t for t in fingerprint["topics"] if raw_table_name(t) not in tables}
    return changed | created


def new_bytes(fingerprint: dict[str, Any], state: Path) -> int | None:
    """At most how many bytes a landing of ``fingerprint`` reads that this
    state folder's last landing did not: a grown file its growth, a new or
    rewritten one (smaller, or as large with another modification time)
    its size (None: no such landing to compare with)."""
    remembered = _remembered(state)
    if remembered is None or remembered.get("landing") != fingerprint["landing"]:
        return None
    old: dict[str, Any] = remembered.get("files", {})
    total = 0
    for name, stat in fingerprint["files"].items():
        size, before = stat[0], old.get(name)
        if before is None or size < before[0] or (size == before[0] and stat != before):
            total += size
        else:
            total += size - before[0]
    return total


def clean_topics(state: Path) -> frozenset[str]:
    """The topics that had files in this state folder's last landing, which
    ran to the end (every batch before it committed or rolled back)."""
    remembered = _remembered(state) or {}
    return frozenset(_files_by_topic(remembered.get("files", {})))


def topics_with_records(fingerprint: dict[str, Any]) -> set[str]:
    """The topics of a landing (``landing_fingerprint``) with a dump file
    that is not empty."""
    return {
        topic
        for topic, files in _files_by_topic(fingerprint["files"]).items()
        if any(size > 0 for size, _ in files.values())
    }


def landed_topics(state: Path) -> set[str] | None:
    """``topics_with_records`` of this state folder's last landing (None:
    no landing ran to the end here)."""
    remembered = _remembered(state)
    return None if remembered is None else topics_with_records(remembered)


def _remembered(state: Path) -> dict[str, Any] | None:
    """The fingerprint the last landing that ran to the end noted, if any."""
    path = state / LAST_LANDING_FILE
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded


def _files_by_topic(files: dict[str, Any]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, dict[str, Any]] = {}
    for name, stat in files.items():
        topic, _, file_name = name.partition("/")
        grouped.setdefault(topic, {})[file_name] = stat
    return grouped


def remember_landing(fingerprint: dict[str, Any], state: Path) -> None:
    """Note what a successful landing saw (see ``nothing_new``)."""
    state.mkdir(parents=True, exist_ok=True)
    text = json.dumps(fingerprint, sort_keys=True)
    (state / LAST_LANDING_FILE).write_text(text, encoding="utf-8")


def forget_landing(state: Path) -> None:
    """Before a landing starts: a run that dies leaves no stale note."""
    (state / LAST_LANDING_FILE).unlink(missing_ok=True)
