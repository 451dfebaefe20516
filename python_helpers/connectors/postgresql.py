"""Debezium PostgreSQL connector. Position: source.lsn (then the Kafka offset).
TOASTed values arrive as the placeholder __debezium_unavailable_value and
keep the stored value.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

SOURCE_DOCS = {
    "sequence": "Extra ordering information of the connector, as a JSON text"
    " (PostgreSQL: the last committed and the current LSN).",
    "tx_id": "Source transaction id (PostgreSQL `txId`).",
    "lsn": "PostgreSQL log sequence number of the change.",
    "xmin": "PostgreSQL xmin of the row (null unless the connector tracks it).",
}

CONNECTOR = Connector(
    name="postgresql",
    folder="postgres",
    title="PostgreSQL",
    transaction_match="before_colon",
    source_docs=SOURCE_DOCS,
)
