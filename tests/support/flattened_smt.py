"""The flattened sample topics (issue 44): Debezium change events as the
ExtractNewRecordState SMT (`transforms=unwrap`) writes them, following its
documentation (Debezium, "New Record State Extraction": the value is the
`after` row; `add.fields` adds `__<field>` fields, a source field as
`__<field>` or, named `source.<field>`, `__source_<field>`; `add.headers`
the same names as headers; `delete.tombstone.handling.mode=rewrite` keeps a
delete as its `before` row with `__deleted: "true"` (and `"false"` on the
others) and drops the tombstone, `tombstone` (the default) keeps only the
tombstone). `python tests/support/flattened_smt.py` writes them into
sample_landing/ (see its PROVENANCE.md); the tests read the files written.

- `pgflat.public.orders` — PostgreSQL, `add.fields=op,lsn,source.ts_ms`,
  `delete.tombstone.handling.mode=rewrite`, schema blocks, kcat -J form. Its
  history deletes and re-creates a key, and carries a create re-sent after
  newer changes of its key (a connector restart re-delivering it): only the
  source position the SMT kept orders it right.
- `myflat.inventory.customers` — MySQL, `add.headers=op,file,pos,row` (the
  metadata in headers only, so the topic declares `connector: flattened`),
  deletes as tombstones (the default), schema blocks, kcat -J form: the
  customers history of Debezium's MySQL tutorial (the sample topic
  `dbserver1.inventory.customers`), then a key created, deleted and created
  again, and a delete of a key the first landing created; then (issue 53)
  a key created and deleted in the default `tombstone` mode as Kafka's
  JsonConverter (`schemas.enable=true`) writes it: Debezium's delete keeps
  the value's schema with a null value, and the converter writes null bytes
  only when both are null, so the delete arrives as `{"schema": {...},
  "payload": null}`, followed by the connector's own tombstone (null bytes).
- `plainflat.inventory.customers` — the same MySQL table without schema
  blocks (`schemas.enable=false` on keys and values: the key is `{"id":
  1001}`), `add.fields=op,file,pos,row`, the default `tombstone` mode: a
  delete arrives as the JSON text `null` (the converter's output for a null
  value with a schema), followed by the tombstone (null bytes) when
  `tombstones.on.delete` is on (here: for one key of the two deleted). Its
  declaration gives `primary_key: id`, `connector: flattened` and the
  schema (`schema_from` the topic above): the key comes from the Kafka key
  by the declared primary key.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import kcat

PG_TOPIC = "pgflat.public.orders"
MYSQL_TOPIC = "myflat.inventory.customers"
PLAIN_TOPIC = "plainflat.inventory.customers"
PG_FILE = "orders-unwrap-rewrite-kcat.jsonl"
MYSQL_FILE = "customers-unwrap-tombstones-kcat.jsonl"
PLAIN_FILE = "customers-unwrap-schemaless-kcat.jsonl"
# lines of each file landed by the end-to-end suite's first build
FIRST_LINES = {PG_TOPIC: 5, MYSQL_TOPIC: 6, PLAIN_TOPIC: 5}


def _field(field: str, kind: str, optional: bool = True, /, **extra: Any) -> dict[str, Any]:
    return kcat.field(kind, field, optional, **extra)


PG_ROW = [
    _field("id", "int32", False),
    _field("status", "string"),
    _field("qty", "int64"),
    _field("updated_at", "int64", name="io.debezium.time.MicroTimestamp", version=1),
]
MYSQL_ROW = [
    _field("id", "int32", False),
    _field("first_name", "string", False),
    _field("last_name", "string", False),
    _field("email", "string", False),
]


def _wrapped(fields: list[dict[str, Any]], name: str, payload: dict[str, Any]) -> str:
    schema = {"type": "struct", "fields": fields, "optional": False, "name": name}
    return kcat.compact({"schema": schema, "payload": payload})


def _kcat(
    topic: str, offset: int, key: str, value: str | None, headers: list[str | None] | None
) -> str:
    ts = 1767225600000 + offset
    return kcat.compact(kcat.record(topic, 0, offset, ts, key, value, headers=headers))


def _pg_lines() -> list[str]:
    """rewrite mode, add.fields=op,lsn,source.ts_ms."""
    added = [
        _field("__op", "string"),
        _field("__lsn", "int64"),
        _field("__source_ts_ms", "int64"),
        _field("__deleted", "string"),
    ]
    key_fields = [_field("id", "int32", False)]
    history = [  # (op, lsn, row)
        ("r", 1000, {"id": 1, "status": "new", "qty": 5}),
        ("r", 1000, {"id": 2, "status": "new", "qty": 1}),
        ("c", 2000, {"id": 3, "status": "new", "qty": 7}),
        ("u", 3000, {"id": 1, "status": "paid", "qty": 5}),
        ("d", 4000, {"id": 2, "status": "new", "qty": 1}),
        ("c", 5000, {"id": 2, "status": "again", "qty": 2}),
        ("u", 6000, {"id": 3, "status": "paid", "qty": 8}),
        # re-delivered after a restart: older than the update just before
        ("c", 2000, {"id": 3, "status": "new", "qty": 7}),
        ("u", 7000, {"id": 1, "status": "shipped", "qty": 4}),
    ]
    lines = []
    for offset, (op, lsn, row) in enumerate(history):
        image = row | {"updated_at": 1767225600000000 + lsn}
        value = image | {
            "__op": op,
            "__lsn": lsn,
            "__source_ts_ms": 1767225600000 + lsn,
            "__deleted": "true" if op == "d" else "false",
        }
        key = _wrapped(key_fields, f"{PG_TOPIC}.Key", {"id": row["id"]})
        lines.append(
            _kcat(PG_TOPIC, offset, key, _wrapped(PG_ROW + added, f"{PG_TOPIC}.Value", value), None)
        )
    return lines


def _mysql_lines() -> list[str]:
    """tombstone mode (deletes are tombstones only), add.headers=op,file,pos,row."""
    key_fields = [_field("id", "int32", False)]
    people = {
        1001: ("Sally", "Thomas", "sally.thomas@acme.com"),
        1002: ("George", "Bailey", "gbailey@foobar.com"),
        1003: ("Edward", "Walker", "ed@walker.com"),
        1004: ("Anne", "Kretchmar", "annek@noanswer.org"),
    }
    history: list[tuple[str, int, int, int, tuple[str, str, str] | None]] = [
        *(("r", 157, 0, key, person) for key, person in people.items()),
        ("c", 392, 0, 1005, ("Jason", "Bourne", "jason@bourne.org")),
        ("u", 722, 0, 1004, ("Anne Marie", "Kretchmar", "annek@noanswer.org")),
        ("c", 1109, 0, 1006, ("Jason", "Bourne", "jason@bourne.org")),
        ("u", 1442, 0, 1005, ("Jason", "Bourne", "jason.bourne@bourne.org")),
        ("u", 1442, 1, 1006, ("Jason", "Bourne", "jason.bourne@bourne.org")),
        ("d", 1831, 0, 1006, None),
        ("c", 2100, 0, 1007, ("Marie", "Curie", "marie@curie.org")),
        ("d", 2400, 0, 1007, None),
        ("c", 2700, 0, 1007, ("Marie", "Curie", "marie.curie@curie.org")),
        ("d", 3000, 0, 1002, None),
    ]
    history += [
        ("c", 3300, 0, 1008, ("Ada", "Lovelace", "ada@engines.org")),
        ("d", 3600, 0, 1008, "kept-schema"),
    ]
    lines = []
    offset = 0
    for op, pos, row, key, person in history:
        key_text = _wrapped(key_fields, f"{MYSQL_TOPIC}.Key", {"id": key})
        if person == "kept-schema":  # the delete with its value's schema kept, then the tombstone
            schema = {"type": "struct", "fields": MYSQL_ROW, "optional": True}
            kept = kcat.compact(
                {"schema": schema | {"name": f"{MYSQL_TOPIC}.Value"}, "payload": None}
            )
            lines.append(_kcat(MYSQL_TOPIC, offset, key_text, kept, None))
            lines.append(_kcat(MYSQL_TOPIC, offset + 1, key_text, None, None))
            offset += 2
            continue
        if not isinstance(person, tuple):  # the delete event dropped, its tombstone kept
            lines.append(_kcat(MYSQL_TOPIC, offset, key_text, None, None))
            offset += 1
            continue
        value = {"id": key, "first_name": person[0], "last_name": person[1], "email": person[2]}
        headers: list[str | None] = ["__op", op, "__file", "mysql-bin.000003"]
        headers += ["__pos", str(pos), "__row", str(row)]
        text = _wrapped(MYSQL_ROW, f"{MYSQL_TOPIC}.Value", value)
        lines.append(_kcat(MYSQL_TOPIC, offset, key_text, text, headers))
        offset += 1
    return lines


def _plain_lines() -> list[str]:
    """schemas.enable=false, add.fields=op,file,pos,row, tombstone mode: a
    delete is the JSON text null, then (tombstones.on.delete) null bytes."""
    people = {
        2001: ("Grace", "Hopper", "grace@navy.mil"),
        2002: ("Alan", "Turing", "alan@bletchley.uk"),
        2003: ("Edsger", "Dijkstra", "ewd@utexas.edu"),
    }
    history: list[tuple[str, int, int, tuple[str, str, str] | None, bool]] = [
        *(("r", 100, key, person, False) for key, person in people.items()),
        ("d", 200, 2002, None, True),  # the converted delete, then the tombstone
        ("u", 300, 2001, ("Grace", "Hopper", "grace.hopper@navy.mil"), False),
        ("d", 400, 2003, None, False),  # the converted delete only (no tombstones)
        ("c", 500, 2002, ("Alan", "Turing", "turing@manchester.uk"), False),
    ]
    lines = []
    offset = 0
    for op, pos, key, person, tombstone in history:
        key_text = kcat.compact({"id": key})
        if person is None:
            lines.append(_kcat(PLAIN_TOPIC, offset, key_text, "null", None))
            offset += 1
            if tombstone:
                lines.append(_kcat(PLAIN_TOPIC, offset, key_text, None, None))
                offset += 1
            continue
        value = {"id": key, "first_name": person[0], "last_name": person[1], "email": person[2]}
        value |= {"__op": op, "__file": "mysql-bin.000004", "__pos": pos, "__row": 0}
        lines.append(_kcat(PLAIN_TOPIC, offset, key_text, kcat.compact(value), None))
        offset += 1
    return lines


def write(landing: Path) -> list[Path]:
    """Write both topics' files under ``landing``; returns their paths."""
    written = []
    for topic, name, lines in (
        (PG_TOPIC, PG_FILE, _pg_lines()),
        (MYSQL_TOPIC, MYSQL_FILE, _mysql_lines()),
        (PLAIN_TOPIC, PLAIN_FILE, _plain_lines()),
    ):
        path = landing / topic / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "sample_landing")):
        print(path)
