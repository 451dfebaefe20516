"""The Spark column each source column becomes.

A source column keeps its name, whatever it holds (it is always quoted:
python_helpers.escaping), unless Spark cannot hold it apart. That is when
its name

- equals another column's name as Spark compares names by default
  (case-insensitively: ``Name`` and ``name``, Java's ``equalsIgnoreCase``)
  or as the metastore does (trailing blanks ignored: ``pad`` and ``pad ``),
- or one of the columns the project adds (``_cdc_*``, ``_kafka_*``,
  ``_landing_*``, ``_quarantine_*``, ``_landed_at``, ``_staged_at``,
  ``_document``, ``is_*`` and ``valid_*`` of the history and current
  views) as Spark compares them,
- or is empty (a MongoDB field may be),
- or starts with ``#``: Spark holds it, but dbt-spark reads a table's
  columns from ``describe`` and takes a row starting with ``#`` for the end
  of the column list (every later column would be lost to dbt).

Such a column is named ``<name>_<n>`` with the smallest ``n`` from 2 that
is free (``src<name>`` first for a name of the project's columns, ``_``
for an empty one, ``_<name>`` for one starting with ``#``). The primary
key's columns are named first and are never renamed (a key that would need
it leaves its topic out, by name).

The rule is deterministic, and a mapping once made is kept: sync writes
it into the topic's declaration (``column_names: {<source name>:
<column>}``) and the spec; later schema versions are mapped around it, and
a person may choose another column there (docs/topics.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PROJECT_PREFIXES = ("_cdc_", "_kafka_", "_landing_", "_quarantine_")
_PROJECT_NAMES = frozenset(
    {
        "_landed_at",
        "_staged_at",
        "_document",
        "_unparsed",
        "is_current",
        "is_deleted",
        "valid_from",
        "valid_to",
        "valid_from_position",
        "valid_to_position",
    }
)


class ColumnNameError(ValueError):
    """Columns that cannot be given Spark names (a key that would need one)."""


def spark_key(name: str) -> str:
    """What Spark compares when it compares names case-insensitively (Java's
    equalsIgnoreCase: character by character, upper then lower case)."""
    return "".join(c.upper().lower() if len(c.upper()) == 1 else c.lower() for c in name)


def catalog_key(name: str) -> str:
    """What the metastore compares when it stores a table's columns: Spark's
    comparison (``spark_key``) without trailing blanks (Derby, and MySQL's
    usual collations, compare strings padded with blanks: ``pad`` and ``pad ``
    are one column there, and the second failed its table's commit)."""
    return spark_key(name).rstrip(" ")


def _is_projects(name: str) -> bool:
    key = spark_key(name)
    return key in _PROJECT_NAMES or key.startswith(_PROJECT_PREFIXES)


def _unheld(name: str) -> bool:
    """A name that cannot stay as it is, whatever the other columns (blank:
    `describe` pads and trims names)."""
    return not name.strip() or name.startswith("#") or _is_projects(name)


def _stem(name: str) -> str:
    if not name.strip() or name.startswith("#"):
        return "_" + name
    return "src" + name if _is_projects(name) else name


def spark_names(
    names: Iterable[str],
    keys: Iterable[str] = (),
    kept: dict[str, str] | None = None,
) -> dict[str, str]:
    """``{source name: Spark column}`` for the names that must be mapped
    (the others keep theirs). ``kept``: mappings made before (a declaration's
    ``column_names``, the stored spec's), honoured first; then the key
    columns; then the others, in order."""
    names = list(dict.fromkeys(names))
    kept = {source: column for source, column in (kept or {}).items() if source in names}
    taken: set[str] = {catalog_key(column) for column in kept.values()}
    mapped: dict[str, str] = dict(kept)
    key_names = [k for k in dict.fromkeys(keys) if k in names and k not in kept]
    for key in key_names:
        if _unheld(key) or catalog_key(key) in taken:
            raise ColumnNameError(
                f"primary key column {key!r} cannot keep its name in Spark (empty, starting"
                " with #, one of the project's columns, or equal to another column but for case"
                " or trailing blanks); key columns are not renamed: choose another primary_key"
                " in the declaration"
            )
        taken.add(catalog_key(key))
    for name in names:
        if name in kept or name in key_names:
            continue
        if not _unheld(name) and catalog_key(name) not in taken:
            taken.add(catalog_key(name))
            continue
        stem = _stem(name)
        candidate, n = stem, 2
        while _unheld(candidate) or catalog_key(candidate) in taken:
            candidate, n = f"{stem}_{n}", n + 1
        taken.add(catalog_key(candidate))
        mapped[name] = candidate
    return {source: column for source, column in mapped.items() if source != column}


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_plain_identifier(name: str) -> bool:
    """ASCII letters, digits and ``_``, not first a digit: a name any text
    may hold unquoted. What a nested field's name must be for the Hive
    metastore, which stores a column's type as text (``struct<a:string>``)
    without quoting its field names (Spark cannot read back such a type
    with a space, a colon or a non-ASCII letter in a name: the table or
    view would break the listing of its whole schema); and what dbt's
    generic column tests take unquoted."""
    return bool(_PLAIN.match(name))


def nested_names(names: Iterable[str]) -> dict[str, str]:
    """``{field: Spark name}`` for the fields of one nested document or
    struct whose names the metastore cannot keep: every character but
    ASCII letters, digits and ``_`` becomes ``_`` (``_`` first before a
    digit or for an empty name), then ``_<n>`` from 2 until it is free
    among the fields before it. Decided in order, each name by the names
    before it only: a field seen later never renames one seen before (a
    plain name that an earlier field's Spark name took is renamed itself)."""
    taken: set[str] = set()
    given: set[str] = set()  # the Spark names given to renamed fields
    mapped = {}
    for name in dict.fromkeys(names):
        if is_plain_identifier(name) and spark_key(name) not in given:
            taken.add(spark_key(name))  # a case-only pair of plain names stays as it is
            continue
        stem = re.sub(r"[^A-Za-z0-9_]", "_", name)
        stem = stem if stem and not stem[0].isdigit() else "_" + stem
        candidate, n = stem, 2
        while spark_key(candidate) in taken:
            candidate, n = f"{stem}_{n}", n + 1
        taken.add(spark_key(candidate))
        given.add(spark_key(candidate))
        mapped[name] = candidate
    return mapped
