"""Random change histories for the property tests of the merge (issue 9).

Hypothesis draws each history as a list of steps over a few keys: inserts,
updates, TOAST updates (``label`` unchanged, sent as Debezium's
unavailable-value placeholder), deletes, primary-key changes (delete +
create in one transaction), truncates and re-snapshots. ``simulate`` turns
the steps into the Debezium PostgreSQL events a connector would emit
(increasing LSNs), ``deliver`` into Kafka records the way a demanding
landing sees them: keyed into three partitions, some events re-sent later under new offsets (a
connector restart), and the records split into two landings at random,
whatever their order (the second landing holds them all: what the first
already landed is recognised by its coordinates).

Many histories share one topic (history ``h`` uses ids ``h * 100 + slot``
and its own LSN range), so one dbt run checks them all; the expected state
is the reference model applied to every landed event in source order.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

TOPIC = "proptest.public.items"
PARTITIONS = 3
SLOTS = 4  # keys per history; a key change moves a key to slot + SLOTS
LSN_SPAN = 1_000_000
EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z

ROW_FIELDS = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "label"},
    {"type": "int64", "optional": True, "field": "qty"},
]
SOURCE_FIELDS = [
    {"type": "string", "optional": False, "field": "version"},
    {"type": "string", "optional": False, "field": "connector"},
    {"type": "string", "optional": False, "field": "name"},
    {"type": "int64", "optional": False, "field": "ts_ms"},
    {"type": "string", "optional": True, "field": "snapshot"},
    {"type": "string", "optional": False, "field": "db"},
    {"type": "string", "optional": False, "field": "schema"},
    {"type": "string", "optional": False, "field": "table"},
    {"type": "int64", "optional": True, "field": "txId"},
    {"type": "int64", "optional": True, "field": "lsn"},
]
VALUE_SCHEMA: dict[str, Any] = {
    "type": "struct",
    "name": "proptest.public.items.Envelope",
    "optional": False,
    "fields": [
        {"type": "struct", "fields": ROW_FIELDS, "optional": True, "field": "before"},
        {"type": "struct", "fields": ROW_FIELDS, "optional": True, "field": "after"},
        {"type": "struct", "fields": SOURCE_FIELDS, "optional": False, "field": "source"},
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"},
    ],
}
KEY_SCHEMA: dict[str, Any] = {
    "type": "struct",
    "name": "proptest.public.items.Key",
    "optional": False,
    "fields": [ROW_FIELDS[0]],
}

# step kinds by weight (out of 100): mostly row changes, some key changes,
# re-snapshots and truncates
KINDS = [("insert", 30), ("update", 20), ("toast", 10), ("delete", 15), ("rekey", 10)] + [
    ("resnapshot", 10),
    ("truncate", 5),
]
# an update that leaves a TOASTed column unchanged: Debezium sends this
# placeholder instead of its value
UNAVAILABLE = "__debezium_unavailable_value"
_KIND_AT = [kind for kind, weight in KINDS for _ in range(weight)]
STEP = st.tuples(
    st.integers(0, len(_KIND_AT) - 1).map(lambda at: _KIND_AT[at]),
    st.integers(0, 2 * SLOTS - 1),
    st.text("abc", max_size=3),
)
HISTORY = st.lists(STEP, min_size=1, max_size=12).filter(
    lambda steps: sum(s[0] == "truncate" for s in steps) <= 1
)


def truncates_first(drawn: list[list[tuple[str, int, str]]]) -> list[list[tuple[str, int, str]]]:
    """Histories with a truncate first: they get the lowest LSN ranges, so a
    truncate (which empties the whole shared table at its position) clears
    only other truncating histories, never the rest."""
    return sorted(drawn, key=lambda steps: not any(s[0] == "truncate" for s in steps))


@dataclass
class Event:
    """One change event of one history, in emission order."""

    key: int | None
    value: dict[str, Any]
    lsn: int


@dataclass
class Delivery:
    """The records of one topic: per landing, per partition, kcat lines."""

    first: list[dict[str, Any]] = field(default_factory=list)
    rest: list[dict[str, Any]] = field(default_factory=list)


def draw_histories(count: int, random_seed: int) -> list[list[tuple[str, int, str]]]:
    """``count`` histories drawn by hypothesis from ``random_seed``, in a
    fresh interpreter: hypothesis also draws constants found in the project
    modules the process has imported (not test files), so in pytest the same
    seed drew other histories depending on which tests were collected (and
    on the checkout's path). A fresh interpreter imports only this file: the
    same seed and generator code draw the same histories everywhere."""
    found = subprocess.run(
        [sys.executable, __file__, "--draw", str(count), str(random_seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [[(op, key, label) for op, key, label in h] for h in json.loads(found.stdout)]


def _draw_here(count: int, random_seed: int) -> list[list[tuple[str, int, str]]]:
    drawn: list[list[tuple[str, int, str]]] = []

    @seed(random_seed)
    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(HISTORY)
    def collect(steps: list[tuple[str, int, str]]) -> None:
        drawn.append(steps)

    collect()
    return drawn[:count]


def _envelope(op: str, before: Any, after: Any, lsn: int, snapshot: str) -> dict[str, Any]:
    ts_ms = EPOCH_MS + lsn // 1000
    source = {
        "version": "2.7.3.Final",
        "connector": "postgresql",
        "name": "proptest",
        "ts_ms": ts_ms,
        "snapshot": snapshot,
        "db": "shop",
        "schema": "public",
        "table": "items",
        "txId": lsn // 10,
        "lsn": lsn,
    }
    payload = {"before": before, "after": after, "source": source, "op": op, "ts_ms": ts_ms}
    return {"schema": VALUE_SCHEMA, "payload": payload}


def simulate(index: int, steps: list[tuple[str, int, str]]) -> list[Event]:
    """The events a PostgreSQL connector emits for one history."""
    live: dict[int, dict[str, Any]] = {}
    events: list[Event] = []
    lsn = (index + 1) * LSN_SPAN
    for number, (kind, slot, label) in enumerate(steps):
        lsn += 100
        key = index * 100 + slot
        if kind in ("insert", "rekey"):
            key = index * 100 + slot % SLOTS  # inserts and key changes start below SLOTS
        row = {"id": key, "label": label, "qty": number}  # the Kafka key's id
        if kind == "insert" or (kind == "update" and key not in live):
            if key in live:
                kind = "update"
            else:
                live[key] = row
                events.append(Event(key, _envelope("c", None, row, lsn, "false"), lsn))
                continue
        if kind == "update" and key in live:
            live[key] = row
            events.append(Event(key, _envelope("u", None, row, lsn, "false"), lsn))
        elif kind == "toast" and key in live:
            live[key] = row | {"label": live[key]["label"]}
            sent = row | {"label": UNAVAILABLE}
            events.append(Event(key, _envelope("u", None, sent, lsn, "false"), lsn))
        elif kind == "delete" and key in live:
            del live[key]
            events.append(Event(key, _envelope("d", {"id": key}, None, lsn, "false"), lsn))
        elif kind == "rekey" and key in live:
            new_key = key + SLOTS
            if new_key in live:
                continue
            moved = live.pop(key) | {"id": new_key}
            live[new_key] = moved
            events.append(Event(key, _envelope("d", {"id": key}, None, lsn, "false"), lsn))
            events.append(Event(new_key, _envelope("c", None, moved, lsn + 1, "false"), lsn + 1))
        elif kind == "truncate":
            live.clear()
            events.append(Event(None, _envelope("t", None, None, lsn, "false"), lsn))
        elif kind == "resnapshot":
            for snapshot_key in sorted(live):
                value = _envelope("r", None, live[snapshot_key], lsn, "true")
                events.append(Event(snapshot_key, value, lsn))
    return events


def deliver(histories: list[list[Event]], seed: int, first_offset: int = 0) -> Delivery:
    """Kafka records of every history's events: partitioned by key, some
    re-sent later, split at random into a first landing and the rest.
    Offsets start at ``first_offset`` in every partition."""
    rng = random.Random(seed)
    offsets = [first_offset] * PARTITIONS
    delivery = Delivery()
    pending: list[tuple[int, Event]] = []
    for events in histories:
        for event in events:
            partition = (event.key or 0) % PARTITIONS
            pending.append((partition, event))
            if rng.random() < 0.15:  # re-sent after a connector restart
                pending.append((partition, event))
    for partition, event in pending:
        key = None if event.key is None else {"schema": KEY_SCHEMA, "payload": {"id": event.key}}
        record = {
            "topic": TOPIC,
            "partition": partition,
            "offset": offsets[partition],
            "ts": EPOCH_MS + event.lsn // 1000,
            "key": None if key is None else json.dumps(key, separators=(",", ":")),
            "payload": json.dumps(event.value, separators=(",", ":")),
        }
        offsets[partition] += 1
        (delivery.first if rng.random() < 0.5 else delivery.rest).append(record)
    rng.shuffle(delivery.first)
    rng.shuffle(delivery.rest)
    return delivery


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def landed_events(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The change events of kcat records, as reference_model.events reads
    them (payload plus the Kafka offset), and the landing each came in
    (``_batch``, set by the harness: 0 when absent)."""
    found = []
    for record in records:
        payload = json.loads(record["payload"])["payload"]
        # the reference orders by (lsn, offset); offsets repeat across
        # partitions, as in the staged _cdc_position
        found.append(payload | {"_offset": record["offset"], "_batch": record.get("_batch", 0)})
    return found


SAMPLE_FILE = "proptest-example-kcat.jsonl"
GENERATED_FROM = 1000  # generated histories' indices start here (ids, LSNs)
GENERATED_OFFSETS = 1_000_000  # and their offsets, after the sample's


def write_sample(landing: Path) -> Path:
    """The small fixed example of this topic in the sample landing (so the
    project has its models); the tests add generated histories to it."""
    drawn = truncates_first(draw_histories(6, random_seed=1))
    histories = [simulate(i, steps) for i, steps in enumerate(drawn)]
    delivery = deliver(histories, seed=1)
    target = landing / TOPIC / SAMPLE_FILE
    write_records(target, sorted(delivery.first + delivery.rest, key=_coordinates))
    (landing / TOPIC / "topic.yml").write_text(
        "# random histories drawn by tests/python/property_histories.py (see PROVENANCE.md)\n"
        "primary_key: id\nhistory: true\n",
        encoding="utf-8",
    )
    return target


def _coordinates(record: dict[str, Any]) -> tuple[int, int]:
    return int(record["partition"]), int(record["offset"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--draw"]:  # draw_histories' fresh interpreter
        print(json.dumps(_draw_here(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        print(write_sample(Path(sys.argv[1] if len(sys.argv) > 1 else "sample_landing")))
