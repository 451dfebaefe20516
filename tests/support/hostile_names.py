"""Topics whose column names are what a database allows but code does not:
reserved words, spaces, dots, dashes, quotes of every kind, backticks,
unicode, a case-only pair, leading digits, names at the length limits, and
names that would run Jinja or SQL if pasted into code unescaped (the
canaries: run, they would create a table or log a marker).

Written with the same event builder as the stock samples (a create per
row, an update, a delete), for PostgreSQL, MySQL and SQL Server.
"""

from __future__ import annotations

from typing import Any

import kcat
from fixtures.write_samples import _stock_event, _stock_topic
from kcat import field

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
    "1st",
    "x'y",
    "a\\b",
    "[br]",
    "<script>alert(1)</script>",
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
]


def hostile_row(item_id: int, names: list[str], version: int) -> dict[str, Any]:
    """The row image: the key, then each named column holding a text that
    says which column and version it is (so a value in the wrong column
    shows)."""
    return {"item_id": item_id} | {
        name: f"v{version}:{index}:{name}" for index, name in enumerate(names)
    }


def hostile_topic(connector: str, table: str, names: list[str], prefix: str) -> tuple[str, str]:
    """The topic's name and its kcat dump: three rows created, row 2
    updated, row 3 deleted."""
    fields = [field("int32", "item_id")] + [field("string", name, True) for name in names]

    def e(op: str, item_id: int, version: int, at: int) -> Any:
        row = hostile_row(item_id, names, version)
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
