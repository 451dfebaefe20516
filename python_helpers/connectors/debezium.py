"""Debezium's metadata topics (transaction boundaries, schema changes):
no source block names a connector, so they take this one's folder. They
stage events, not row images: no merge, no history. The ``source`` fields
every Debezium connector writes are described here."""

from __future__ import annotations

from python_helpers.connectors import METADATA, Connector

SOURCE_DOCS = {
    "version": "Debezium version that emitted the event.",
    "connector": "Connector type: `postgresql`, `mysql`, `sqlserver`, `mongodb`, ...",
    "name": "Logical name of the source server (the connector's topic prefix).",
    "ts_ms": "When the change was made in the source database (ms since the epoch);"
    " for a snapshot read, when the row was read.",
    "ts_us": "`ts_ms` in microseconds.",
    "ts_ns": "`ts_ms` in nanoseconds.",
    "snapshot": "Whether the event is part of a snapshot: `first`,"
    " `first_in_data_collection`, `true`, `last_in_data_collection`, `last`,"
    " `incremental`, or `false` / null for a streamed change; `vanished` on a"
    " delete marker the merge made for a key a complete snapshot lacked"
    " (`snapshot_deletes`).",
    "db": "Source database.",
    "schema": "Source schema.",
    "table": "Source table.",
}

CONNECTOR = Connector(
    name="debezium",
    folder="debezium",
    title="Debezium metadata",
    shape=METADATA,
    history=False,
    source_docs=SOURCE_DOCS,
)
