"""The rules of the generated models' one dbt test (`cdc_checks`,
tests/dbt/generic/cdc_checks.sql), rule by rule: on hand-made rows that
break each rule, the problems it reports equal a plain-Python reading of
its rules (each rule found, with its rows and least example). The base
model's accounting (`_cdc_accounting_ctes`) over landed, base, staging,
quarantine and heartbeat rows holding each way a record can be lost,
repeated or made up; a key of one column with `not_null` and
`accepted_values`, a key of two columns alone, and column rules without a
key. One `dbt show` on the shared runs' warehouse; a good build breaks no
rule, so the end-to-end runs alone would not show that a broken one is
caught."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from e2e_harness import dbt_show

pytestmark = pytest.mark.spark

Record = tuple[str | None, int | None]
Row = tuple[Any, ...]
Found = tuple[int, str | None]  # failing rows, the least example

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


def expected_problems() -> dict[tuple[str, str], Found]:
    """The rules of `_cdc_accounting_ctes` read in Python: (rule,
    column_name) -> (failing rows, the least example)."""
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
        (rule, "_landing_file, _landing_line"): (len(examples), _least(examples))
        for rule, examples in found.items()
    }
    bad_ops = ["null" if op is None else op for _, _, op in STAGING if op not in OPS]
    problems[("accepted_values", "_cdc_op (staging)")] = (len(bad_ops), min(bad_ops))
    no_reason = [_record(f, n) for f, n, reason in QUARANTINE if reason is None]
    problems[("not_null", "_quarantine_reason (quarantine)")] = (len(no_reason), _least(no_reason))
    return problems


# a key of one column, with column rules: (order_id, _cdc_op)
SINGLE = [(1, "c"), (2, "u"), (2, "u"), (None, "c"), (3, None), (4, "x"), (5, "d")]
SINGLE_OPS = ("c", "r", "u", "d")
# a key of two columns, no column rule: (a, b)
COMPOSITE = [(1, "x"), (1, "x"), (1, "y"), (1, None), (None, None), (2, "x")]
# column rules, no key: (label, qty)
COLUMNS = [("a", 1), (None, 2), ("b", None), ("z", 3)]
LABELS = ("a", "b")


def key_problems(rows: list[Row], key: tuple[str, ...]) -> dict[tuple[str, str], Found]:
    """`key`: never null (no column of it), no two rows share it; failing
    rows and the least key as JSON (Spark's `to_json`, nulls left out)."""
    copies = Counter(tuple(row[: len(key)]) for row in rows)
    named = ", ".join(key)
    found: dict[tuple[str, str], Found] = {}
    for rule, broken in (
        ("key not null", [k for k in copies if None in k]),
        ("key unique", [k for k in copies if None not in k and copies[k] > 1]),
    ):
        if broken:
            texts = [
                json.dumps(
                    {c: v for c, v in zip(key, k, strict=True) if v is not None},
                    separators=(",", ":"),
                )
                for k in broken
            ]
            found[(rule, named)] = (sum(copies[k] for k in broken), min(texts))
    return found


def column_problems(
    values: list[Any], column: str, not_null: bool, accepted: tuple[str, ...] | None
) -> dict[tuple[str, str], Found]:
    """`not_null` and `accepted_values` of one column (a null is not
    judged by `accepted_values`); the least offending value as text."""
    found: dict[tuple[str, str], Found] = {}
    nulls = [v for v in values if v is None]
    if not_null and nulls:
        found[("not_null", column)] = (len(nulls), "null")
    if accepted is not None:
        outside = [str(v) for v in values if v is not None and v not in accepted]
        if outside:
            found[("accepted_values", column)] = (len(outside), min(outside))
    return found


def _least(examples: list[str | None]) -> str | None:
    named = [e for e in examples if e is not None]
    return min(named) if named else None


def _literal(value: str | int | None) -> str:
    if value is None:
        return "null"
    return f"{value}L" if isinstance(value, int) else f"'{value}'"


def _values(rows: list[Any]) -> str:
    return ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)


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
    casts = ", ".join(f"cast({c} as {typed[c]}) as {c}" for c in columns)
    return f"(select {casts} from values {_values(rows)} as {name}({', '.join(columns)})) as {name}"


def checks_query() -> str:
    """Each case's problems, tagged `checked`: the accounting macro's and
    `cdc_checks`' own (the test's macro called inline, a derived table as
    its model)."""
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
    cases = {
        "single": (
            _model(("order_id", "_cdc_op"), SINGLE),
            "key=['order_id'], not_null=['_cdc_op'],"
            f" accepted_values={{'_cdc_op': {list(SINGLE_OPS)}}}",
        ),
        "composite": (_model(("a", "b"), COMPOSITE), "key=['a', 'b']"),
        "columns": (
            _model(("label", "qty"), COLUMNS),
            f"not_null=['qty'], accepted_values={{'label': {list(LABELS)}}}",
        ),
    }
    checks = "".join(
        f' {name}_checks as ({{{{ test_cdc_checks(model="{model}", {options}) }}}}),'
        for name, (model, options) in cases.items()
    )
    selects = [
        "select 'accounting' as checked, * from accounting_problems",
        *(f"select '{name}' as checked, * from {name}_checks" for name in cases),
    ]
    ops = ", ".join(f"'{op}'" for op in OPS)
    return (
        f"with {{{{ _cdc_accounting_ctes(since=none, staging_ops=[{ops}], {call}) }}}}"
        f"{checks.rstrip(',')} {' union all '.join(selects)}"
    )


def _model(columns: tuple[str, ...], rows: list[Row]) -> str:
    """A derived table without an alias (`cdc_checks` gives its model one)."""
    return f"(select * from values {_values(rows)} as sample_rows({', '.join(columns)}))"


def test_every_rule_reports_its_rows_and_an_example(runs: dict[str, Any]) -> None:
    assert runs["third"]  # the shared runs are built: their warehouse is free
    accounting = expected_problems()
    ops = [op for _, op in SINGLE]
    expected = {
        "accounting": accounting,
        "single": key_problems(SINGLE, ("order_id",))
        | column_problems(ops, "_cdc_op", True, SINGLE_OPS),
        "composite": key_problems(COMPOSITE, ("a", "b")),
        "columns": column_problems([qty for _, qty in COLUMNS], "qty", True, None)
        | column_problems([label for label, _ in COLUMNS], "label", False, LABELS),
    }
    # every rule is broken in some case, the column rules on two columns
    assert len(accounting) == 9
    assert {rule for rule, _ in expected["single"]} == {
        "key not null",
        "key unique",
        "not_null",
        "accepted_values",
    }
    assert {rule for rule, _ in expected["composite"]} == {"key not null", "key unique"}
    assert set(expected["columns"]) == {("not_null", "qty"), ("accepted_values", "label")}
    rows = dbt_show(checks_query())
    found: dict[str, dict[tuple[str, str], Found]] = {}
    for r in rows:
        found.setdefault(r["checked"], {})[(r["rule"], r["column_name"])] = (
            r["failing_rows"],
            r["example"],
        )
    assert len(rows) == sum(len(rules) for rules in found.values())  # one row per broken rule
    assert found == expected
