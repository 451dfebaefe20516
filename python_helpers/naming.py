"""Names derived from topics: raw table names, model names, folders."""

from __future__ import annotations

import hashlib
import re

# the longest identifier made from a topic: every file, model and table
# named after it stays under the file systems' 255 bytes (the longest,
# `stg_sqlserver__<entity>__heartbeats.sql`, is 31 more) and the
# metastore's 256 characters
MAX_IDENTIFIER = 200
_DIGEST = 8


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:_DIGEST]


def identifier(text: str) -> str:
    """A lowercase Spark/dbt identifier made from any text: runs of other
    characters than ASCII letters and digits become ``_``; a text with no
    letter or digit (``-_-``, a legal topic name) is ``t_<digest>``; one
    longer than MAX_IDENTIFIER is cut, ``_<digest>`` of the whole text
    after it (two long names that share a beginning stay apart)."""
    cleaned = re.sub(r"[^0-9a-zA-Z]+", "_", text).strip("_").lower()
    if not cleaned:
        return f"t_{_digest(text)}"
    cleaned = cleaned if not cleaned[0].isdigit() else f"t_{cleaned}"
    if len(cleaned) > MAX_IDENTIFIER:
        cleaned = cleaned[: MAX_IDENTIFIER - _DIGEST - 1].rstrip("_") + "_" + _digest(text)
    return cleaned


def entity_name(topic: str) -> str:
    """The entity part of a topic's model names: the whole topic name as an
    identifier (``prod.tpcch.customer`` -> ``prod_tpcch_customer``), so
    topics of different servers, databases or environments never share
    model names. ``model_name`` in the topic's declaration overrides it."""
    return identifier(topic)


def raw_table_name(topic: str) -> str:
    """The raw landing table (and raw folder) of a topic."""
    return identifier(topic)
