"""A topic's declaration, checked and typed: one field per setting.

``topics/<topic>.yml`` (declarations.py reads and writes the file) holds
what a person decides about a topic; ``Declaration.parse`` checks every
setting once — a wrong one stops the sync of that topic, naming the file it
came from — and gives each its type, so the generators read fields, never
settings by name. What a setting means is said in README "Adding a topic"
and docs/topics.md; the order of SETTINGS is the file's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_helpers.schema.column_names import spark_key
from python_helpers.schema.envelope import SpecError
from python_helpers.schema.schema_evolution import POLICIES, QUARANTINE
from python_helpers.schema.spark_types import BASE64, DECIMAL_FORMATS

# a setting naming columns: a list, or {except: [...]} (every column but those)
ColumnList = list[str] | dict[str, list[str]]
COLUMN_DOC_KEYS = ("description", "data_tests")
_MODEL_NAME = re.compile(r"[a-z_][a-z0-9_]{0,199}")
_DECIMAL_FORMAT = "the JsonConverter's decimal.format"


@dataclass(frozen=True)
class Declaration:
    """What a person declared about one topic (absent settings: defaults)."""

    origin: Path  # the file to name when a setting is wrong
    primary_key: tuple[str, ...] = ()
    model_name: str | None = None
    # history: true, or the columns it tracks ({track: [...]} / {except: [...]})
    history: bool = False
    history_columns: dict[str, list[str]] | None = None
    schema_from: str | None = None
    connector: str | None = None
    # freshness limits, durations as written (run/alerts.py reads them)
    max_lag: Any = None
    max_staleness: Any = None
    decimal_format: str = BASE64
    schema_changes: str = QUARANTINE
    max_value_bytes: int | None = None
    # None: not declared (the project's var `cdc_snapshot_deletes` decides)
    snapshot_deletes: bool | None = None
    ignore_null_updates: ColumnList | None = None
    changes: bool = False
    notifications_for: str | None = None
    column_names: dict[str, str] = field(default_factory=dict)
    description: str | None = None
    columns: dict[str, dict[str, Any]] = field(default_factory=dict)
    # landing: {table: ..., topic: ...}: its records are read from a table
    # in the Spark Kafka source's schema (land/kafka_tables.py), not files
    landing_table: str | None = None
    landing_topic: str | None = None

    @classmethod
    def parse(cls, settings: Mapping[str, Any], origin: Path) -> Declaration:
        """The declaration ``settings`` say (keys already known to be
        settings); SpecError naming ``origin`` when one is wrong."""
        history_columns = _history_columns(settings, origin)
        return cls(
            origin=origin,
            primary_key=_primary_key(settings, origin),
            model_name=_model_name(settings, origin),
            history=history_columns is not None or settings.get("history") is True,
            history_columns=history_columns,
            schema_from=_text(settings, "schema_from"),
            connector=_text(settings, "connector"),
            max_lag=settings.get("max_lag"),
            max_staleness=settings.get("max_staleness"),
            decimal_format=_choice(
                settings,
                origin,
                "decimal_format",
                DECIMAL_FORMATS,
                "the JsonConverter's decimal.format",
            ),
            schema_changes=_choice(
                settings, origin, "schema_changes", POLICIES, "see schema_evolution"
            ),
            max_value_bytes=_max_value_bytes(settings, origin),
            snapshot_deletes=(
                _flag(settings, origin, "snapshot_deletes")
                if "snapshot_deletes" in settings
                else None
            ),
            ignore_null_updates=_ignore_null_updates(settings, origin),
            changes=_flag(settings, origin, "changes"),
            notifications_for=_notifications_for(settings, origin),
            column_names=_column_names(settings, origin),
            description=_description(settings, origin),
            columns=_columns(settings, origin),
            **_landing(settings, origin),
        )


# a table name as Spark takes it unquoted: [catalog.][database.]table
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}(\.[A-Za-z_][A-Za-z0-9_]{0,127}){0,2}")
# a Kafka topic name (Kafka's own rule: at most 249 of these characters)
_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")


def _landing(settings: Mapping[str, Any], origin: Path) -> dict[str, str | None]:
    """``landing: {table: <table>, topic: <Kafka topic>}``: the table (in
    the Spark Kafka source's schema) the topic's records are read from,
    and the topic's name in its `topic` column (default: this topic)."""
    value = settings.get("landing")
    if value is None:
        return {"landing_table": None, "landing_topic": None}
    if not isinstance(value, dict) or set(value) - {"table", "topic"} or "table" not in value:
        raise SpecError(
            f"{origin}: landing is {value!r}; expected {{table: <table>, topic: <Kafka topic>}}"
            " (topic optional: this topic's name)"
        )
    table, topic = value["table"], value.get("topic")
    if not isinstance(table, str) or not _TABLE_NAME.fullmatch(table):
        raise SpecError(
            f"{origin}: landing table is {table!r}; expected a table name"
            " ([catalog.][database.]table: letters, digits, underscores)"
        )
    if topic is not None and (not isinstance(topic, str) or not _KAFKA_TOPIC.fullmatch(topic)):
        raise SpecError(
            f"{origin}: landing topic is {topic!r}; expected a Kafka topic name"
            " (letters, digits, '.', '_', '-'; at most 249)"
        )
    return {"landing_table": table, "landing_topic": topic}


def _text(settings: Mapping[str, Any], key: str) -> str | None:
    value = settings.get(key)
    return str(value) if value else None


def _primary_key(settings: Mapping[str, Any], origin: Path) -> tuple[str, ...]:
    key = settings.get("primary_key")
    if key is None or key in ("", []):
        return ()
    if isinstance(key, str):
        return (key,)
    if isinstance(key, list) and all(isinstance(k, str) for k in key):
        return tuple(key)
    raise SpecError(f"{origin}: primary_key is {key!r}; expected a column or a list")


def _model_name(settings: Mapping[str, Any], origin: Path) -> str | None:
    value = settings.get("model_name")
    if value is None:
        return None
    if isinstance(value, str) and _MODEL_NAME.fullmatch(value):
        return value
    raise SpecError(
        f"{origin}: model_name is {value!r}; expected a lowercase identifier"
        " (letters, digits, underscores; at most 200)"
    )


def _choice(
    settings: Mapping[str, Any], origin: Path, key: str, choices: tuple[str, ...], what: str
) -> str:
    """A setting that takes one of ``choices`` (the first is the default)."""
    value = str(settings.get(key, choices[0])).lower()
    if value not in choices:
        raise SpecError(
            f"{origin}: {key} is {value!r}; expected one of {', '.join(choices)} ({what})"
        )
    return value


def _flag(settings: Mapping[str, Any], origin: Path, name: str) -> bool:
    """A true/false setting (false when absent)."""
    value = settings.get(name, False)
    if not isinstance(value, bool):
        raise SpecError(f"{origin}: {name} is {value!r}; expected true or false")
    return value


def _max_value_bytes(settings: Mapping[str, Any], origin: Path) -> int | None:
    limit = settings.get("max_value_bytes")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise SpecError(f"{origin}: max_value_bytes is {limit!r}; expected bytes, >= 1")
    return limit


def _notifications_for(settings: Mapping[str, Any], origin: Path) -> str | None:
    prefix = settings.get("notifications_for")
    if prefix is not None and (not isinstance(prefix, str) or not prefix):
        raise SpecError(f"{origin}: notifications_for is {prefix!r}; expected a topic prefix")
    return prefix


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _ignore_null_updates(settings: Mapping[str, Any], origin: Path) -> ColumnList | None:
    """A list of columns, or ``{"except": [...]}``, or None."""
    value = settings.get("ignore_null_updates")
    if value is None or _names(value):
        return value
    if isinstance(value, dict) and set(value) == {"except"} and _names(value["except"]):
        return {"except": list(value["except"])}
    raise SpecError(
        f"{origin}: ignore_null_updates is {value!r}; expected a list of columns"
        " or {except: [columns]}"
    )


def _history_columns(settings: Mapping[str, Any], origin: Path) -> dict[str, list[str]] | None:
    """The tracked columns (``{"track": [...]}`` or ``{"except": [...]}``),
    None for ``history: true`` or none."""
    value = settings.get("history", False)
    if isinstance(value, bool):
        return None
    if isinstance(value, dict) and len(value) == 1:
        ((kind, names),) = value.items()
        if kind in ("track", "except") and _names(names) and (names or kind == "except"):
            return {str(kind): list(names)}
    raise SpecError(
        f"{origin}: history is {value!r}; expected true, false,"
        " {track: [columns]} or {except: [columns]}"
    )


def _column_names(settings: Mapping[str, Any], origin: Path) -> dict[str, str]:
    """``column_names`` ({source column: Spark column})."""
    value = settings.get("column_names") or {}
    problem = None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in value.items()
    ):
        problem = "expected a mapping {source column: Spark column}"
    elif len({spark_key(v) for v in value.values()}) != len(value):
        problem = "two source columns map to one Spark column (Spark compares names ignoring case)"
    if problem is not None:
        raise SpecError(f"{origin}: column_names is {value!r}; {problem}")
    return dict(value)


def _description(settings: Mapping[str, Any], origin: Path) -> str | None:
    description = settings.get("description")
    if description is not None and not isinstance(description, str):
        raise SpecError(f"{origin}: description is {description!r}; expected text")
    return description


def _columns(settings: Mapping[str, Any], origin: Path) -> dict[str, dict[str, Any]]:
    """``columns``: per column, ``description`` text and ``data_tests`` a
    list of dbt tests."""
    columns = settings.get("columns")
    if columns is None:
        return {}
    if not isinstance(columns, dict):
        raise SpecError(f"{origin}: columns: expected a mapping of column names")
    for name, entry in columns.items():
        if not isinstance(entry, dict) or not set(entry) <= set(COLUMN_DOC_KEYS):
            raise SpecError(
                f"{origin}: columns: {name!r}: expected a mapping of"
                f" {' and/or '.join(COLUMN_DOC_KEYS)}"
            )
        if not isinstance(entry.get("description", ""), str):
            raise SpecError(f"{origin}: columns: {name!r}: description: expected text")
        if not isinstance(entry.get("data_tests", []), list):
            raise SpecError(f"{origin}: columns: {name!r}: data_tests: expected a list")
    return {str(name): dict(entry) for name, entry in columns.items()}
