"""Debezium MySQL connector. Position: the binlog file's number (mysql-
bin.000010 -> 10), pos, row; snapshot reads share one binlog position, so
the Kafka offset breaks their ties.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

SOURCE_DOCS = {
    "file": "MySQL binlog file the change was read from.",
    "pos": "MySQL binlog position of the change's event.",
    "row": "MySQL row number within the binlog event.",
    "server_id": "MySQL server id of the server that made the change.",
    "gtid": "MySQL GTID of the change's transaction, when GTIDs are on.",
    "thread": "MySQL thread id that made the change.",
    "query": "MySQL statement of the change (when `binlog_rows_query_log_events` is on).",
}

CONNECTOR = Connector(
    name="mysql", folder="mysql", title="MySQL", transaction_match="id", source_docs=SOURCE_DOCS
)
