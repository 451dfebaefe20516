"""The source formats, one module each, behind one lookup.

Each module of this package describes one connector (``source.connector``
in its events) with a ``CONNECTOR``: a ``Connector`` — or an instance of
its own subclass — whose fields and methods are everything the rest of the
project asks about a connector: where its models live, the shape of what it
stages, how its records are recognised when they name no connector, its
envelope layout and how that reads as Debezium's, its ``source`` fields'
types and descriptions, its key, and (for a connector that stages
documents) its documents' columns. Its envelope flattening and ordering
position are its macros, ``macros/connectors/<name>/``. Code outside this
package asks the connector; it never names one (``tests/unit/
test_package_layers.py`` checks that with the names of this registry), so
adding a connector adds a module here and a macro folder
(docs/contributing.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from python_helpers.schema.connect_schema import ConnectSchema
from python_helpers.schema.envelope import envelope_for_parsing, source_struct_types
from python_helpers.schema.extended_json import DocType

# what a connector's change events stage: typed row images merged on a key,
# documents replayed from patches, or a topic's metadata events
ROWS = "rows"
DOCUMENTS = "documents"
METADATA = "metadata"
# the envelope layout of Debezium's relational connectors (the macros'
# `cdc_normalize__<envelope>`); a connector with another names its own
DEBEZIUM_ENVELOPE = "debezium"
# the fields of its value that hold the row after and before the change
ROW_IMAGES = ("after", "before")


@dataclass(frozen=True)
class Connector:
    """One source format. The methods answer for Debezium's relational
    envelope; a connector whose events differ overrides them."""

    name: str  # source.connector in its events
    folder: str  # its models' folder and prefix (models/staging/<folder>/...)
    title: str  # as people write it
    shape: str = ROWS
    # SCD type 2 history models (row images merged on a key)
    history: bool = True
    # how one transaction's records are matched when it emits transaction
    # metadata (BEGIN/END on `<prefix>.transaction`, a `transaction` block
    # on each event): "id" (the id as written) or "before_colon" (the part
    # before the first ':', PostgreSQL's `txId:LSN` whose LSN is taken per
    # record); None: no transaction metadata
    transaction_match: str | None = None
    # the macro its base model parses the landed values with
    events_macro: str = "cdc_debezium_events"
    # the envelope layout its events have, when the connector fixes it (else
    # judged from the value schema: ``envelope_of``)
    envelope: str | None = None
    # a delete may come as a tombstone alone (its key from the Kafka key,
    # else from the declared primary key's columns)
    tombstone_deletes: bool = False
    # when its records cannot be recognised, what a topic of them is, for
    # the error that asks to declare the connector ("" when they always can)
    undetectable: str = ""
    # the text of what its events' `source` fields mean, by snake_case name
    source_docs: Mapping[str, str] = field(default_factory=dict, compare=False)

    def recognises(self, payload: dict[str, Any]) -> bool:
        """Whether a value's payload is this connector's, whatever its
        ``source`` block says (a layout only it writes); most connectors
        are known by ``source.connector`` alone."""
        return False

    def value_block(self, block: dict[str, Any]) -> dict[str, Any]:
        """A value schema block of its events as the Debezium envelope's."""
        return block

    def value_schema(self, schema: ConnectSchema) -> ConnectSchema:
        """A value schema given for its topic (a declaration's, a schema
        file's) as the Debezium envelope's."""
        return schema

    def envelope_of(self, value_schema: ConnectSchema) -> str:
        """The envelope layout of a value schema of its events."""
        return self.envelope or DEBEZIUM_ENVELOPE

    def layouts(self) -> tuple[str, ...]:
        """Every envelope layout ``envelope_of`` can give (the macros'
        ``cdc_normalize__<layout>`` and its siblings)."""
        return (self.envelope or DEBEZIUM_ENVELOPE,)

    def parsed_value(self, value_schema: ConnectSchema) -> ConnectSchema:
        """What ``from_json`` reads a value as."""
        return envelope_for_parsing(value_schema)

    def envelope_fields(self, parsed: ConnectSchema) -> list[str]:
        """The envelope's fields as the macros read them (``parsed``: as
        ``parsed_value`` gives it)."""
        return [f.name for f in parsed.fields]

    def row_images(self, value_schema: ConnectSchema) -> tuple[str, ...]:
        """The value's fields holding the row after and before the change
        (the checks read a value's text there)."""
        return ROW_IMAGES

    def source_types(self, value_schema: ConnectSchema) -> dict[str, str]:
        """The staged Spark type of each ``source`` field."""
        return source_struct_types(value_schema)

    def source_table(self, payload: dict[str, Any]) -> str | None:
        """The source table a payload without a ``source`` block names."""
        return None

    def data_key(self, value_schema: ConnectSchema | None) -> tuple[str, ...]:
        """The primary key its values give when the Kafka key has no schema."""
        return ()

    # -- connectors that stage documents (shape DOCUMENTS) --------------------
    # the document id's column, the change columns its staging has (name ->
    # description), the current-state model's own columns, that model's
    # owned template (project/templates/ or connectors/templates/)
    key_field: str = ""
    staging_columns: Mapping[str, str] = field(default_factory=dict, compare=False)
    current_columns: Mapping[str, str] = field(default_factory=dict, compare=False)
    current_template: str = "current"

    def builtin_value_schema(self, source_fields: list[str]) -> ConnectSchema:
        """The value schema its events are read with (documents are data:
        their envelope is fixed), the ``source`` block with these fields."""
        raise NotImplementedError(f"{self.name} stages no documents")

    def observe(self, document: DocType | None, payload: dict[str, Any]) -> DocType:
        """The documents' type merged with what one event says of it."""
        raise NotImplementedError(f"{self.name} stages no documents")

    def document_spec(self, document: DocType, names: dict[str, str]) -> dict[str, Any]:
        """The spec entries of its documents: key, change columns, typed
        document columns and parse types (``names``: fields renamed for
        Spark)."""
        raise NotImplementedError(f"{self.name} stages no documents")

    def document_columns(self, document: DocType, names: dict[str, str]) -> list[dict[str, Any]]:
        """The typed columns of the current-state model, one per top-level
        field but the key (``names``: fields renamed for Spark)."""
        raise NotImplementedError(f"{self.name} stages no documents")


