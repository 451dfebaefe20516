"""Topics whose column names are what a database allows but code does not:
reserved words, spaces, dots, dashes, quotes of every kind, backticks,
unicode, a case-only pair, leading digits, names at the length limits, and
names that would run Jinja or SQL if pasted into code unescaped (the
canaries: run, they would create a table or log a marker).

Written with the same event builders as the samples (a create per row,
an update, a delete), for PostgreSQL, MySQL, SQL Server and MongoDB; and
names drawn at random (``drawn_names``) from the metacharacters of every
language a name lands in and the whole of Unicode.
"""

from __future__ import annotations

import random
from typing import Any

import kcat
from fixtures.samples_snapshots import _stock_event, _stock_topic
from fixtures.write_mongodb_samples import _event_2x, _key, _value
from kcat import compact, field

CANARY_TABLE = "pwned_sql"
CANARY_LOG = "PWNED-JINJA"
# what each database allows as a column name (quoted), as the issue's
# reproduction named them, plus the length limits (PostgreSQL 63 bytes,
# MySQL 64 characters, SQL Server 128)
HOSTILE_NAMES = [
    "order",
    "select",
    "a b",
    "a.b",
    "a-b",
    "ünï",
    'x"y',
    "a`b",
    "Name",
    "name",
    "--c",
    "x_cdc_y",
    "1st",
    "x'y",
    "a\\b",
    "[br]",
    "<script>alert(1)</script>",
    "<img src=x onerror=window.pwned=1>",
    "{{ log('" + CANARY_LOG + "', info=True) }}",
    "{% do run_query('create table cdc_landing." + CANARY_TABLE + " (a int)') %}",
    "{# c",
    "x')) ; drop table cdc_landing.heldnames_public_plain --",
    "l" * 63,
    "é" * 31,
    "名前",
    "$1",
    "%s",
    "*",
    "a: b",
    "- c",
    "#x",
    "&y",
    "!z",
    "k" * 128,
    # Spark's variable substitution must never run on a name (issue 53)
    "${env:CDC_HOSTILE_SECRET}",
    "${system:user.name}x",
    "${spark.app.name}",
    "${sparkconf:spark.master}",
    "${HOME}",
    # every line separator a tool that splits lines breaks at (issue 53)
    "v\x0bt",
    "f\x0cf",
    "f\x1cs",
    "g\x1ds",
    "r\x1es",
    "n\x85l",
    "l\u2028s",
    "p\u2029s",
    # one column to the metastore, which ignores trailing blanks (issue 53)
    "pad",
    "pad ",
]
# the value of the environment variable a substituted name would show
HOSTILE_SECRET = "the-secret-value-7f3a"


def hostile_row(item_id: int, names: list[str], version: int) -> dict[str, Any]:
    """The row image: the key, then each named column holding a text that
    says which column and version it is (so a value in the wrong column
    shows)."""
    return {"item_id": item_id} | {
        name: f"v{version}:{index}:{name}" for index, name in enumerate(names)
    }


# a bytes column (base64 text on the wire) whose name is hostile too: a
# record whose value there is not base64 is quarantined, the detail naming it
BYTES_NAME = "by'te\"s`"


def hostile_topic(
    connector: str, table: str, names: list[str], prefix: str, bytes_column: bool = False
) -> tuple[str, str]:
    """The topic's name and its kcat dump: three rows created, row 2
    updated, row 3 deleted; with ``bytes_column``, a column BYTES_NAME too
    and a fourth create whose value there is not base64 (quarantined)."""
    fields = [field("int32", "item_id")] + [field("string", name, True) for name in names]
    if bytes_column:
        fields.append(field("bytes", BYTES_NAME, True))

    def e(op: str, item_id: int, version: int, at: int, raw: str = "AQ==") -> Any:
        row = hostile_row(item_id, names, version) | ({BYTES_NAME: raw} if bytes_column else {})
        return _stock_event(
            connector, table, op, item_id, None, at, prefix=prefix, fields=fields, row=row
        )

    records = [
        e("c", 1, 1, 100),
        e("c", 2, 1, 110),
        e("c", 3, 1, 120),
        e("u", 2, 2, 130),
        e("d", 3, 1, 140),
    ]
    if bytes_column:
        records.append(e("c", 4, 1, 150, raw="not base64!"))
    topic = _stock_topic(connector, table, prefix)
    placed = [
        kcat.record(topic, 0, offset, ts, kcat.compact(key), kcat.compact(value))
        for offset, (key, value, ts) in enumerate(records)
    ]
    return topic, kcat.lines(placed)


