"""The declaration settings that name a topic's columns: which columns'
nulls an update ignores (``ignore_null_updates``) and which columns a
history tracks (``history: {track: [...]}`` or ``{except: [...]}``).

Each is a list of columns or ``{except: [...]}`` (every column but
those). ``sync`` checks their shape when it reads a declaration and their
names against the topic's row columns once it knows them, and writes them
into the generated models' configs (``cdc_ignore_null_updates``,
``cdc_history_columns``: macros/merge/).
"""

from __future__ import annotations

from typing import Any

from python_helpers import connectors
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.spec.declarations import Declared
from python_helpers.spec.generate import TopicSpec

IGNORE_NULL_UPDATES = "ignore_null_updates"
HISTORY = "history"


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def ignore_null_updates(config: Declared) -> dict[str, list[str]] | list[str] | None:
    """The declared ``ignore_null_updates`` (a list, or ``{"except": [...]}``),
    or None; a wrong shape stops sync naming the file."""
    value = config.settings.get(IGNORE_NULL_UPDATES)
    if value is None or _names(value):
        return value
    if isinstance(value, dict) and set(value) == {"except"} and _names(value["except"]):
        return {"except": list(value["except"])}
    raise SpecError(
        f"{config.origin}: {IGNORE_NULL_UPDATES} is {value!r}; expected a list of columns"
        " or {except: [columns]}"
    )


def history_columns(config: Declared) -> dict[str, list[str]] | None:
    """The declared history's tracked columns (``{"track": [...]}`` or
    ``{"except": [...]}``), None for ``history: true`` or none; a wrong shape
    stops sync naming the file."""
    value = config.settings.get(HISTORY, False)
    if isinstance(value, bool):
        return None
    if isinstance(value, dict) and len(value) == 1:
        ((kind, names),) = value.items()
        if kind in ("track", "except") and _names(names) and (names or kind == "except"):
            return {str(kind): list(names)}
    raise SpecError(
        f"{config.origin}: {HISTORY} is {value!r}; expected true, false,"
        " {track: [columns]} or {except: [columns]}"
    )


def wants_history(config: Declared) -> bool:
    """``history: true`` or tracked columns: scaffold a history model."""
    return history_columns(config) is not None or config.settings.get(HISTORY) is True


def _listed(setting: dict[str, list[str]] | list[str] | None) -> list[str]:
    if setting is None:
        return []
    if isinstance(setting, list):
        return setting
    return next(iter(setting.values()))


COLUMN_DOC_KEYS = ("description", "data_tests")


def declared_docs(config: Declared) -> None:
    """Check a declaration's ``description`` (text) and ``columns`` (per
    column: ``description`` text, ``data_tests`` a list of dbt tests)."""
    description = config.settings.get("description")
    if description is not None and not isinstance(description, str):
        raise SpecError(f"{config.origin}: description is {description!r}; expected text")
    columns = config.settings.get("columns")
    if columns is None:
        return
    if not isinstance(columns, dict):
        raise SpecError(f"{config.origin}: columns: expected a mapping of column names")
    for name, entry in columns.items():
        if not isinstance(entry, dict) or not set(entry) <= set(COLUMN_DOC_KEYS):
            raise SpecError(
                f"{config.origin}: columns: {name!r}: expected a mapping of"
                f" {' and/or '.join(COLUMN_DOC_KEYS)}"
            )
        if not isinstance(entry.get("description", ""), str):
            raise SpecError(f"{config.origin}: columns: {name!r}: description: expected text")
        if not isinstance(entry.get("data_tests", []), list):
            raise SpecError(f"{config.origin}: columns: {name!r}: data_tests: expected a list")


def check_columns(config: Declared, spec: TopicSpec) -> None:
    """Stop sync, naming the declaration, when one of these settings names
    a column that is not a non-key row column of the topic (a typo would
    otherwise change nothing), or when the topic's connector cannot take
    it."""
    if spec.shape == connectors.ROWS:
        row = [f.name for f in row_schema(spec.value_schema).fields]
        unknown = [str(n) for n in config.settings.get("columns") or {} if n not in row]
        if unknown:
            raise SpecError(
                f"{config.origin}: columns names {', '.join(unknown)}: not a column of"
                f" {spec.topic} (its columns: {', '.join(row)})"
            )
    given = [
        (IGNORE_NULL_UPDATES, _listed(ignore_null_updates(config))),
        (HISTORY, _listed(history_columns(config))),
    ]
    given = [(setting, names) for setting, names in given if names]
    if not given or spec.kind != CHANGES:
        return
    if spec.shape == connectors.DOCUMENTS:  # (a history is warned about)
        if any(setting == IGNORE_NULL_UPDATES for setting, _ in given):
            raise SpecError(
                f"{config.origin}: {IGNORE_NULL_UPDATES}: not for MongoDB topics (a partial"
                " update already keeps every field it does not name; one it sets to null is"
                " null in the source too: docs/ordering-and-merging.md)"
            )
        return
    columns = [f.name for f in row_schema(spec.value_schema).fields]
    allowed = [name for name in columns if name not in spec.primary_key]
    for setting, names in given:
        unknown = [name for name in names if name not in allowed]
        if unknown:
            raise SpecError(
                f"{config.origin}: {setting} names {', '.join(unknown)}: not a non-key column"
                f" of {spec.topic} (its columns: {', '.join(allowed)})"
            )
        tracked = [name for name in allowed if name not in names]
        if setting == HISTORY and "except" in (history_columns(config) or {}) and not tracked:
            raise SpecError(f"{config.origin}: {setting} excepts every column: nothing to track")


def model_configs(settings: dict[str, Any], names: dict[str, str] | None = None) -> dict[str, Any]:
    """The generated models' configs these settings (a topic's declared
    ones, checked, naming source columns) become, absent ones left out;
    ``names``: the topic's renamed columns (source -> Spark), which the
    configs name by their Spark names."""

    def spark(value: Any) -> Any:
        if isinstance(value, list):
            return [(names or {}).get(name, name) for name in value]
        return {kind: spark(listed) for kind, listed in value.items()}

    found: dict[str, Any] = {}
    if settings.get(IGNORE_NULL_UPDATES) is not None:
        found["cdc_ignore_null_updates"] = spark(settings[IGNORE_NULL_UPDATES])
    if isinstance(settings.get(HISTORY), dict):
        found["cdc_history_columns"] = spark(settings[HISTORY])
    return found
