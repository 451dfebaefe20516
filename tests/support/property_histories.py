"""Random change histories for the property tests of the merge (issue 9).

Hypothesis draws each history as a list of steps over a few keys: inserts,
updates, TOAST updates (``label`` unchanged, sent as Debezium's
unavailable-value placeholder), partial updates (``qty`` unchanged, sent as
null: the topic declares ``ignore_null_updates: [qty]``), deletes, primary-key changes (delete +
create in one transaction), truncates, re-snapshots and incremental
snapshots (with the notifications the connector sends for them on its
notification topic). ``simulate`` turns
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

import kcat
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from kcat import compact, compact_or_none

TOPIC = "proptest.public.items"
# the connector's notification topic (prefix `proptest`: it speaks for
# TOPIC, whose data collection is `public.items`)
NOTIFICATIONS_TOPIC = "proptest.notifications"
DATA_COLLECTION = "public.items"
# the topic's declared ignore_null_updates, and the columns the example
# model proptest_items_label_history tracks
IGNORE_NULL = ("qty",)
TRACKED = ("label",)
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

# Bad records mixed into the delivery (issue 21): after a share of the
# change events, a corrupted copy of it is sent as a record of its own,
# marked with the quarantine reason the base model must give it
# (``BAD_MARK``); none may change the state, the history or any count but
# the quarantine's. Two are written with schema versions of their own: one
# whose block declares qty int32 for a value beyond 32 bits (it contradicts
# its own block), one that changes label from string to int64 (a change the
# table cannot take in place).
BAD_KINDS = (
    "null_value",
    "nested_too_deep",
    "truncated_json",
    "duplicate_field",
    "missing_row_image",
    "schema_contradiction",
    "incompatible_schema_change",
)
BAD_SHARE = 0.05
BAD_MARK = "_bad"


def _retyped(column: str, connect_type: str) -> dict[str, Any]:
    """VALUE_SCHEMA with one row column declared as another type."""
    fields = [f | {"type": connect_type} if f["field"] == column else f for f in ROW_FIELDS]
    images = [
        f | {"fields": fields} if f["field"] in ("before", "after") else f
        for f in VALUE_SCHEMA["fields"]
    ]
    return VALUE_SCHEMA | {"fields": images}


def corrupt(kind: str, value: dict[str, Any]) -> str:
    """The value text of a bad record made from a good change event (one
    with an ``after`` image)."""
    payload = value["payload"]
    if kind == "null_value":
        return "null"
    if kind == "nested_too_deep":
        return "[" * 1100 + "]" * 1100
    text = compact(value)
    if kind == "truncated_json":
        return text[: len(text) // 2]
    if kind == "duplicate_field":  # a reader keeping the last copy would delete
        op = f'"op":"{payload["op"]}"'
        spelling = len(text) % 4
        if spelling == 3:  # the copy at the top, before the payload: not
            # after the schema block the spec keeps whole (its text is then
            # another block's, and the whole value is scanned)
            return text.replace(',"payload":', ',"op":"d","payload":', 1)
        # the copy spelled with an escape the reader decodes (`"o\u0070"`
        # is `op`: text that never reads `"op"` twice), in single quotes
        # (Spark's JSON reader takes them), or plainly
        copy = ('"op"', '"o\\u0070"', "'op'")[spelling]
        return text.replace(op, op + f',{copy}:"d"', 1)
    if kind == "missing_row_image":
        bad = payload | {"op": "u", "after": None}
        return compact({"schema": value["schema"], "payload": bad})
    if kind == "schema_contradiction":
        after = payload["after"] | {"qty": 1 << 40}
        bad = {"schema": _retyped("qty", "int32"), "payload": payload | {"after": after}}
        return compact(bad)
    after = payload["after"] | {"label": 12345}
    bad = {"schema": _retyped("label", "int64"), "payload": payload | {"after": after}}
    return compact(bad)


# step kinds by weight (out of 116): mostly row changes, some key changes,
# re-snapshots, truncates, downtimes (the connector down while keys are
# deleted, then a complete re-snapshot of the table that lacks them) and
# incremental snapshots (keys deleted unseen, then a signalled snapshot
# that reads the table in chunks and reports its scan complete)
KINDS = [("insert", 30), ("update", 20), ("toast", 15), ("delete", 15), ("rekey", 10)] + [
    ("resnapshot", 10),
    ("truncate", 5),
    ("downtime", 6),
    ("incremental", 5),
]
# the kinds that act on the whole (shared) table
TABLE_WIDE = ("truncate", "downtime", "incremental")
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


def table_wide_first(drawn: list[list[tuple[str, int, str]]]) -> list[list[tuple[str, int, str]]]:
    """Histories with a truncate or a downtime first: they get the lowest LSN
    ranges, so a truncate (which empties the whole shared table at its
    position) or a complete (incremental) snapshot (which deletes every
    older key of the table it lacks) clears only other such histories,
    never the rest (the topic declares ``snapshot_deletes``)."""
    return sorted(drawn, key=lambda steps: not any(s[0] in TABLE_WIDE for s in steps))


@dataclass
class Event:
    """One change event of one history, in emission order."""

    key: int | None
    value: dict[str, Any]
    lsn: int
    # a notification on NOTIFICATIONS_TOPIC, not a change event of TOPIC:
    # its key (value and key as the sink channel writes them) and Kafka
    # timestamp
    notice: tuple[dict[str, Any], int] | None = None


@dataclass
class Delivery:
    """The records of one topic: per landing, per partition, kcat lines."""

    first: list[dict[str, Any]] = field(default_factory=list)
    rest: list[dict[str, Any]] = field(default_factory=list)
    # the records of NOTIFICATIONS_TOPIC, split the same way
    notices_first: list[dict[str, Any]] = field(default_factory=list)
    notices_rest: list[dict[str, Any]] = field(default_factory=list)


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


def _ts_ms(lsn: int) -> int:
    """The connector's clock when it emitted the event at ``lsn``."""
    return EPOCH_MS + lsn // 1000


