"""An independent, plain-Python model of what the pipeline must produce.

It reads the landed events itself (no Spark, no macros), decodes the logical
types with the standard library and applies the change events per key in
source order: each connector's position (see ``position``), then the Kafka
offset. Huawei CDL JSON 1.0 events are read through the CDL format page's
field table; CDL heartbeats are not change events.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CHANGE_OPS = {"c", "r", "u", "d", "t"}


def decode_decimal(text: str, scale: int) -> Decimal:
    unscaled = int.from_bytes(base64.b64decode(text), "big", signed=True)
    return Decimal(unscaled).scaleb(-scale)


def decimal_base64(value: Decimal, scale: int) -> str:
    """Kafka Connect Decimal encoding: unscaled, big-endian two's complement."""
    unscaled = int(value.scaleb(scale))
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


def decode_micros(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


def decode_millis(value: int | None) -> str | None:
    """A Kafka Connect Timestamp (epoch ms) as the export prints it."""
    if value is None:
        return None
    return (EPOCH + timedelta(milliseconds=value)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def decode_date(days: int) -> date:
    return date(1970, 1, 1) + timedelta(days=days)


def decode_zoned(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _from_cdl_json(payload: dict[str, Any]) -> dict[str, Any]:
    """A CDL JSON 1.0 payload in Debezium's terms (the format page's table)."""
    properties = {p["name"]: p["value"] for p in payload["transaction"]["properties"]}
    ops = {"INSERT": "c", "UPDATE": "u", "DELETE": "d"}
    return payload | {
        "op": ops.get(payload["OPERATION"], payload["OPERATION"]),
        "after": payload["data"],
        "source": {"connector": payload["DATA_STORE"].lower(), "lsn": properties.get("lsn")},
    }


def _is_heartbeat(payload: dict[str, Any]) -> bool:
    images = (payload.get("before"), payload.get("after"), payload.get("data"))
    return payload.get("HEARTBEAT_IDENTIFIER") is not None and all(i is None for i in images)


def events(path: Path) -> list[dict[str, Any]]:
    """The change events of a kcat or plain landing file, with offsets."""
    found = []
    for offset, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue  # plain-form tombstone
        record = json.loads(line)
        value, kafka_offset = record, offset
        if "payload" in record and "offset" in record:
            value, kafka_offset = record["payload"], record["offset"]
            if value is None:
                continue
            try:
                value = json.loads(value)
            except ValueError:
                continue
        payload = value.get("payload", value) if isinstance(value, dict) else None
        if not isinstance(payload, dict) or _is_heartbeat(payload):
            continue
        if "OPERATION" in payload:
            payload = _from_cdl_json(payload)
        if payload.get("op") in CHANGE_OPS:
            found.append(payload | {"_offset": kafka_offset})
    return found


def _lsn(text: str | None) -> tuple[int, ...]:
    """A SQL Server LSN as numbers: "00000027:00000758:0003" -> (39, 1880, 3)."""
    return tuple(int(part, 16) for part in text.split(":")) if text else (-1, -1, -1)


def position(event: dict[str, Any]) -> tuple[int, ...]:
    """The source order of one event, as the connector documents it (a
    delete made for a vanished key carries its own, ``_position``)."""
    if "_position" in event:
        return tuple(event["_position"])
    source = event["source"]
    connector = source.get("connector")
    if connector == "sqlserver":
        serial = source.get("event_serial_no")
        return (
            *_lsn(source["commit_lsn"]),
            *_lsn(source.get("change_lsn")),
            -1 if serial is None else int(serial),
            event["_offset"],
        )
    if connector == "mysql":
        binlog = re.search(r"([0-9]+)$", source["file"])
        number = int(binlog.group(1)) if binlog else -1
        return (number, source["pos"], source.get("row") or 0, event["_offset"])
    return (source["lsn"], event["_offset"])


def _flattened_position(meta: dict[str, Any]) -> tuple[int, ...]:
    """The source position an ExtractNewRecordState record kept (fields or
    headers, with the SMT's `__` prefix): lsn, or binlog file, pos, row."""
    if "__lsn" in meta:
        return (int(meta["__lsn"]),)
    if "__file" in meta:
        binlog = re.search(r"([0-9]+)$", meta["__file"])
        return (int(binlog.group(1)) if binlog else -1, int(meta["__pos"]), int(meta["__row"]))
    return ()


def flattened_changes(path: Path) -> list[dict[str, Any]]:
    """The changes a kcat file of an ExtractNewRecordState topic stands for,
    read as the SMT documents its output: a row (`__deleted` "true" or
    `__op` "d": a delete of it), its `__` metadata from its fields or its
    headers; a tombstone (no value, the JSON text null, or the converter's
    wrapper with a null payload) deletes its Kafka key (with or without its
    schema wrapper), ordered right after the key's previous record (its
    position, its own offset)."""
    changes = []
    last: dict[str, tuple[int, ...]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        key_text = record["key"]
        listed = record.get("headers") or []
        meta = dict(zip(listed[::2], listed[1::2], strict=True))
        offset = record["offset"]
        value = None if record["payload"] is None else json.loads(record["payload"])
        payload = value["payload"] if isinstance(value, dict) and "schema" in value else value
        if payload is None:  # no bytes, the JSON text null, or a null payload: a delete by key
            key = json.loads(key_text)
            key = key["payload"] if "schema" in key else key
            changes.append({"op": "d", "before": key, "_position": (*last[key_text], offset)})
            continue
        meta |= {k: v for k, v in payload.items() if k.startswith("__")}
        row = {k: v for k, v in payload.items() if not k.startswith("__")}
        last[key_text] = _flattened_position(meta)
        position = (*last[key_text], offset)
        if meta.get("__deleted") == "true" or meta.get("__op") == "d":
            changes.append({"op": "d", "before": row, "_position": position})
        else:
            changes.append({"op": meta.get("__op", "u"), "after": row, "_position": position})
    return changes


SNAPSHOT_STARTS = {"first", "first_in_data_collection"}
SNAPSHOT_ENDS = {"last", "last_in_data_collection"}


def complete_snapshots(changes: list[dict[str, Any]]) -> dict[tuple[int, ...], list[Any]]:
    """The complete blocking snapshots among ``changes``: first position ->
    the row images read. A snapshot is the reads (op r, source.snapshot not
    false or incremental) at one position less the Kafka offset; complete
    when its end marker is there, its start marker too (or it is a single
    read, re-sent copies aside: a one-row table's read is marked as the
    end), and its offsets in each partition have no gap."""
    groups: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for event in changes:
        marker = str(event["source"].get("snapshot"))
        if event["op"] == "r" and marker not in ("false", "incremental", "None"):
            groups.setdefault(position(event)[:-1], []).append(event)
    complete = {}
    for reads in groups.values():
        markers = {str(e["source"]["snapshot"]) for e in reads}
        offsets: dict[int, set[int]] = {}
        for event in reads:
            offsets.setdefault(event.get("_partition", 0), set()).add(event["_offset"])
        gapless = all(max(o) - min(o) + 1 == len(o) for o in offsets.values())
        # one read: a re-sent copy of a one-row table's read is the same read
        images = {json.dumps(e["after"], sort_keys=True, default=str) for e in reads}
        started = bool(markers & SNAPSHOT_STARTS) or len(images) == 1
        if markers & SNAPSHOT_ENDS and started and gapless:
            complete[min(map(position, reads))] = [e["after"] for e in reads]
    return complete


def notifications(path: Path) -> list[dict[str, Any]]:
    """The notifications of a notification topic's kcat landing file (the
    payloads, with their Kafka offsets)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return notification_payloads([json.loads(line) for line in lines])


def notification_payloads(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The payloads of a notification topic's kcat records, with their
    Kafka offsets."""
    return [json.loads(r["payload"])["payload"] | {"_offset": r["offset"]} for r in records]


def incremental_scans(
    changes: list[dict[str, Any]], notices: list[dict[str, Any]], table: str
) -> dict[tuple[int, ...], list[Any]]:
    """The complete incremental scans of ``table`` (its data collection)
    among ``notices`` whose events have all landed in ``changes``: their
    start -> the keys they stand for (rows read, and the rows of every
    change since the start: a change made while a chunk was read replaces
    the chunk's read of its key). A scan is complete when its
    TABLE_SCAN_COMPLETED notification says SUCCEEDED or EMPTY after a
    STARTED one listing the table; its reads are the incremental reads made
    (envelope ts_ms) between the two; its start the oldest position of the
    events made since the STARTED one; landed whole when, per partition, an
    event made after its end landed with no offset gap before it."""
    found: dict[tuple[int, ...], list[Any]] = {}
    for done in notices:
        extra = done.get("additional_data") or {}
        if (
            done["aggregate_type"] != "Incremental Snapshot"
            or done["type"] != "TABLE_SCAN_COMPLETED"
            or str(extra.get("scanned_collection", "")).lower() != table.lower()
            or extra.get("status") not in ("SUCCEEDED", "EMPTY")
        ):
            continue
        starts = [
            int(n["timestamp"])
            for n in notices
            if n["type"] == "STARTED"
            and n["aggregate_type"] == done["aggregate_type"]
            and int(n["timestamp"]) <= int(done["timestamp"])
            and table.lower()
            in [t.strip().lower() for t in n["additional_data"]["data_collections"].split(",")]
        ]
        if not starts:
            continue
        began, ended = max(starts), int(done["timestamp"])
        since = [e for e in changes if e["ts_ms"] >= began and e["op"] != "t"]
        partitions = {e.get("_partition", 0) for e in changes}
        proven = True
        for partition in partitions:
            mine = [e for e in since if e.get("_partition", 0) == partition]
            after = [e["_offset"] for e in mine if e["ts_ms"] > ended]
            if not after:
                proven = False
                continue
            before = {e["_offset"] for e in mine if e["ts_ms"] <= ended}
            first = min(e["_offset"] for e in mine)
            proven = proven and before == set(range(first, min(after)))
        if not proven:
            continue
        start = min(map(position, since))
        found[start] = [
            e["before"] if e["op"] == "d" else e["after"]
            for e in since
            if position(e) >= start
            or (e["op"] == "r" and e["source"].get("snapshot") == "incremental")
            and e["ts_ms"] <= ended
        ]
    return found


def vanished_key_deletes(
    changes: list[dict[str, Any]],
    *key: str,
    notices: list[dict[str, Any]] | None = None,
    table: str = "",
) -> list[dict[str, Any]]:
    """A delete, at a complete snapshot's first position, of every key live
    just before it (changes replayed in source order, truncates and earlier
    snapshots' deletes applied) that the snapshot did not read (its row
    image holds only the key); with ``notices`` (the connector's
    notifications) also at the start of each complete incremental scan of
    ``table``, of every such key it does not stand for."""

    def key_of(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[k] for k in key)

    snapshots = complete_snapshots(changes)
    if notices:
        snapshots |= incremental_scans(changes, notices, table)
    live: dict[tuple[Any, ...], dict[str, Any]] = {}
    deletes = []
    for event in sorted(changes, key=position):
        start = position(event)
        if start in snapshots:
            read = {key_of(row or {}) for row in snapshots[start] if row}
            for values, image in live.items():
                if values not in read:
                    before = {column: None for column in image} | dict(
                        zip(key, values, strict=True)
                    )
                    deletes.append(
                        {"op": "d", "before": before, "after": None, "source": {}}
                        | {"_position": list(start), "_offset": start[-1]}
                    )
            live = {values: image for values, image in live.items() if values in read}
        if event["op"] == "t":
            live.clear()
        elif event["op"] == "d":
            live.pop(key_of(event["before"]), None)
        else:
            live[key_of(event["after"])] = event["after"]
    return deletes


def current_state(
    changes: list[dict[str, Any]],
    *key: str,
    snapshot_deletes: bool = False,
    ignore_null: tuple[str, ...] = (),
    notices: list[dict[str, Any]] | None = None,
    table: str = "",
) -> dict[Any, dict[str, Any]]:
    """Apply changes in source order (``position``); returns the final row
    per key (the key value, or a tuple of values for a composite key). A
    column holding the unavailable-value placeholder (TOAST), or one of
    ``ignore_null`` that an update sets to None, keeps the key's previous
    value, None when there is none. With ``snapshot_deletes``, a
    complete snapshot deletes every key it did not read, at its first
    position, and so does a complete incremental scan of ``table`` that
    ``notices`` report (``vanished_key_deletes``)."""

    def key_of(row: dict[str, Any]) -> Any:
        values = tuple(row[k] for k in key)
        return values[0] if len(values) == 1 else values

    if snapshot_deletes:
        changes = changes + vanished_key_deletes(changes, *key, notices=notices, table=table)
    state: dict[Any, dict[str, Any]] = {}
    for event in sorted(changes, key=position):
        if event["op"] == "t":
            state.clear()
        elif event["op"] == "d":
            state.pop(key_of(event["before"]), None)
        else:
            row, previous = event["after"], state.get(key_of(event["after"]), {})
            state[key_of(row)] = _kept(event, row, previous, ignore_null)
    return state


def _kept(
    event: dict[str, Any],
    image: dict[str, Any],
    known: dict[str, Any],
    ignore_null: tuple[str, ...],
) -> dict[str, Any]:
    """``image`` (a row image of ``event``) with each value that means
    "unchanged" taken from ``known``, the key's previous row: the TOAST
    placeholder, or None in a column of ``ignore_null`` set by an update."""

    def unchanged(column: str, value: Any) -> bool:
        return _unavailable(value) or (
            value is None and event["op"] == "u" and column in ignore_null
        )

    return {c: known.get(c) if unchanged(c, v) else v for c, v in image.items()}


def transaction_boundaries(path: Path) -> list[dict[str, Any]]:
    """The BEGIN/END events of a transaction-metadata landing file, with
    their Kafka offsets."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        value = json.loads(record["payload"]) if record.get("payload") else None
        payload = (value or {}).get("payload")
        if isinstance(payload, dict) and payload.get("status") in ("BEGIN", "END"):
            found.append(payload | {"_offset": record["offset"]})
    return found


def visible_transactions(
    boundaries: list[dict[str, Any]],
    changes: dict[str, list[dict[str, Any]]],
    prefix: str,
    whole_id: bool,
) -> set[str]:
    """The transactions a consistent view shows: each complete (its END
    landed, and per table the END counts that is a topic of ``changes``, as
    many distinct total_order values landed) and ordered (by its BEGIN's
    offset, else its END's) before the first one that is not. A
    transaction is known by its id, or (``whole_id`` false: PostgreSQL's
    ``txId:LSN``) by the part before the ':'."""

    def tx_key(text: str) -> str:
        return text if whole_id else text.split(":")[0]

    order: dict[str, int] = {}
    ends: dict[str, dict[str, Any]] = {}
    for boundary in sorted(boundaries, key=lambda b: b["_offset"]):
        key = tx_key(boundary["id"])
        order.setdefault(key, boundary["_offset"])
        if boundary["status"] == "END":
            ends[key] = boundary
    landed: dict[tuple[str, str], set[int]] = {}
    for topic, events_of in changes.items():
        for event in events_of:
            if event.get("transaction"):
                block = event["transaction"]
                where = (tx_key(block["id"]), topic.lower())
                landed.setdefault(where, set()).add(int(block["total_order"]))
    topics = {topic.lower() for topic in changes}

    def complete(key: str) -> bool:
        if key not in ends:
            return False
        for counted in ends[key]["data_collections"] or []:
            topic = f"{prefix}.{counted['data_collection']}".lower()
            if topic in topics and len(landed.get((key, topic), ())) < counted["event_count"]:
                return False
        return True

    known = set(order) | {key for key, _ in landed}
    waiting = [order[key] for key in known if key in order and not complete(key)]
    cut = min(waiting, default=None)
    return {
        key
        for key in known
        if complete(key) and (cut is None or key not in order or order[key] < cut)
    }


def consistent_state(
    changes: list[dict[str, Any]],
    visible: set[str],
    whole_id: bool,
    *key: str,
    snapshot_deletes: bool = False,
) -> dict[Any, dict[str, Any]]:
    """The current state of a topic from its events outside transactions
    and those of the ``visible`` transactions only."""

    def shown(event: dict[str, Any]) -> bool:
        block = event.get("transaction")
        if not block:
            return True
        return (block["id"] if whole_id else block["id"].split(":")[0]) in visible

    return current_state([e for e in changes if shown(e)], *key, snapshot_deletes=snapshot_deletes)


def history(
    changes: list[dict[str, Any]],
    *key: str,
    ignore_null: tuple[str, ...] = (),
    track: tuple[str, ...] | None = None,
) -> list[dict[str, Any]]:
    """SCD type 2 from changes in source order: one version per create,
    read or update of a key, closed by the key's next change or by the
    first truncate after it. A TOAST placeholder (or a None an update sets
    in a column of ``ignore_null``) takes the key's previous known value
    (from its latest row image, `before` for a delete). A re-sent event
    opens no second version (``first_landed_copies``). With ``track`` (the
    tracked columns), an event opens a version only when it follows nothing,
    a delete or a truncate, or changes a tracked column; otherwise it
    updates the open version in place (its values become the event's)."""

    def key_of(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(row[k] for k in key)

    ordered = sorted(first_landed_copies(changes), key=position)
    truncates = [position(e) for e in ordered if e["op"] == "t"]
    per_key: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for event in ordered:
        if event["op"] != "t":
            image = event["before"] if event["op"] == "d" else event["after"]
            per_key.setdefault(key_of(image), []).append(event)
    versions: list[dict[str, Any]] = []
    for events_of_key in per_key.values():
        known: dict[str, Any] = {}
        previous: tuple[dict[str, Any], Any] | None = None  # event, closing position
        for index, event in enumerate(events_of_key):
            image = event["before"] if event["op"] == "d" else event["after"]
            row = _kept(event, image, known, ignore_null)
            at = position(event)
            closing = [(position(e), e["op"]) for e in events_of_key[index + 1 : index + 2]]
            closing += [(t, "t") for t in truncates if t > at][:1]
            to_position, closed_by = min(closing) if closing else (None, None)
            opens = (
                track is None
                or previous is None
                or previous[0]["op"] == "d"
                or previous[1] == "t"
                or any(row.get(c) != known.get(c) for c in track)
            )
            known, previous = row, (event, closed_by)
            if event["op"] == "d":
                continue
            version = row | {
                "valid_to_position": None if to_position is None else list(to_position),
                "closed_by_op": closed_by,
                "is_current": to_position is None,
            }
            if opens:
                version |= {"valid_from_position": list(at), "opened_by_op": event["op"]}
                versions.append(version)
            else:
                versions[-1] |= version
    return versions


def first_landed_copies(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes less re-sent copies: of the events equal in op, source
    position (less the Kafka offset) and row image, the first landed one
    (``_batch``, the landing it came in, then the offset)."""
    first: dict[str, dict[str, Any]] = {}
    truncates = [event for event in changes if event["op"] == "t"]  # close, never open
    for event in changes:
        if event["op"] == "t":
            continue
        image = event["before"] if event["op"] == "d" else event["after"]
        copy = json.dumps([event["op"], position(event)[:-1], image], sort_keys=True, default=str)
        landed = (event.get("_batch", 0), event["_offset"])
        if copy not in first or landed < (first[copy].get("_batch", 0), first[copy]["_offset"]):
            first[copy] = event
    return truncates + list(first.values())


UNAVAILABLE = "__debezium_unavailable_value"
UNAVAILABLE_BYTES = base64.b64encode(UNAVAILABLE.encode()).decode()


def _unavailable(value: Any) -> bool:
    """Debezium's placeholder for an unchanged TOASTed value: the text, its
    bytes (base64 in JSON) or a one-item array of the text."""
    return value in (UNAVAILABLE, UNAVAILABLE_BYTES, [UNAVAILABLE])


def expected_counts(path: Path) -> dict[str, int]:
    """Final row count per table from the CH-benCHmark corpus notes."""
    counts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            counts[line.split()[0]] = int(line.rsplit("final_rows=", 1)[1])
    return counts


def flink_expected_final_state(path: Path) -> dict[int, tuple[str, str, float]]:
    """Apply Flink's asserted changelog (+I/-U/+U/-D lines) per id."""
    state: dict[int, tuple[str, str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        kind, body = line.split("(", 1)
        parts = body.rstrip(")").split(",")
        row_id, name, weight = int(parts[0]), parts[1], float(parts[-1])
        description = ",".join(parts[2:-1])
        if kind in ("+I", "+U"):
            state[row_id] = (name, description, weight)
        elif kind == "-D":
            state.pop(row_id, None)
    return state
