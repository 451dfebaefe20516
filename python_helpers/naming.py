"""Names derived from topics: raw table names, model names, folders."""

from __future__ import annotations

import re

# Debezium connector class short names (source.connector) -> staging folder.
CONNECTOR_FOLDERS = {
    "postgresql": "postgres",
    "sqlserver": "sqlserver",
    "mongodb": "mongodb",
    "mysql": "mysql",
    "cdl": "cdl",
    "debezium": "debezium",  # transaction topics: no source block names one
}


def identifier(text: str) -> str:
    """A lowercase Spark/dbt identifier made from any text."""
    cleaned = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not cleaned:
        raise ValueError(f"cannot make an identifier from {text!r}")
    return cleaned if not cleaned[0].isdigit() else f"t_{cleaned}"


def entity_name(topic: str) -> str:
    """The entity part of a topic's model names: the whole topic name as an
    identifier (``prod.tpcch.customer`` -> ``prod_tpcch_customer``), so
    topics of different servers, databases or environments never share
    model names. ``model_name`` in the topic's declaration overrides it."""
    return identifier(topic)


def raw_table_name(topic: str) -> str:
    """The raw landing table (and raw folder) of a topic."""
    return identifier(topic)


def unsupported_connector(connector: str) -> str | None:
    """Why a connector (``source.connector``) cannot be modelled, or None."""
    if connector in CONNECTOR_FOLDERS:
        return None
    supported = ", ".join(sorted(CONNECTOR_FOLDERS))
    return f"unsupported connector {connector!r} (supported: {supported})"


def connector_folder(connector: str) -> str:
    """The staging folder of a connector (``source.connector``)."""
    problem = unsupported_connector(connector)
    if problem is not None:
        raise ValueError(problem)
    return CONNECTOR_FOLDERS[connector]
