"""A source table, as PostgreSQL's JSON of it, against the current-state
table a run built from its captured topic, as `export` prints it: which
keys and values differ. The database is the expected result; nothing here
computes one."""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

INEXACT = "_cdc_inexact_columns"
INFINITIES = {
    "infinity": ("9999-12-31", "9999-12-31T23:59:59.999999"),
    "-infinity": ("0001-01-01", "0001-01-01T00:00:00"),
}
UNBOUNDED = Decimal("1e20")
EIGHTEEN = Decimal("1e-18")


def exported_rows(exported: dict[str, Any], view: str) -> list[dict[str, Any]]:
    return [json.loads(row, parse_float=Decimal) for row in exported[view]["rows"]]


def instant(text: str) -> str:
    """An instant's text, PostgreSQL's or Spark's, as one form (UTC)."""
    text = text.replace(" ", "T").removesuffix("Z").removesuffix("+00:00")
    return text.rstrip("0").rstrip(".") if "." in text else text


def same(source: Any, built: Any, decimals: str = "exact") -> bool:
    """A source value and the table's hold the same value. ``decimals``:
    ``exact``; ``double`` (decimal.handling.mode=double: the nearest
    double); ``string`` (the exact text)."""
    if source is None or built is None:
        return source is built
    if isinstance(source, Decimal) or (isinstance(source, int) and not isinstance(source, bool)):
        if decimals == "double" and isinstance(source, Decimal):
            return float(source) == float(str(built))
        return Decimal(str(source)) == Decimal(str(built))
    if isinstance(source, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+\+00:00", source):
        return instant(source) == instant(str(built))
    if source in INFINITIES and isinstance(built, str):
        # PostgreSQL's ±infinity: the bounds of Spark's range (docs/types.md)
        return instant(built) in INFINITIES[source]
    return bool(source == built)


def rounded(source: Any, built: Any) -> bool:
    """A variable-scale numeric flagged inexact: the source rounded half up
    to 18 fraction digits, or null past 20 integer digits."""
    exact = Decimal(str(source))
    if abs(exact) >= UNBOUNDED:
        return built is None
    return Decimal(str(built)) == exact.quantize(EIGHTEEN, rounding=ROUND_HALF_UP)


def fits_decimal_38_18(source: Any) -> bool:
    return source is None or (abs(source) < UNBOUNDED and source == source.quantize(EIGHTEEN))


def differences(
    table: str,
    key: list[str],
    expected_rows: list[dict[str, Any]],
    actual_rows: list[dict[str, Any]],
    decimals: str = "exact",
    columns: list[str] | None = None,
) -> list[str]:
    """Each key one side lacks, each value that differs (``columns``: only
    those)."""
    expected = {tuple(row[k] for k in key): row for row in expected_rows}
    actual = {tuple(row[k] for k in key): row for row in actual_rows}
    found = []
    if expected.keys() - actual.keys():
        found.append(f"{table}: keys only in the source: {sorted(expected.keys() - actual.keys())}")
    if actual.keys() - expected.keys():
        found.append(f"{table}: keys only in the table: {sorted(actual.keys() - expected.keys())}")
    for at in sorted(expected.keys() & actual.keys()):
        built = actual[at]
        for column, value in expected[at].items():
            if columns is not None and column not in columns:
                continue
            if column in (built.get(INEXACT) or []):
                if not rounded(value, built.get(column)):
                    found.append(f"{table} {at} {column}: flagged inexact, {value} is not"
                                 f" {built.get(column)} rounded to decimal(38,18)")  # fmt: skip
            elif not same(value, built.get(column), decimals):
                shown = str(built.get(column))[:60]
                found.append(f"{table} {at} {column}: source {str(value)[:60]!r}, built {shown!r}")
    return found
