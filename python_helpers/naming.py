"""Names derived from topics: raw table names, model names, folders."""

from __future__ import annotations

import re


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
