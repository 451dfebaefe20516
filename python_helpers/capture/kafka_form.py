"""Records as Kafka holds them, written to a landing topic folder in the
form ``kcat -C -J`` prints them (docs/landing.md): topic, partition,
offset, timestamp, headers (a list of name, value, name, value...), key
and value as the converters wrote them (a tombstone's value is null).

Offsets are per topic and partition and continue across captures into
the same landing: the next offset of each is kept in the landing's
``.capture-offsets.json`` (a name the landing never reads)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

OFFSETS_FILE = ".capture-offsets.json"


@dataclass(frozen=True)
class KafkaRecord:
    """One message: its text as the converters wrote it."""

    topic: str
    partition: int
    timestamp_ms: int
    key: str | None
    value: str | None
    headers: tuple[tuple[str, str | None], ...] = ()


@dataclass
class KcatWriter:
    """Appends records to ``<landing>/<topic>/<file_name>`` as kcat lines."""

    landing: Path
    file_name: str = "capture.jsonl"
    _next: dict[str, int] = field(default_factory=dict)
    _open: dict[str, IO[str]] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.landing.mkdir(parents=True, exist_ok=True)
        kept = self.landing / OFFSETS_FILE
        if kept.exists():
            self._next = {str(k): int(v) for k, v in json.loads(kept.read_text("utf-8")).items()}

    def write(self, record: KafkaRecord) -> None:
        slot = f"{record.topic}\t{record.partition}"
        offset = self._next.get(slot, 0)
        self._next[slot] = offset + 1
        line: dict[str, object] = {
            "topic": record.topic,
            "partition": record.partition,
            "offset": offset,
            "tstype": "create",
            "ts": record.timestamp_ms,
            "broker": -1,
        }
        if record.headers:
            line["headers"] = [part for pair in record.headers for part in pair]
        line |= {"key": record.key, "payload": record.value}
        handle = self._open.get(record.topic)
        if handle is None:
            folder = self.landing / record.topic
            folder.mkdir(parents=True, exist_ok=True)
            handle = (folder / self.file_name).open("a", encoding="utf-8")
            self._open[record.topic] = handle
        handle.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.written[record.topic] = self.written.get(record.topic, 0) + 1

    def close(self) -> None:
        """Flush every file and keep the next offsets (written atomically)."""
        for handle in self._open.values():
            handle.close()
        self._open.clear()
        kept = self.landing / OFFSETS_FILE
        fresh = kept.with_suffix(".tmp")
        fresh.write_text(json.dumps(self._next, sort_keys=True), encoding="utf-8")
        os.replace(fresh, kept)
