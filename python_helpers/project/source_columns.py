"""The `_cdc_source_<field>` columns: the event's `source` block, flattened.

Every field of a connector's `source` block becomes a column of the base,
staging and merged models (``cdc_source_column_name`` in
macros/connectors/relational/cdc_source_position.sql names them the same way). This
module names and describes them once per connector: sync writes the doc
block ``cdc_source_columns__<folder>`` of every connector the project has
(``doc_blocks``: the fields of all its topics), and each staging model's
description shows its connector's block (``block_link``) instead of listing
the columns in its properties, so the docs site explains every column and
the text is written once, not once per topic (issue 55).
"""

from __future__ import annotations

import re
from pathlib import Path

from python_helpers.escaping import dbt_code
from python_helpers.spec.generate import TopicSpec, render_spec

DOC_FILE = Path("models", "generated", "docs", "_cdc_source_columns.md")

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")

# What Debezium's connectors (and Huawei CDL) put in `source`, per field.
FIELD_DOCS = {
    "version": "Debezium version that emitted the event.",
    "connector": "Connector type: `postgresql`, `mysql`, `sqlserver`, `mongodb`, ...",
    "name": "Logical name of the source server (the connector's topic prefix).",
    "ts_ms": "When the change was made in the source database (ms since the epoch);"
    " for a snapshot read, when the row was read.",
    "ts_us": "`ts_ms` in microseconds.",
    "ts_ns": "`ts_ms` in nanoseconds.",
    "snapshot": "Whether the event is part of a snapshot: `first`,"
    " `first_in_data_collection`, `true`, `last_in_data_collection`, `last`,"
    " `incremental`, or `false` / null for a streamed change; `vanished` on a"
    " delete marker the merge made for a key a complete snapshot lacked"
    " (`snapshot_deletes`).",
    "db": "Source database.",
    "sequence": "Extra ordering information of the connector, as a JSON text"
    " (PostgreSQL: the last committed and the current LSN).",
    "schema": "Source schema.",
    "table": "Source table.",
    "tx_id": "Source transaction id (PostgreSQL `txId`).",
    "lsn": "PostgreSQL log sequence number of the change.",
    "xmin": "PostgreSQL xmin of the row (null unless the connector tracks it).",
    "change_lsn": "SQL Server LSN of the change (null for a snapshot read).",
    "commit_lsn": "SQL Server LSN of the commit of the change's transaction.",
    "event_serial_no": "SQL Server order of the event within its change LSN"
    " (an update emits two: before and after).",
    "file": "MySQL binlog file the change was read from.",
    "pos": "MySQL binlog position of the change's event.",
    "row": "MySQL row number within the binlog event.",
    "server_id": "MySQL server id of the server that made the change.",
    "gtid": "MySQL GTID of the change's transaction, when GTIDs are on.",
    "thread": "MySQL thread id that made the change.",
    "query": "MySQL statement of the change (when `binlog_rows_query_log_events` is on).",
    "collection": "MongoDB collection.",
    "ord": "MongoDB order of the event within its second (`ts_ms`).",
    "rs": "MongoDB replica set.",
    "h": "MongoDB oplog entry hash (1.x oplog connector).",
    "tord": "MongoDB order within the transaction (1.x oplog connector).",
    "stxnid": "MongoDB transaction id (1.x oplog connector).",
    "lsid": "MongoDB logical session id of the transaction.",
    "txn_number": "MongoDB transaction number within the session.",
    "wall_time": "MongoDB wall-clock time of the change (`wallTime`, ms).",
}


def _snake(field: str) -> str:
    return _CAMEL.sub(r"\1_\2", field).lower()


def column_name(field: str) -> str:
    """The column a `source` field becomes (the macro's rule)."""
    return "_cdc_source_" + _snake(field)


def describe(field: str) -> str:
    known = FIELD_DOCS.get(_snake(field))
    if known is None:
        return f"{dbt_code('source.' + field)} of the event, as the connector sent it."
    return f"{dbt_code('source.' + field)} of the event. {known}"


def fields(spec: TopicSpec) -> list[str]:
    """The topic's `source` fields, in the order its schema gives them."""
    return list(render_spec(spec)["source_fields"])


def block_name(folder: str) -> str:
    """The doc block of a connector's source columns (``folder``: its
    models' folder, as in its landing source ``<folder>_landing``)."""
    return f"cdc_source_columns__{folder}"


def block_link(folder: str) -> str:
    """What a staging model's description ends with to show the block."""
    return f'{{{{ doc("{block_name(folder)}") }}}}'


def _item(field: str) -> str:
    """One column of the block, as a list item (the name on one line: a
    name from the data that holds a line break shows a space there)."""
    name = " ".join(column_name(field).split())
    return f"- **{dbt_code(name)}**: {' '.join(describe(field).split())}"


def doc_blocks(connectors: dict[str, tuple[str, list[str]]]) -> str:
    """The generated file of the doc blocks: for each connector folder,
    ``(title, fields)`` — the `source` fields its topics have, in first-seen
    order."""
    lines = [
        "{#- GENERATED by `python -m python_helpers sync` from the topics' schemas:"
        " do not edit. -#}"
    ]
    for folder, (title, found) in sorted(connectors.items()):
        lines += [
            f"{{% docs {block_name(folder)} %}}",
            f"The `_cdc_source_*` columns of the {title} connector's topics: the fields of"
            " the event's `source` block, one column each (a field one of its topics"
            " lacks is not a column of that topic's models):",
            "",
            *(_item(field) for field in found),
            "{% enddocs %}",
            "",
        ]
    return "\n".join(lines) + "\n"
