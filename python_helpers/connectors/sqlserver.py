"""Debezium SQL Server connector. Position: commit_lsn, change_lsn,
event_serial_no, each LSN as its three hex parts (numbers, not text); a
snapshot read has no change_lsn and sorts before the commit's changes.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

SOURCE_DOCS = {
    "change_lsn": "SQL Server LSN of the change (null for a snapshot read).",
    "commit_lsn": "SQL Server LSN of the commit of the change's transaction.",
    "event_serial_no": "SQL Server order of the event within its change LSN"
    " (an update emits two: before and after).",
}

CONNECTOR = Connector(
    name="sqlserver",
    folder="sqlserver",
    title="SQL Server",
    transaction_match="id",
    source_docs=SOURCE_DOCS,
)