def _envelope(op: str, before: Any, after: Any, lsn: int, snapshot: str) -> dict[str, Any]:
    ts_ms = _ts_ms(lsn)
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
        if kind in ("insert", "rekey", "toast"):
            key = index * 100 + slot % SLOTS  # inserts, key changes, TOAST: below SLOTS
        # an empty label draws a null qty: an insert writes it, an update
        # sends it for "qty unchanged" (the topic declares
        # ignore_null_updates: [qty]; the source row keeps its qty)
        qty = None if label == "" else number
        row = {"id": key, "label": label, "qty": qty}  # the Kafka key's id
        if kind == "insert" or (kind == "update" and key not in live):
            if key in live:
                kind = "update"
            else:
                live[key] = row
                events.append(Event(key, _envelope("c", None, row, lsn, "false"), lsn))
                continue
        live_qty = live[key]["qty"] if key in live else None
        if kind == "update" and key in live:
            live[key] = row if qty is not None else row | {"qty": live_qty}
            events.append(Event(key, _envelope("u", None, row, lsn, "false"), lsn))
        elif kind == "toast" and key in live:
            live[key] = row | {"label": live[key]["label"]}
            if qty is None:
                live[key]["qty"] = live_qty
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
        elif kind == "resnapshot":  # no start or end marker: incomplete
            for snapshot_key in sorted(live):
                value = _envelope("r", None, live[snapshot_key], lsn, "true")
                events.append(Event(snapshot_key, value, lsn))
        elif kind == "downtime":
            for gone in [k for k in sorted(live) if (k + slot) % 3 == 0]:
                del live[gone]  # deleted while the connector was down: no event
            events += _complete_snapshot(live, lsn, markers=SNAPSHOT_MARKERS[index % 2])
        elif kind == "incremental":
            for gone in [k for k in sorted(live) if (k + slot) % 3 == 1]:
                del live[gone]  # deleted unseen (a filtered or lost stream)
            scan, lsn = _incremental_snapshot(f"signal-{index}-{number}", live, lsn)
            events += scan
    return events


def _incremental_snapshot(
    signal: str, live: dict[int, dict[str, Any]], lsn: int
) -> tuple[list[Event], int]:
    """A signalled incremental snapshot of ``live`` after ``lsn``: its
    STARTED notification a millisecond after the events before it, one
    incremental read per key, its TABLE_SCAN_COMPLETED (EMPTY when there is
    no key, else SUCCEEDED) a millisecond after the last read, and the LSN
    the next step follows (a millisecond later again: an event made after
    the scan's end is told apart by the connector's clock)."""
    # the notification records' builder, imported here: the fresh
    # interpreter that draws the histories imports this file alone
    from fixtures.samples_snapshots import table_scan

    lsn += 1000
    started = _ts_ms(lsn)
    reads = []
    for key in sorted(live):
        lsn += 1
        reads.append(Event(key, _envelope("r", None, live[key], lsn, "incremental"), lsn))
    lsn += 1000
    status = "SUCCEEDED" if live else "EMPTY"
    notices = [
        Event(None, value, lsn, notice=(key, kafka_ts))
        for key, value, kafka_ts in table_scan(
            signal,
            DATA_COLLECTION,
            started,
            _ts_ms(lsn),
            status,
            len(live),
            connector_name="proptest",
        )
    ]
    return [notices[0], *reads, *notices[1:]], lsn + 1000


# a one-table blocking snapshot's markers (Debezium): the first and last
# read of the whole snapshot, or of the table
SNAPSHOT_MARKERS = (("first", "last"), ("first_in_data_collection", "last_in_data_collection"))


