"""Debezium MySQL connector. Position: the binlog file's number (mysql-
bin.000010 -> 10), pos, row; snapshot reads share one binlog position, so
the Kafka offset breaks their ties.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

CONNECTOR = Connector(name="mysql", folder="mysql", title="MySQL", transaction_match="id")
