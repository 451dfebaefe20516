"""The declaration settings that name a topic's columns: which columns'
nulls an update ignores (``ignore_null_updates``) and which columns a
history tracks (``history: {track: [...]}`` or ``{except: [...]}``).

Each is a list of columns or ``{except: [...]}`` (every column but
those). Their shape is checked with the declaration (settings.py); ``sync``
checks their names against the topic's row columns once it knows them, and writes them
into the generated models' configs (``cdc_ignore_null_updates``,
``cdc_history_columns``: macros/merge/). And the Spark name of each row
column (``named``): the declaration's ``column_names`` first, then the
stored spec's, then the rule (schema/column_names.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from python_helpers import connectors
from python_helpers.schema.column_names import ColumnNameError, spark_names
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.settings import Declaration

IGNORE_NULL_UPDATES = "ignore_null_updates"
HISTORY = "history"


def _listed(setting: dict[str, list[str]] | list[str] | None) -> list[str]:
    if setting is None:
        return []
    if isinstance(setting, list):
        return setting
    return next(iter(setting.values()))


def check_columns(config: Declaration, spec: TopicSpec) -> None:
    """Stop sync, naming the declaration, when one of these settings names
    a column that is not a non-key row column of the topic (a typo would
    otherwise change nothing), or when the topic's connector cannot take
    it."""
    if spec.shape == connectors.ROWS:
        row = [f.name for f in row_schema(spec.value_schema).fields]
        unknown = [name for name in config.columns if name not in row]
        if unknown:
            raise SpecError(
                f"{config.origin}: columns names {', '.join(unknown)}: not a column of"
                f" {spec.topic} (its columns: {', '.join(row)})"
            )
    given = [
        (IGNORE_NULL_UPDATES, _listed(config.ignore_null_updates)),
        (HISTORY, _listed(config.history_columns)),
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
        if setting == HISTORY and "except" in (config.history_columns or {}) and not tracked:
            raise SpecError(f"{config.origin}: {setting} excepts every column: nothing to track")


def model_configs(declared: Declaration, names: dict[str, str] | None = None) -> dict[str, Any]:
    """The generated models' configs a topic's declared column settings
    (naming source columns) become, absent ones left out;
    ``names``: the topic's renamed columns (source -> Spark), which the
    configs name by their Spark names."""

    def spark(value: Any) -> Any:
        if isinstance(value, list):
            return [(names or {}).get(name, name) for name in value]
        return {kind: spark(listed) for kind, listed in value.items()}

    found: dict[str, Any] = {}
    if declared.ignore_null_updates is not None:
        found["cdc_ignore_null_updates"] = spark(declared.ignore_null_updates)
    if declared.history_columns is not None:
        found["cdc_history_columns"] = spark(declared.history_columns)
    return found


def named(spec: TopicSpec, config: Declaration, known: TopicSpec | None) -> TopicSpec:
    """``spec`` with its row columns' Spark names (column_names): the
    declaration's mapping first, then the stored spec's, then the rule."""
    if spec.kind != CHANGES:
        return spec
    kept = (known.column_names if known is not None else {}) | config.column_names
    if spec.shape == connectors.DOCUMENTS:
        fields = spec.document.fields if spec.document is not None else ()
        key = connectors.lookup(spec.connector).key_field
        names = [name for name, _ in fields if name != key]
        keys: tuple[str, ...] = ()
    else:
        names = [f.name for f in row_schema(spec.value_schema).fields]
        keys = spec.primary_key
    try:
        mapping = spark_names(names, keys, kept)
    except ColumnNameError as error:
        raise SpecError(str(error)) from None
    return spec if mapping == spec.column_names else replace(spec, column_names=mapping)
