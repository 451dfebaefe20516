"""PostgreSQL's text of a value (`::text`) as the value a current-state
table holds for it, type by type, as `export` prints it: what Debezium's
PostgreSQL connector (schemas on, decimal.handling.mode=precise,
time.precision.mode=adaptive, binary.handling.mode=bytes) and the project
make of it. Each rule is a representation docs/types.md names; the values
come from the database, never from here."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from real_compare import instant

MONTH_MICROS = Decimal("30.4375") * 86_400_000_000  # Debezium's month: 365.25 / 12 days
MAX_TIMESTAMP = "9999-12-31T23:59:59.999999"
MIN_TIMESTAMP = "0001-01-01T00:00:00"


def _time(text: str) -> str:
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(6, '0')}"


def _timetz(text: str) -> str:
    """'10:00:00+02' as the UTC time Debezium writes ('08:00:00Z')."""
    found = re.fullmatch(r"([\d:.]+)([+-]\d\d)(?::?(\d\d))?", text)
    assert found is not None, text
    clock, hours, minutes = found.group(1), int(found.group(2)), int(found.group(3) or 0)
    offset = timedelta(hours=hours, minutes=minutes if hours >= 0 else -minutes)
    moment = datetime.strptime(_time(clock), "%H:%M:%S.%f") - offset
    return moment.strftime("%H:%M:%S.%f")


def _built_timetz(value: str) -> str:
    return _time(value.removesuffix("Z"))


def _timestamp(text: str) -> str:
    if text == "infinity":
        return MAX_TIMESTAMP
    if text == "-infinity":
        return MIN_TIMESTAMP
    return instant(re.sub(r"\+00$", "", text))


def _interval_micros(text: str) -> int:
    """Debezium's MicroDuration of PostgreSQL's interval text: a month is
    30.4375 days, a year 12 months."""
    months = days = 0
    micros = Decimal(0)
    for amount, unit in re.findall(r"(-?\d+) (year|mon|day)s?", text):
        if unit == "year":
            months += 12 * int(amount)
        elif unit == "mon":
            months += int(amount)
        else:
            days += int(amount)
    clock = re.search(r"(-?)(\d+):(\d\d):(\d\d(?:\.\d+)?)$", text)
    if clock is not None:
        sign = -1 if clock.group(1) else 1
        seconds = int(clock.group(2)) * 3600 + int(clock.group(3)) * 60 + Decimal(clock.group(4))
        micros = sign * seconds * 1_000_000
    return int(months * MONTH_MICROS + days * 86_400_000_000 + micros)


def _bits(text: str) -> str:
    """A bit string as Debezium's Bits (Java's BitSet.toByteArray): the
    bits as a little-endian number in as few bytes as it needs (zero: none)."""
    number = int(text or "0", 2)
    return base64.b64encode(number.to_bytes((number.bit_length() + 7) // 8, "little")).decode()


def _array(text: str) -> list[str | None]:
    inner = text[1:-1]
    if not inner:
        return []
    items = re.findall(r'"((?:[^"\\]|\\.)*)"|([^,]+)', inner)
    return [
        quoted.replace('\\"', '"') if quoted or not bare else (None if bare == "NULL" else bare)
        for quoted, bare in items
    ]


def _point(text: str) -> tuple[float, float]:
    x, y = text.strip("()").split(",")
    return float(x), float(y)


# column -> (PostgreSQL's text -> the expected value, the built value -> comparable)
Rule = tuple[Callable[[str], Any], Callable[[Any], Any]]
RULES: dict[str, Rule] = {
    "c_smallint": (int, int),
    "c_bigint": (int, int),
    "c_oid": (int, int),
    "c_real": (float, float),
    "c_double": (float, float),
    "c_numeric_5_2": (Decimal, lambda v: Decimal(str(v))),
    "c_money": (lambda t: Decimal(t.replace("$", "").replace(",", "")), lambda v: Decimal(str(v))),
    # char(n) keeps its padding in the table; PostgreSQL's text drops it
    "c_char": (str, lambda v: v.rstrip(" ")),
    "c_varchar": (str, str),
    "c_bytea": (lambda t: base64.b64encode(bytes.fromhex(t[2:])).decode(), str),
    "c_bool": (lambda t: t == "true", bool),
    "c_date": (lambda t: {"infinity": "9999-12-31", "-infinity": "0001-01-01"}.get(t, t), str),
    "c_time": (_time, _time),
    "c_timetz": (_timetz, _built_timetz),
    "c_ts3": (_timestamp, lambda v: instant(str(v))),
    "c_ts6": (_timestamp, lambda v: instant(str(v))),
    "c_tstz": (_timestamp, lambda v: instant(str(v))),
    "c_interval": (_interval_micros, int),
    "c_uuid": (str, str),
    "c_json": (str, str),
    "c_jsonb": (str, str),
    "c_xml": (str, str),
    # inet: Debezium writes the address without a host's /32 (/128)
    "c_inet": (lambda t: re.sub(r"/(32|128)$", "", t), str),
    "c_cidr": (str, str),
    "c_macaddr": (str, str),
    "c_bit": (_bits, str),
    "c_varbit": (_bits, str),
    "c_ints": (lambda t: [None if i is None else int(i) for i in _array(t)], list),
    "c_texts": (_array, list),
    "c_mood": (str, str),
    "c_point": (_point, lambda v: (float(v["x"]), float(v["y"]))),
    "c_int4range": (str, str),
    "c_tsrange": (str, str),
}


def type_differences(expected_text: list[dict[str, Any]], built: list[dict[str, Any]]) -> list[str]:
    """Each value of the types table whose built value is not PostgreSQL's."""
    actual = {row["id"]: row for row in built}
    found = []
    if sorted(actual) != sorted(row["id"] for row in expected_text):
        found.append(f"keys: source {[r['id'] for r in expected_text]}, built {sorted(actual)}")
    for row in expected_text:
        got = actual.get(row["id"])
        if got is None:
            continue
        for column, text in row.items():
            if column == "id":
                continue
            value = got.get(column)
            if text is None or value is None:
                ok = text is None and value is None
            else:
                source_rule, built_rule = RULES[column]
                ok = source_rule(text) == built_rule(value)
            if not ok:
                found.append(f"kinds {row['id']} {column}: source {text!r}, built {value!r}")
    return found
