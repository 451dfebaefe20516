"""The base model's accounting (`cdc_checks` with `landed`, the macro
`_cdc_accounting_ctes`), rule by rule: on hand-made landed, base, staging,
quarantine and heartbeat rows holding each way a record can be lost,
repeated or made up, the problems it reports equal a plain-Python reading
of its rules (every rule found, each with its rows and example). Runs the
macro through `dbt show` on the shared runs' warehouse; a good build never
breaks these rules, so the end-to-end runs alone would not show that a
broken one is caught."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from e2e_harness import dbt_show

pytestmark = pytest.mark.spark

Record = tuple[str | None, int | None]

LANDED: list[Record] = [("f", n) for n in range(1, 9)] + [("g", None)]
BASE: list[Record] = [
    ("f", 1),
    ("f", 2),
    ("f", 2),  # one landed record, two base rows
    ("f", 3),
    ("f", 5),  # neither staged nor quarantined
    ("f", 6),
    ("f", 7),
    ("f", 8),
    ("f", 9),  # never landed
    (None, 10),  # never landed, and no file
    ("g", None),  # landed without a line
]  # ("f", 4) landed, missing from base
STAGING: list[tuple[str | None, int | None, str | None]] = [
    ("f", 1, "c"),
    ("f", 1, "c"),  # staged twice
    ("f", 2, "u"),
    ("f", 4, "x"),  # no base row, an op not accepted
    ("f", 6, None),  # a null op
    (None, 10, "c"),
    ("g", None, "c"),
]
QUARANTINE: list[tuple[str | None, int | None, str | None]] = [
    ("f", 3, None),  # without a reason
    ("f", 8, "truncated_json"),
    ("f", 9, "unreadable_json"),
]
HEARTBEATS: list[Record] = [("f", 7)]
OPS = ("c", "u", "d")


def _record(file: str | None, line: int | None) -> str | None:
    return None if file is None or line is None else f"{file}:{line}"


def expected_problems() -> dict[str, tuple[str, int, str | None]]:
    """The rules of `_cdc_accounting_ctes` read in Python: rule ->
    (column_name, failing rows, the least example)."""
    landed = Counter(LANDED)
    base = Counter(BASE)
    outcomes = Counter([(f, n) for f, n, _ in STAGING] + [(f, n) for f, n, _ in QUARANTINE])
    outcomes.update(HEARTBEATS)
    found: dict[str, list[str | None]] = {}
    for record in set(landed) | set(base):
        if not landed[record]:
            problem = "base row that was not landed"
        elif not base[record]:
            problem = "landed record missing from base"
        elif None in record:
            problem = "base row without landing file or line"
        elif base[record] > 1:
            problem = "landed record in base more than once"
        else:
            continue
        found.setdefault(f"accounting: {problem}", []).append(_record(*record))
    for record in set(base) | set(outcomes):
        if not base[record]:
            problem = "staged or quarantined row without a base row"
        elif not outcomes[record]:
            problem = "base row neither staged nor quarantined"
        elif outcomes[record] > 1:
            problem = "base row staged or quarantined more than once"
        else:
            continue
        found.setdefault(f"accounting: {problem}", []).append(_record(*record))
    problems = {
        rule: ("_landing_file, _landing_line", len(examples), _least(examples))
        for rule, examples in found.items()
    }
    bad_ops = ["null" if op is None else op for _, _, op in STAGING if op not in OPS]
    problems["accepted_values"] = ("_cdc_op (staging)", len(bad_ops), min(bad_ops))
    no_reason = [_record(f, n) for f, n, reason in QUARANTINE if reason is None]
    problems["not_null"] = ("_quarantine_reason (quarantine)", len(no_reason), _least(no_reason))
    return problems


def _least(examples: list[str | None]) -> str | None:
    named = [e for e in examples if e is not None]
    return min(named) if named else None


def _literal(value: str | int | None) -> str:
    if value is None:
        return "null"
    return f"{value}L" if isinstance(value, int) else f"'{value}'"


def _rows(name: str, columns: tuple[str, ...], rows: list[Any]) -> str:
    """A derived table of ``rows`` (typed as the models' columns are)."""
    typed = {
        "landing_file": "string",
        "_landing_file": "string",
        "landing_line": "bigint",
        "_landing_line": "bigint",
        "_cdc_op": "string",
        "_quarantine_reason": "string",
    }
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)
    casts = ", ".join(f"cast({c} as {typed[c]}) as {c}" for c in columns)
    return f"(select {casts} from values {values} as {name}({', '.join(columns)})) as {name}"


def accounting_query() -> str:
    """`select * from accounting_problems` of the macro over the rows above."""
    arguments = {
        "landed": _rows("landed", ("landing_file", "landing_line"), LANDED),
        "base": _rows("base", ("_landing_file", "_landing_line"), BASE),
        "staging": _rows("staging", ("_landing_file", "_landing_line", "_cdc_op"), STAGING),
        "quarantine": _rows(
            "quarantine", ("_landing_file", "_landing_line", "_quarantine_reason"), QUARANTINE
        ),
        "heartbeats": _rows("heartbeats", ("_landing_file", "_landing_line"), HEARTBEATS),
    }
    call = ", ".join(f'{name}="{text}"' for name, text in arguments.items())
    ops = ", ".join(f"'{op}'" for op in OPS)
    return (
        f"with {{{{ _cdc_accounting_ctes(since=none, staging_ops=[{ops}], {call}) }}}}"
        " checked as (select * from accounting_problems) select * from checked"
    )


def test_every_accounting_rule_reports_its_rows_and_an_example(runs: dict[str, Any]) -> None:
    assert runs["third"]  # the shared runs are built: their warehouse is free
    expected = expected_problems()
    assert len(expected) == 9  # every rule is broken once
    rows = dbt_show(accounting_query())
    found = {r["rule"]: (r["column_name"], r["failing_rows"], r["example"]) for r in rows}
    assert len(rows) == len(found)  # one row per broken rule
    assert found == expected
