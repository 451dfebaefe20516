"""Debezium PostgreSQL connector. Position: source.lsn (then the Kafka offset).
TOASTed values arrive as the placeholder __debezium_unavailable_value and
keep the stored value.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

CONNECTOR = Connector(
    name="postgresql", folder="postgres", title="PostgreSQL", transaction_match="before_colon"
)