def expected_rows(names: list[str]) -> dict[int, dict[str, Any]]:
    """The current state the topic's events leave: rows 1 (version 1) and
    2 (version 2)."""
    return {1: hostile_row(1, names, 1), 2: hostile_row(2, names, 2)}


# what a drawn name is made of: every metacharacter of SQL, YAML, Jinja,
# Markdown and HTML, quotes of every kind, whitespace, every control
# character and line separator (PostgreSQL allows all of them in a quoted
# name but NUL), and code points of the whole Unicode range (surrogates
# left out)
METACHARACTERS = "{}%#'\"`\\<>&*[]()|:-!$;,.=@?/+~^ \t"
CONTROLS = [chr(c) for c in [*range(0x01, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]]


def _code_point(draw: random.Random) -> str:
    while True:
        point = draw.choice(
            [
                draw.randint(0x20, 0x7E),
                draw.randint(0xA0, 0x2FFF),
                draw.randint(0x3000, 0x10FFFF),
                ord(draw.choice(CONTROLS)),
            ]
        )
        if not 0xD800 <= point <= 0xDFFF:
            return chr(point)


def drawn_names(seed: int, count: int) -> list[str]:
    """``count`` distinct column names of 1 to 12 characters, drawn from
    ``seed`` (a fixed seed: the same names every run; CDC_HOSTILE_SEED
    draws others)."""
    draw = random.Random(seed)
    names: list[str] = []
    while len(names) < count:
        length = draw.randint(1, 12)
        name = "".join(
            draw.choice(METACHARACTERS) if draw.random() < 0.5 else _code_point(draw)
            for _ in range(length)
        )
        if name not in names and name != "item_id":
            names.append(name)
    return names


OID_1 = "65a1f0c2e4b0a1b2c3d4e501"
OID_2 = "65a1f0c2e4b0a1b2c3d4e502"
OID_3 = "65a1f0c2e4b0a1b2c3d4e503"
MONGO_T0 = 1_700_000_000


def _document(oid: str, names: list[str], version: int) -> dict[str, Any]:
    return (
        {"_id": {"$oid": oid}}
        | {name: f"v{version}:{index}:{name}" for index, name in enumerate(names)}
        | {"nested": {name: f"n{version}:{name}" for name in names[:3]}}
    )


def hostile_mongodb_topic(topic: str, names: list[str]) -> str:
    """A MongoDB 2.x change-stream topic whose documents' fields carry
    ``names`` (a nested document too): two documents created, the second
    replaced by an update with its full document, a third created and
    deleted."""

    def record(oid: str, op: str, at: int, **images: Any) -> tuple[Any, Any, int]:
        event = _event_2x(op, MONGO_T0 + at, 1, **images)
        return _key(compact({"$oid": oid})), _value(event), (MONGO_T0 + at) * 1000

    records = [
        record(OID_1, "c", 1, after=_document(OID_1, names, 1)),
        record(OID_2, "c", 2, after=_document(OID_2, names, 1)),
        record(OID_3, "c", 3, after=_document(OID_3, names, 1)),
        record(OID_2, "u", 4, after=_document(OID_2, names, 2)),
        record(OID_3, "d", 5),
    ]
    placed = [
        kcat.record(topic, 0, offset, ts, kcat.compact(key), kcat.compact(value))
        for offset, (key, value, ts) in enumerate(records)
    ]
    return kcat.lines(placed)


def expected_documents(names: list[str]) -> dict[str, dict[str, Any]]:
    """The current documents the MongoDB topic leaves, by ``_id`` text."""
    return {OID_1: _document(OID_1, names, 1), OID_2: _document(OID_2, names, 2)}
