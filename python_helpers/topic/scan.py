"""What is new of a topic's landing folder since the last sync: where each
file's scan stopped (``ScanState``, kept beside the generated specs) and
the schemas, keys and documents the new records show (``collect_topic``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_helpers.digest import file_digest
from python_helpers.land.kafka_records import Records
from python_helpers.land.landing import LandingFile, topic_files
from python_helpers.schema.schema_evolution import QUARANTINE
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.topic_schema import TopicSchemas, scan_file, scan_keys, scan_records

_HEAD = 1 << 16


def _head_digest(path: Path, length: int) -> str:
    return file_digest(path, min(length, _HEAD))


# what a scan keeps, as of this version of sync: a state written by an
# earlier one is dropped and every file scanned again, once (2: the
# schema blocks' text, topic_schema.TopicSchemas.schema_blocks)
SCAN_FORMAT = 2


@dataclass
class ScanState:
    """Where each landing file's scan stopped, and which schema texts each
    topic has shown, as of the generated spec files whose digest it names."""

    specs_digest: str = ""
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None, digest: str) -> ScanState:
        if path is None or not path.exists():
            return cls(digest)
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if loaded.get("specs_digest") != digest:
            return cls(digest)  # the specs changed behind sync's back: rescan
        if loaded.get("format") != SCAN_FORMAT:
            return cls(digest)  # a scan that kept less: rescan once
        return cls(digest, loaded.get("files", {}), loaded.get("seen", {}))

    def save(self, path: Path, digest: str) -> None:
        self.specs_digest = digest
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {
            "format": SCAN_FORMAT,
            "specs_digest": self.specs_digest,
            "files": self.files,
            "seen": self.seen,
        }
        path.write_text(json.dumps(body, sort_keys=True), encoding="utf-8")

    def resume_at(self, item: LandingFile) -> int | None:
        """Byte offset to resume ``item`` at, or None when nothing is new."""
        stat = item.path.stat()
        known = self.files.get(str(item.path.resolve()))
        if known is None:
            return 0
        if (known["size"], known["mtime_ns"]) == (stat.st_size, stat.st_mtime_ns):
            return None
        if item.compressed:
            return 0  # a compressed file that changed is scanned whole
        if stat.st_size < known["scanned"]:
            return 0
        if _head_digest(item.path, known["scanned"]) != known["head"]:
            return 0
        return int(known["scanned"])

    def forget(self, topic_dir: Path) -> None:
        """Scan the topic's files again next time (its sync failed)."""
        folder = str(topic_dir.resolve())
        self.files = {
            path: known for path, known in self.files.items() if not path.startswith(folder + "/")
        }
        self.seen.pop(topic_dir.name, None)

    def scanned(self, item: LandingFile, offset: int) -> None:
        stat = item.path.stat()
        self.files[str(item.path.resolve())] = {
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "scanned": offset,
            "head": _head_digest(item.path, offset),
        }


def collect_topic(
    topic_dir: Path,
    state: ScanState,
    known: TopicSpec | None = None,
    policy: str = QUARANTINE,
    records: Records | None = None,
) -> tuple[TopicSchemas, bool, int]:
    """Scan what is new in one topic folder: (schemas, anything new, bytes).
    A MongoDB topic's new events are read against the document type already
    ``known`` (an update's `tags.0` addresses an item of a known array); new
    schema versions are judged against the table schema ``known`` holds,
    under the topic's schema-change ``policy``. A topic landed from a
    Kafka-source table has no files: ``records`` are what its landing just
    read (scan_records), and its folder is not read."""
    collected = TopicSchemas(
        topic_dir.name,
        seen=set(state.seen.get(topic_dir.name, ())),
        document=known.document if known is not None else None,
        policy=policy,
        established=known.value_schema if known is not None else None,
    )
    new = False
    scanned = 0
    if records is not None:
        scan_records(records, collected)
        state.seen[topic_dir.name] = sorted(collected.seen)
        return collected, bool(records), sum(len(v or "") for v, _, _ in records)
    for item in topic_files(topic_dir):
        start = state.resume_at(item)
        if start is None:
            continue
        new = True
        end = scan_file(item.path, item.is_kcat, collected, start)
        if item.keys is not None:
            scan_keys(item.keys, collected)
        scanned += end - start
        state.scanned(item, end)
    state.seen[topic_dir.name] = sorted(collected.seen)
    return collected, new, scanned