def _complete_snapshot(
    live: dict[int, dict[str, Any]], lsn: int, markers: tuple[str, str]
) -> list[Event]:
    """The reads of a complete snapshot of ``live`` at ``lsn``: the start
    marker on the first, the end marker on the last (a one-row table's only
    read carries the end marker), ``true`` between."""
    keys = sorted(live)
    events = []
    for number, key in enumerate(keys):
        marker = "true"
        if number == len(keys) - 1:
            marker = markers[1]
        elif number == 0:
            marker = markers[0]
        events.append(Event(key, _envelope("r", None, live[key], lsn, marker), lsn))
    return events


def deliver(histories: list[list[Event]], seed: int, first_offset: int = 0) -> Delivery:
    """Kafka records of every history's events: partitioned by key, some
    re-sent later, split at random into a first landing and the rest.
    Offsets start at ``first_offset`` in every partition."""
    rng = random.Random(seed)
    offsets = [first_offset] * PARTITIONS
    delivery = Delivery()
    pending: list[tuple[int, Event, str | None]] = []
    notice_offset = first_offset
    for events in histories:
        for event in events:
            if event.notice is not None:
                key, ts = event.notice
                notice = kcat.record(
                    NOTIFICATIONS_TOPIC,
                    0,
                    notice_offset,
                    ts,
                    compact(key),
                    compact(event.value),
                    tstype=False,
                    broker=False,
                )
                notice_offset += 1
                split = delivery.notices_first if rng.random() < 0.5 else delivery.notices_rest
                split.append(notice)
                continue
            partition = (event.key or 0) % PARTITIONS
            pending.append((partition, event, None))
            if rng.random() < 0.15:  # re-sent after a connector restart
                pending.append((partition, event, None))
            if event.value["payload"]["after"] is not None and rng.random() < BAD_SHARE:
                pending.append((partition, event, rng.choice(BAD_KINDS)))
    for partition, event, bad in pending:
        key = None if event.key is None else {"schema": KEY_SCHEMA, "payload": {"id": event.key}}
        value = compact(event.value) if bad is None else corrupt(bad, event.value)
        ts = EPOCH_MS + event.lsn // 1000
        record = kcat.record(
            TOPIC,
            partition,
            offsets[partition],
            ts,
            compact_or_none(key),
            value,
            tstype=False,
            broker=False,
        )
        if bad is not None:
            record[BAD_MARK] = bad  # an extra kcat field: landing ignores it
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
    for record in good_records(records):
        payload = json.loads(record["payload"])["payload"]
        # the reference orders by (lsn, offset); offsets repeat across
        # partitions, as in the staged _cdc_position
        found.append(
            payload
            | {"_offset": record["offset"], "_partition": record["partition"]}
            | {"_batch": record.get("_batch", 0)}
        )
    return found


def good_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records that are change events (not the bad ones mixed in)."""
    return [r for r in records if BAD_MARK not in r]


SAMPLE_FILE = "proptest-example-kcat.jsonl"
SAMPLE_NOTIFICATIONS_FILE = "proptest-notifications-kcat.jsonl"
GENERATED_FROM = 1000  # generated histories' indices start here (ids, LSNs)
GENERATED_OFFSETS = 1_000_000  # and their offsets, after the sample's


def write_sample(landing: Path) -> Path:
    """The small fixed example of this topic in the sample landing (so the
    project has its models); the tests add generated histories to it. It
    holds a bad record of every kind, so the project's generated schema
    already knows the schema versions the generated bad records use (the
    shared runs sync the project itself), and its notifications (so the
    project has the notification topic's models)."""
    drawn = table_wide_first(draw_histories(6, random_seed=1))
    histories = [simulate(i, steps) for i, steps in enumerate(drawn)]
    delivery = deliver(histories, seed=1)
    records = sorted(delivery.first + delivery.rest, key=_coordinates)
    records += _missing_bad_kinds(records)
    target = landing / TOPIC / SAMPLE_FILE
    write_records(target, records)
    notices = sorted(delivery.notices_first + delivery.notices_rest, key=_coordinates)
    write_records(landing / NOTIFICATIONS_TOPIC / SAMPLE_NOTIFICATIONS_FILE, notices)
    return target  # its settings: the project's declaration topics/proptest.public.items.yml


def _missing_bad_kinds(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A bad record of each kind ``records`` lack, made from its first
    create, at the next offsets of that create's partition."""
    present = {r[BAD_MARK] for r in records if BAD_MARK in r}
    create = next(r for r in records if json.loads(r["payload"])["payload"]["op"] == "c")
    offset = max(r["offset"] for r in records if r["partition"] == create["partition"])
    added = []
    for kind in (k for k in BAD_KINDS if k not in present):
        offset += 1
        payload = corrupt(kind, json.loads(create["payload"]))
        added.append(create | {"offset": offset, "payload": payload, BAD_MARK: kind})
    return added


def _coordinates(record: dict[str, Any]) -> tuple[int, int]:
    return int(record["partition"]), int(record["offset"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--draw"]:  # draw_histories' fresh interpreter
        print(json.dumps(_draw_here(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        print(write_sample(Path(sys.argv[1] if len(sys.argv) > 1 else "sample_landing")))
