"""Random transactions over two tables for the property tests of the
transaction-consistent views (issue 24).

Each history is a few transactions of a PostgreSQL connector (topic prefix
``proptx``): each transaction creates, updates and deletes a few keys of
``orders`` and ``order_lines``, with its BEGIN and END (per-table counts) in
``proptx.transaction``, every record's transaction id ``txId:LSN`` with the
LSN of that record, as the connector writes them. Some histories start
with snapshot reads (no transaction: always visible). The very last
transaction has no END yet (the connector writes it when the next one
begins): it holds back every view from its place on.

The records of each topic are keyed into partitions, and each partition is
cut at a random point into the first landing and the rest (a landing that
lags per partition), independently per topic: a transaction lands torn
(its END before some of its events, or its events before its BEGIN) as a
real landing meets it. The expected views are the reference model's
``consistent_state`` over what has landed.

The histories are drawn with ``random.Random(seed)``: the same seed draws
the same histories everywhere.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixtures.sample_output import kcat_placed
from fixtures.samples_transactions import bank_event, transaction_boundary

PREFIX = "proptx"
CONNECTOR = "postgresql"
TABLES = ("orders", "order_lines")
TOPICS = {table: f"{PREFIX}.public.{table}" for table in TABLES}
TRANSACTION_TOPIC = f"{PREFIX}.transaction"
KEY = "item_id"
PARTITIONS = 2
SLOTS = 4  # keys per table and history
LSN_SPAN = 100_000
SAMPLE_FILE = "proptx-example-kcat.jsonl"
GENERATED_FROM = 1000  # generated histories' indices start here (ids, LSNs)
GENERATED_OFFSETS = 1_000_000  # and their offsets, after the sample's

# a step: (table, upsert or delete, slot)
Step = tuple[str, str, int]


@dataclass
class Records:
    """The kcat records of each topic, by partition, in offset order."""

    by_topic: dict[str, list[list[tuple[Any, Any, int]]]] = field(default_factory=dict)

    def add(self, topic: str, partition: int, record: tuple[Any, Any, int]) -> None:
        partitions = self.by_topic.setdefault(topic, [[] for _ in range(PARTITIONS)])
        partitions[partition].append(record)


def draw(count: int, seed: int) -> list[list[list[Step]]]:
    """``count`` histories: 1-5 transactions of 1-4 steps each."""
    rng = random.Random(seed)
    histories = []
    for _ in range(count):
        history = []
        for _ in range(rng.randint(1, 5)):
            steps = [
                (
                    rng.choice(TABLES),
                    rng.choice(("upsert", "upsert", "delete")),
                    rng.randrange(SLOTS),
                )
                for _ in range(rng.randint(1, 4))
            ]
            history.append(steps)
        histories.append(history)
    return histories


def simulate(histories: list[list[list[Step]]], first_index: int, open_last: bool) -> Records:
    """The records a PostgreSQL connector writes for ``histories`` (history
    ``i`` uses keys ``(first_index + i) * 10 + slot`` and its own LSN range);
    ``open_last``: the last transaction's END is not written yet."""
    records = Records()
    boundaries: list[tuple[Any, Any, int]] = []
    for number, history in enumerate(histories):
        index = first_index + number
        lsn = (index + 1) * LSN_SPAN
        live: set[tuple[str, int]] = set()
        if index % 3 == 0:  # snapshot reads first, outside any transaction
            for table in TABLES:
                key = index * 10
                live.add((table, key))
                _change(records, table, "r", key, lsn, None)
        for serial, steps in enumerate(history):
            tx = index * 10 + serial
            lsn += 100
            begin = lsn
            counts: dict[str, int] = {}
            for table, kind, slot in steps:
                key = index * 10 + slot
                if kind == "upsert":
                    op = "u" if (table, key) in live else "c"
                    live.add((table, key))
                elif (table, key) in live:
                    op = "d"
                    live.discard((table, key))
                else:
                    continue
                lsn += 1
                counts[table] = counts.get(table, 0) + 1
                order = (sum(counts.values()), counts[table])
                _change(records, table, op, key, lsn, (tx, *order))
            if not counts:
                continue
            boundaries.append(transaction_boundary(CONNECTOR, "BEGIN", tx, begin, {}))
            last = number == len(histories) - 1 and serial == len(history) - 1
            if not (open_last and last):
                boundaries.append(transaction_boundary(CONNECTOR, "END", tx, lsn + 1, counts))
    for boundary in boundaries:
        records.add(TRANSACTION_TOPIC, 0, boundary)
    return records


def _change(
    records: Records, table: str, op: str, key: int, lsn: int, tx: tuple[int, int, int] | None
) -> None:
    event = bank_event(CONNECTOR, table, op, key, lsn, lsn, tx, PREFIX)
    records.add(TOPICS[table], key % PARTITIONS, event)


def kcat_lines(
    records: Records, seed: int, first_offset: int
) -> tuple[dict[str, str], dict[str, str]]:
    """Per topic, the kcat lines of the first landing and of the rest: each
    partition cut at a random point past its middle (offsets from
    ``first_offset``)."""
    rng = random.Random(seed)
    first: dict[str, str] = {}
    rest: dict[str, str] = {}
    for topic, partitions in records.by_topic.items():
        early: list[tuple[int, int, Any]] = []
        late: list[tuple[int, int, Any]] = []
        for partition, placed in enumerate(partitions):
            cut = rng.randint(len(placed) // 2, len(placed))
            for offset, record in enumerate(placed):
                at = (partition, first_offset + offset, record)
                (early if offset < cut else late).append(at)
        first[topic] = kcat_placed(topic, early) if early else ""
        rest[topic] = kcat_placed(topic, late) if late else ""
    return first, rest


def write_sample(landing: Path) -> list[Path]:
    """The small fixed example of these topics in the sample landing (so the
    project has their models); the tests add generated histories to it.
    Every one of its transactions is complete."""
    records = simulate(draw(3, seed=1), first_index=0, open_last=False)
    written = []
    for topic, partitions in records.by_topic.items():
        placed = [
            (partition, offset, record)
            for partition, records_of in enumerate(partitions)
            for offset, record in enumerate(records_of)
        ]
        target = landing / topic / SAMPLE_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(kcat_placed(topic, placed), encoding="utf-8")
        written.append(target)
    return written


if __name__ == "__main__":
    for path in write_sample(Path(sys.argv[1] if len(sys.argv) > 1 else "sample_landing")):
        print(path)
