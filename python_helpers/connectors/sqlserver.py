"""Debezium SQL Server connector. Position: commit_lsn, change_lsn,
event_serial_no, each LSN as its three hex parts (numbers, not text); a
snapshot read has no change_lsn and sorts before the commit's changes.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

CONNECTOR = Connector(
    name="sqlserver", folder="sqlserver", title="SQL Server", transaction_match="id"
)
