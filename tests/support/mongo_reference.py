"""Reference model of the MongoDB replay, in plain Python.

Independent of the SQL: reads the landed lines itself, decides which
records are quarantined, orders each document's events by (source ts_ms,
ord, Kafka offset) and applies them to Python dicts: full documents
replace, 1.x $set/$unset and 2.x update descriptions edit the previous
document at their dotted paths, deletes remove it.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

WRAPPERS = ("$oid", "$numberLong", "$numberInt", "$numberDouble", "$numberDecimal")
ALLOWED = ("$set", "$unset", "$v")


def loads(text: str) -> Any:
    return json.loads(text, parse_float=Decimal)


@dataclass
class Event:
    """One landed record, as the reference sees it."""

    offset: int
    op: str | None = None
    id: str | None = None
    position: tuple[int, int, int] = (0, 0, 0)
    after: Any = None
    patch: Any = None
    filter: Any = None
    description: dict[str, Any] | None = None
    reason: str | None = None
    detail: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def id_text(value: Any) -> str:
    """The `_id` column's text of an id value (see the README rule)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in WRAPPERS:
        return str(next(iter(value.values())))
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    return str(value)


def _records(path: Path) -> list[tuple[int, str | None, str | None]]:
    """(offset, key text, value text) of each line of a landing file."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        parsed = json.loads(line) if line.strip() else None
        if isinstance(parsed, dict) and {"partition", "offset", "payload"} <= set(parsed):
            out.append((int(parsed["offset"]), parsed.get("key"), parsed.get("payload")))
        else:
            out.append((number, None, line if line.strip() else None))
    return out


def read_topic(topic_dir: Path, lines: int | None = None) -> list[Event]:
    """Every landed record of a topic folder (files in name order; a plain
    file's offsets continue across files, as the landing numbers them);
    `lines` keeps only the first lines of each file."""
    events: list[Event] = []
    for path in sorted(topic_dir.glob("*.jsonl")):
        found = read_events(path, lines)
        plain = not path.read_text(encoding="utf-8").lstrip().startswith('{"topic"')
        shift = len(events) if plain else 0
        for event in found:
            event.offset += shift
            event.position = (*event.position[:2], event.offset)
        events += found
    return events


def _patch_problem(event: Event) -> str | None:
    if event.op != "u" or event.after is not None:
        return None
    paths: list[str] = []
    if event.patch is not None:
        if not isinstance(event.patch, dict):
            return "the patch is not a JSON document"
        operators = [k for k in event.patch if k.startswith("$")]
        if not operators:
            return None
        if str(event.patch.get("$v")) == "2" or "diff" in event.patch:
            return "oplog diff format ($v: 2, MongoDB 5.0+)"
        other = [k for k in operators if k not in ALLOWED]
        if other:
            return f"update operator {other[0]}"
        paths = [*(event.patch.get("$set") or {}), *(event.patch.get("$unset") or {})]
    elif event.description is not None:
        updated = event.description.get("updatedFields")
        paths = list(loads(updated)) if updated else []
        paths += event.description.get("removedFields") or []
        paths += [t["field"] for t in event.description.get("truncatedArrays") or []]
    for path in paths:
        if any(part.startswith("$") for part in path.split(".")):
            return f"positional path {path}"
    return None


def read_events(path: Path, lines: int | None = None) -> list[Event]:
    """Every landed record of one MongoDB landing file, classified."""
    events = []
    for offset, key_text, value_text in _records(path)[:lines]:
        event = Event(offset)
        events.append(event)
        if value_text is None:
            event.reason = "tombstone"
            continue
        value = loads(value_text)
        payload = value.get("payload", value)
        event.op = payload.get("op")
        source = payload.get("source") or {}
        event.position = (int(source.get("ts_ms") or -1), int(source.get("ord") or -1), offset)
        event.after = loads(payload["after"]) if payload.get("after") else None
        event.patch = loads(payload["patch"]) if payload.get("patch") else None
        event.filter = loads(payload["filter"]) if payload.get("filter") else None
        event.description = payload.get("updateDescription")
        before = loads(payload["before"]) if payload.get("before") else None
        key = loads(key_text) if key_text else None
        key_id = (key.get("payload", key) or {}).get("id") if isinstance(key, dict) else None
        if key_id is not None:
            event.id = id_text(loads(key_id))
        else:
            for image in (event.after, before, event.filter):
                if isinstance(image, dict) and "_id" in image:
                    event.id = id_text(image["_id"])
                    break
        if event.op not in ("c", "r", "u", "d"):
            event.reason = "unsupported_op"
        elif event.id is None:
            event.reason = "missing_primary_key"
        elif (
            event.op in ("c", "r")
            and event.after is None
            or (
                event.op == "u"
                and event.after is None
                and event.patch is None
                and event.description is None
            )
        ):
            event.reason = "missing_document"
        else:
            event.detail = _patch_problem(event)
            event.reason = "unsupported_patch" if event.detail else None
    return events


def _walk(document: dict[str, Any], parts: list[str], create: bool) -> Any:
    node: Any = document
    for part in parts:
        if isinstance(node, list) and part.isdigit():
            index = int(part)
            node = node[index] if index < len(node) else None
        elif isinstance(node, dict):
            if part not in node and create:
                node[part] = {}
            node = node.get(part)
        else:
            return None
        if node is None:
            return None
    return node


def set_path(document: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = _walk(document, parents, create=True)
    if isinstance(node, list) and last.isdigit():
        index = int(last)
        node.extend([None] * (index + 1 - len(node)))
        node[index] = value
    elif isinstance(node, dict):
        node[last] = value


def unset_path(document: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    node = _walk(document, parents, create=False)
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = None
    elif isinstance(node, dict):
        node.pop(last, None)


def replay(events: list[Event]) -> dict[str, dict[str, Any]]:
    """Current state per `_id`: {"document", "issue", "op", "position"}."""
    by_id: dict[str, list[Event]] = {}
    for event in events:
        if event.reason in (None, "unsupported_patch") and event.id is not None:
            by_id.setdefault(event.id, []).append(event)
    state: dict[str, dict[str, Any]] = {}
    for doc_id, history in by_id.items():
        document: dict[str, Any] | None = None
        issue: str | None = None
        for event in sorted(history, key=lambda e: e.position):
            if event.reason == "unsupported_patch":
                issue = issue or f"unsupported_patch: {event.detail}"
            elif event.op == "d":
                document, issue = None, None
            elif event.after is not None:
                document, issue = copy.deepcopy(event.after), None
            elif event.patch is not None and not any(k.startswith("$") for k in event.patch):
                document, issue = copy.deepcopy(event.patch), None
            else:
                if document is None:
                    issue = issue or "missing_base_document"
                    has_id = isinstance(event.filter, dict) and "_id" in event.filter
                    document = {"_id": event.filter["_id"]} if has_id else {}
                _apply_update(document, event)
        last = max(history, key=lambda e: e.position)
        if document is not None:
            state[doc_id] = {
                "document": document,
                "issue": issue,
                "op": last.op,
                "position": list(last.position),
            }
    return state


def _apply_update(document: dict[str, Any], event: Event) -> None:
    if event.patch is not None:
        for path in event.patch.get("$unset") or {}:
            unset_path(document, path)
        for path, value in (event.patch.get("$set") or {}).items():
            set_path(document, path, value)
        return
    description = event.description or {}
    for truncated in description.get("truncatedArrays") or []:
        node = _walk(document, truncated["field"].split("."), create=False)
        if isinstance(node, list):
            del node[int(truncated["size"]) :]
    for path in description.get("removedFields") or []:
        unset_path(document, path)
    updated = description.get("updatedFields")
    for path, value in (loads(updated) if updated else {}).items():
        set_path(document, path, value)
