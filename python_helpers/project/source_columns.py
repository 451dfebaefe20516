"""The `_cdc_source_<field>` columns: the event's `source` block, flattened.

Every field of a connector's `source` block becomes a column of the base,
staging and merged models (``cdc_source_column_name`` in
macros/connectors/relational/cdc_source_position.sql names them the same way). This
module names and describes them for the staging model's properties (they
differ by connector), so the docs site explains every column.
"""

from __future__ import annotations

import re
from typing import Any

from python_helpers.escaping import dbt_code, jinja_text
from python_helpers.spec.generate import TopicSpec, render_spec

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")

# What Debezium's connectors (and Huawei CDL) put in `source`, per field.
FIELD_DOCS = {
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
    "sequence": "Extra ordering information of the connector, as a JSON text"
    " (PostgreSQL: the last committed and the current LSN).",
    "schema": "Source schema.",
    "table": "Source table.",
    "tx_id": "Source transaction id (PostgreSQL `txId`).",
    "lsn": "PostgreSQL log sequence number of the change.",
    "xmin": "PostgreSQL xmin of the row (null unless the connector tracks it).",
    "change_lsn": "SQL Server LSN of the change (null for a snapshot read).",
    "commit_lsn": "SQL Server LSN of the commit of the change's transaction.",
    "event_serial_no": "SQL Server order of the event within its change LSN"
    " (an update emits two: before and after).",
    "file": "MySQL binlog file the change was read from.",
    "pos": "MySQL binlog position of the change's event.",
    "row": "MySQL row number within the binlog event.",
    "server_id": "MySQL server id of the server that made the change.",
    "gtid": "MySQL GTID of the change's transaction, when GTIDs are on.",
    "thread": "MySQL thread id that made the change.",
    "query": "MySQL statement of the change (when `binlog_rows_query_log_events` is on).",
    "collection": "MongoDB collection.",
    "ord": "MongoDB order of the event within its second (`ts_ms`).",
    "rs": "MongoDB replica set.",
    "h": "MongoDB oplog entry hash (1.x oplog connector).",
    "tord": "MongoDB order within the transaction (1.x oplog connector).",
    "stxnid": "MongoDB transaction id (1.x oplog connector).",
    "lsid": "MongoDB logical session id of the transaction.",
    "txn_number": "MongoDB transaction number within the session.",
    "wall_time": "MongoDB wall-clock time of the change (`wallTime`, ms).",
}


def _snake(field: str) -> str:
    return _CAMEL.sub(r"\1_\2", field).lower()


def column_name(field: str) -> str:
    """The column a `source` field becomes (the macro's rule)."""
    return "_cdc_source_" + _snake(field)


def describe(field: str) -> str:
    known = FIELD_DOCS.get(_snake(field))
    if known is None:
        return f"{dbt_code('source.' + field)} of the event, as the connector sent it."
    return f"{dbt_code('source.' + field)} of the event. {known}"


def source_columns(spec: TopicSpec) -> list[dict[str, Any]]:
    """Properties entries (name, description) of the topic's source columns."""
    fields: list[str] = render_spec(spec)["source_fields"]
    return [{"name": jinja_text(column_name(f)), "description": describe(f)} for f in fields]
