"""The source formats, one module each, behind one lookup.

Each module of this package describes one connector (``source.connector``
in its events) with a ``CONNECTOR``: where its models live, the shape of
what it stages, whether it can keep history. Its envelope flattening and
ordering position are its macros, ``macros/connectors/<name>/``. Adding a
connector adds a module here and a macro folder; no other code changes.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache

# what a connector's change events stage: typed row images merged on a key,
# documents replayed from patches, or a topic's metadata events
ROWS = "rows"
DOCUMENTS = "documents"
METADATA = "metadata"


@dataclass(frozen=True)
class Connector:
    """One source format."""

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
    # judged from the value schema: spec.generate.envelope_kind)
    envelope: str | None = None


@cache
def _registry() -> dict[str, Connector]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        connector = getattr(importlib.import_module(f"{__name__}.{module.name}"), "CONNECTOR", None)
        if isinstance(connector, Connector):
            found[connector.name] = connector
    return found


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
