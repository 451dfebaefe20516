"""Land records into the raw tables, at most once per Kafka coordinate.

The raw table of a topic is a folder of JSON-lines files under
``<state>/raw/<table>/`` that the dbt project reads as an external Spark
table (macro ``cdc_create_landing_tables``). Each landing run appends one
batch file holding only the records whose (partition, offset) is not stored
yet, so landing the same files again adds nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from python_helpers.landing import LandedRecord, read_topic, topic_dirs
from python_helpers.naming import raw_table_name

BATCH_PREFIX = "batch-"


@dataclass(frozen=True)
class LandingReport:
    """What one landing run did for one topic."""

    topic: str
    table: str
    read: int
    landed: int
    already_landed: int
    unreadable: int


def _stored_coordinates(table_dir: Path) -> set[tuple[object, ...]]:
    seen: set[tuple[object, ...]] = set()
    for path in sorted(table_dir.glob(f"{BATCH_PREFIX}*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                record = LandedRecord(**{k: row[k] for k in LandedRecord.__dataclass_fields__})
                seen.add(record.coordinates())
    return seen


def _last_batch(raw_dir: Path) -> int:
    last = 0
    for path in raw_dir.glob(f"*/{BATCH_PREFIX}*.jsonl"):
        last = max(last, int(path.stem.removeprefix(BATCH_PREFIX)))
    return last


def next_batch_id(raw_dir: Path) -> int:
    """A strictly increasing batch id: epoch microseconds, or last + 1."""
    return max(time.time_ns() // 1000, _last_batch(raw_dir) + 1)


def land_topic(
    records: Iterable[LandedRecord], topic: str, raw_dir: Path, batch_id: int
) -> LandingReport:
    """Append the not-yet-landed records of one topic as batch ``batch_id``."""
    table = raw_table_name(topic)
    table_dir = raw_dir / table
    table_dir.mkdir(parents=True, exist_ok=True)
    seen = _stored_coordinates(table_dir)
    read = landed = duplicate = unreadable = 0
    lines: list[str] = []
    for record in records:
        read += 1
        unreadable += record.landing_error is not None
        key = record.coordinates()
        if key in seen:
            duplicate += 1
            continue
        seen.add(key)
        landed += 1
        row = asdict(record) | {"landing_batch": batch_id}
        lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
    if lines:
        target = table_dir / f"{BATCH_PREFIX}{batch_id}.jsonl"
        partial = table_dir / f".{target.name}.tmp"  # Spark skips dot files
        partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
        partial.rename(target)
    return LandingReport(topic, table, read, landed, duplicate, unreadable)


def land_all(landing: Path, raw_dir: Path) -> list[LandingReport]:
    """Land every topic folder of ``landing`` into ``raw_dir``."""
    batch_id = next_batch_id(raw_dir)
    tables: dict[str, str] = {}
    reports = []
    for topic_dir in topic_dirs(landing):
        table = raw_table_name(topic_dir.name)
        if tables.setdefault(table, topic_dir.name) != topic_dir.name:
            raise ValueError(
                f"topics {tables[table]!r} and {topic_dir.name!r} map to the "
                f"same raw table {table!r}; rename one folder"
            )
        reports.append(land_topic(read_topic(topic_dir), topic_dir.name, raw_dir, batch_id))
    return reports
