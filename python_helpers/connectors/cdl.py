"""Huawei MRS CDL (CDL JSON 1.0 and Debezium JSON 2.0). Position: source.lsn
where it has one, else source.ts_ms; the key is the unique block; heartbeats
are counted, not staged.
"""

from __future__ import annotations

from python_helpers.connectors import Connector

CONNECTOR = Connector(name="cdl", folder="cdl", title="Huawei CDL")