@cache
def _registry() -> dict[str, Connector]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        connector = getattr(importlib.import_module(f"{__name__}.{module.name}"), "CONNECTOR", None)
        if isinstance(connector, Connector):
            found[connector.name] = connector
    return found


def registered() -> list[Connector]:
    """Every connector, by name."""
    return [connector for _, connector in sorted(_registry().items())]


def unsupported(name: str) -> str | None:
    """Why a connector cannot be modelled, or None."""
    if name in _registry():
        return None
    return f"unsupported connector {name!r} (supported: {', '.join(sorted(_registry()))})"


def lookup(name: str) -> Connector:
    """The connector named ``name``; ValueError when there is none."""
    problem = unsupported(name)
    if problem is not None:
        raise ValueError(problem)
    return _registry()[name]


def shape_of(name: str) -> str | None:
    """What the connector named ``name`` stages (ROWS, DOCUMENTS or
    METADATA), or None for a connector that is not supported."""
    found = _registry().get(name)
    return found.shape if found is not None else None


def recognising(payload: dict[str, Any]) -> Connector | None:
    """The connector whose layout a value's payload has, when one
    recognises it (``Connector.recognises``)."""
    return next((c for c in registered() if c.recognises(payload)), None)


def metadata_connector() -> Connector:
    """The connector whose folder holds the metadata topics (transaction
    boundaries, notifications: their events name no connector)."""
    return next(c for c in registered() if c.shape == METADATA)


def source_doc(field_name: str) -> str | None:
    """What a ``source`` field (snake_case) means: the first connector, by
    name, that documents it (a field several write means the same)."""
    return next(
        (c.source_docs[field_name] for c in registered() if field_name in c.source_docs), None
    )


def undeclared_help() -> str:
    """What a topic whose events name no connector must declare."""
    hints = [
        f"{c.undetectable} declares `connector: {c.name}`" for c in registered() if c.undetectable
    ]
    return "; ".join(hints)
