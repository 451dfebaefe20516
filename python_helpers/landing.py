"""Read a landing directory of Kafka topic dumps.

Contract (see README): one sub-folder per topic, each with ``*.jsonl`` files.
A file is either

* **kcat form**: every line is the JSON object ``kcat -C -J`` prints, with
  ``topic``, ``partition``, ``offset``, ``ts`` (ms), ``key`` and ``payload``
  (the message value string, ``null`` for a tombstone); or
* **plain form**: every line is one message value as a Kafka Connect file/S3
  sink writes it; an empty line is a tombstone. The topic is the folder name,
  the partition is 0 and the offset is the line's position across the
  folder's plain files taken in name order.

Nothing is dropped here: a line that cannot be read is still returned, with
``landing_error`` saying why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

KCAT_KEYS = frozenset({"topic", "partition", "offset", "payload"})
TOPIC_CONFIG_FILE = "topic.yml"


@dataclass(frozen=True)
class LandedRecord:
    """One Kafka record as it is stored in a raw landing table."""

    kafka_topic: str
    kafka_partition: int | None
    kafka_offset: int | None
    kafka_timestamp_ms: int | None
    kafka_key: str | None
    kafka_value: str | None
    landing_file: str
    landing_line: int
    landing_error: str | None = None

    def coordinates(self) -> tuple[object, ...]:
        """The identity used to land a record at most once."""
        if self.kafka_partition is None or self.kafka_offset is None:
            return ("file", self.landing_file, self.landing_line)
        return ("kafka", self.kafka_partition, self.kafka_offset)


def topic_dirs(landing: Path) -> list[Path]:
    """The topic folders of a landing, sorted by name."""
    if not landing.is_dir():
        raise FileNotFoundError(f"landing directory {landing} does not exist")
    return sorted(p for p in landing.iterdir() if p.is_dir() and not p.name.startswith("."))


def topic_files(topic_dir: Path) -> list[Path]:
    """The ``*.jsonl`` files of one topic folder, sorted by name."""
    return sorted(topic_dir.glob("*.jsonl"))


def _is_kcat_line(line: str) -> bool:
    try:
        parsed = json.loads(line)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.keys() >= KCAT_KEYS


def _first_content_line(path: Path) -> str | None:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                return line
    return None


def is_kcat_file(path: Path) -> bool:
    """Whether a landing file is in kcat form (judged by its first record)."""
    first = _first_content_line(path)
    return first is not None and _is_kcat_line(first)


def _optional_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _optional_text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    # A kcat built with a JSON deserializer may emit the value as an object.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _read_kcat(path: Path, topic: str, relative: str) -> Iterator[LandedRecord]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw_line in enumerate(handle):
            line = raw_line.rstrip("\n")
            if not line.strip():
                continue
            try:
                parsed = json.loads(line)
                if not isinstance(parsed, dict):
                    raise ValueError("not a JSON object")
            except ValueError as error:
                yield LandedRecord(
                    kafka_topic=topic,
                    kafka_partition=None,
                    kafka_offset=None,
                    kafka_timestamp_ms=None,
                    kafka_key=None,
                    kafka_value=line,
                    landing_file=relative,
                    landing_line=number,
                    landing_error=f"unreadable kcat line: {error}",
                )
                continue
            partition = _optional_int(parsed.get("partition"))
            offset = _optional_int(parsed.get("offset"))
            error_text = None
            if partition is None or offset is None:
                error_text = "kcat line without a numeric partition/offset"
            yield LandedRecord(
                kafka_topic=str(parsed.get("topic") or topic),
                kafka_partition=partition,
                kafka_offset=offset,
                kafka_timestamp_ms=_optional_int(parsed.get("ts")),
                kafka_key=_optional_text(parsed.get("key")),
                kafka_value=_optional_text(parsed.get("payload")),
                landing_file=relative,
                landing_line=number,
                landing_error=error_text,
            )


def _read_plain(path: Path, topic: str, relative: str, first_offset: int) -> Iterator[LandedRecord]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, raw_line in enumerate(handle):
            line = raw_line.rstrip("\n").rstrip("\r")
            yield LandedRecord(
                kafka_topic=topic,
                kafka_partition=0,
                kafka_offset=first_offset + number,
                kafka_timestamp_ms=None,
                kafka_key=None,
                kafka_value=line if line.strip() else None,
                landing_file=relative,
                landing_line=number,
            )


def read_topic(topic_dir: Path) -> Iterator[LandedRecord]:
    """Every record of one topic folder, in file then line order."""
    topic = topic_dir.name
    plain_offset = 0
    for path in topic_files(topic_dir):
        relative = f"{topic}/{path.name}"
        if is_kcat_file(path):
            yield from _read_kcat(path, topic, relative)
            continue
        count = 0
        for record in _read_plain(path, topic, relative, plain_offset):
            count += 1
            yield record
        plain_offset += count
