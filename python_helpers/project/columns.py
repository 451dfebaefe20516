"""The columns a topic's models document and test: row columns from the
schema (described on the models analysts read), metadata columns (listed
only where they carry a test: what they mean is written once, in the docs
site's overview), the tests per layer, and the text of a properties file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from python_helpers import connectors
from python_helpers.escaping import dbt_code, jinja_text
from python_helpers.schema.column_names import is_plain_identifier
from python_helpers.schema.extended_json import DocType
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.topics import TopicColumn

# libyaml's emitter when PyYAML has it: `sync` renders every topic's
# properties each run to compare them with the files (about 10 ms a topic
# with the pure-Python emitter: a second per cycle of a 100-topic watch)
_BASE_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BASE_DUMPER):  # type: ignore[misc]
    """Lists of plain words (tests, accepted values) on one line."""


def _list(dumper: Any, data: list[Any]) -> Any:
    flat = all(isinstance(item, str) and is_plain_identifier(item) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat and bool(data))


_Dumper.add_representer(list, _list)


def properties_text(
    models: list[dict[str, Any]], header: str = "", sources: list[dict[str, Any]] | None = None
) -> str:
    """A properties file declaring ``sources`` and ``models``, after
    ``header`` (comment lines)."""
    document: dict[str, Any] = {"version": 2}
    if sources:
        document["sources"] = sources
    document["models"] = models
    return header + properties_yaml(document)


def properties_yaml(document: dict[str, Any]) -> str:
    """A properties document as the generated files write it."""
    text: str = yaml.dump(
        document,
        Dumper=_Dumper,
        sort_keys=False,
        width=88,
        allow_unicode=True,
    )
    return text


def model_meta(spec: TopicSpec, layer: str) -> dict[str, Any]:
    meta = {"cdc_topic": spec.topic, "cdc_layer": layer}
    return {"meta": meta | ({"cdc_kind": spec.kind} if spec.kind != CHANGES else {})}


def key_list(keys: list[str]) -> str:
    """The primary key's columns for a description."""
    return ", ".join(dbt_code(key) for key in keys)


def test_names(names: list[str]) -> list[str]:
    """Column names as dbt renders them (a properties file's column names
    and test arguments are Jinja): escaped to render as themselves."""
    return [jinja_text(name) for name in names]


def row_columns(columns: Iterable[TopicColumn]) -> list[dict[str, Any]]:
    """The described entries of a topic's row columns (the models analysts
    read), from its ``Topic.columns``."""
    entries: list[dict[str, Any]] = []
    for column in columns:
        if column.decoded is None:
            continue
        renamed = (
            ""
            if column.name == column.source
            else " Named apart from another column Spark cannot tell it from (its declaration's"
            " `column_names` says so; choose another name there)."
        )
        entries.append(
            {
                "name": jinja_text(column.name),
                "description": f"Source column {dbt_code(column.source)}:"
                f" {dbt_code(column.decoded.connect_type)} in Kafka Connect,"
                f" {dbt_code(column.decoded.type)} here.{renamed}",
            }
        )
    return entries


STAGING_OPS = ["c", "r", "u", "d", "t"]
DOCUMENT_OPS = ["c", "r", "u", "d"]  # MongoDB stages no truncate
CURRENT_OPS = ["c", "r", "u"]  # deletes and truncates remove rows
STATE_OPS = ["c", "r", "u", "d"]  # deletes stay as delete markers
OP = "_cdc_op"


def checks(
    key: list[str] | None = None,
    not_null: list[str] | None = None,
    accepted: dict[str, list[str]] | None = None,
    **more: Any,
) -> dict[str, Any]:
    """A model's one test, ``cdc_checks`` (tests/dbt/generic/cdc_checks.sql):
    ``key`` (source or metadata column names) never null nor repeated,
    ``not_null`` columns, ``accepted`` values per column, and ``more``
    arguments (the accounting's relations, ``live``)."""
    arguments: dict[str, Any] = {}
    if key:
        arguments["key"] = test_names(key)
    if not_null:
        arguments["not_null"] = test_names(not_null)
    if accepted:
        arguments["accepted_values"] = {jinja_text(c): v for c, v in accepted.items()}
    return {"cdc_checks": {"arguments": arguments | more}}


def op_checks(ops: list[str]) -> dict[str, Any]:
    """The arguments of cdc_checks for `_cdc_op`: never null, one of ``ops``."""
    return {"not_null": [OP], "accepted": {OP: ops}}


def checks_text(tests: list[Any]) -> str:
    """What a model's ``cdc_checks`` test checks, in words for its
    description (the docs site shows a model's description, not its
    model-level tests); '' without one."""
    found = [
        t["cdc_checks"]["arguments"] for t in tests if isinstance(t, dict) and "cdc_checks" in t
    ]
    if not found:
        return ""
    arguments = found[0]
    rules: list[str] = []
    if "landed" in arguments:
        rules.append(
            "every landed record is exactly one row here and one staging or quarantine row"
            " (by landing file and line), every quarantine row has a reason"
        )
    if "staging_ops" in arguments:
        rules.append(f"staging's `_cdc_op` is one of {', '.join(arguments['staging_ops'])}")
    if "key" in arguments:
        names = ", ".join(dbt_code(name) for name in arguments["key"])
        rules.append(f"{names} never null and never repeated")
    accepted = arguments.get("accepted_values", {})
    for name in arguments.get("not_null", []):
        values = f", one of {', '.join(accepted[name])}" if name in accepted else ""
        rules.append(f"{dbt_code(name)} never null{values}")
    for name, values in accepted.items():
        if name not in arguments.get("not_null", []):
            rules.append(f"{dbt_code(name)} one of {', '.join(values)} (or null)")
    return f"Checked by one dbt test (`cdc_checks`): {'; '.join(rules)}."


def document_columns(spec: TopicSpec) -> list[dict[str, Any]]:
    columns = []
    document = spec.document or DocType("doc")
    for column in connectors.lookup(spec.connector).document_columns(document, spec.column_names):
        kind = DocType.from_json(column["doc_type"]).kind
        columns.append(
            {
                "name": jinja_text(column["name"]),
                "description": "Document field"
                f" {dbt_code(column.get('source_name', column['name']))}: {kind} in the"
                f" documents seen by sync, {dbt_code(column['type'])} here (null where a"
                " document lacks it).",
            }
        )
    return columns


TRANSACTION_COLUMNS = {
    "transaction_id": "Transaction id (`id`), as on the change events' `transaction.id`.",
    "status": "`BEGIN` or `END`.",
    "event_count": "END: how many change events the transaction emitted.",
    "data_collections": "END: events per table (`data_collection`, `event_count`).",
    "event_at": "When the boundary happened at the source (`ts_ms`), UTC.",
}
TRANSACTIONS_TABLE_COLUMNS = {
    "transaction_key": "What identifies one transaction: its id, for PostgreSQL the `txId`"
    " before the `:` of `txId:LSN` (the LSN is taken per record, so BEGIN, events and"
    " END differ after it). Join the change events on"
    " `cdc_transaction_key(_cdc_transaction_id, match)`, as this model's SQL calls it.",
    "transaction_id": "The BEGIN's id (the END's while no BEGIN has landed).",
    "status": "`committed` once the END event is seen, else `open`.",
    "begun_at": "BEGIN time at the source, UTC.",
    "ended_at": "END time at the source, UTC.",
    "event_count": "How many change events the transaction emitted (END).",
    "data_collections": "Events per table (END): `data_collection`, `event_count`.",
}
TRANSACTION_PROGRESS_COLUMNS = {
    "transaction_key": "What matches one transaction's records: its id, for PostgreSQL"
    " the `txId` before the `:` (the LSN after it is taken per record).",
    "transaction_id": "The id as the END (else the BEGIN, else an event) wrote it.",
    "status": "`complete` (END landed and, per table of the project it touched, as many"
    " events landed as the END counts), `open` (not yet), or `stalled` (still not"
    " complete `cdc_transaction_wait_minutes` after its first record landed: shown,"
    " and reported by this model's test).",
    "order_offset": "Where the transaction stands in commit order: its BEGIN's Kafka"
    " offset in the transaction topic (the END's when no BEGIN landed).",
    "end_offset": "The END's Kafka offset in the transaction topic (null: not landed).",
    "begun_at": "BEGIN time at the source, UTC.",
    "ended_at": "END time at the source, UTC.",
    "event_count": "How many change events the transaction emitted (END).",
    "expected": "Events the END counts per topic of the project (`data_collection`"
    " prefixed with the connector's topic prefix, lower case); tables outside the"
    " project are not waited for.",
    "landed": "The distinct `total_order` values landed so far, per topic (lower case).",
    "first_batch": "The landing batch of its first record (BEGIN, END or event).",
    "first_landed_at": "When its first record was landed.",
    "last_landed_at": "When its newest record was landed.",
}
NOTIFICATION_COLUMNS = {
    "notification_id": "`id`: for an incremental snapshot, the id of its execute-snapshot signal.",
    "aggregate_type": "What it reports on: `Initial Snapshot`, `Incremental Snapshot`.",
    "notification_type": "`type`, upper case: `STARTED`, `IN_PROGRESS`, `PAUSED`, `RESUMED`,"
    " `TABLE_SCAN_COMPLETED`, `COMPLETED`, `ABORTED`, `SKIPPED`.",
    "connector_name": "`additional_data.connector_name`: the Kafka Connect connector.",
    "data_collections": "The snapshot's tables (`additional_data.data_collections`, or"
    " `data_collection` on a table scan's end), split on commas.",
    "scanned_collection": "TABLE_SCAN_COMPLETED: the table whose scan ended"
    " (`additional_data.scanned_collection`).",
    "scan_status": "TABLE_SCAN_COMPLETED: `SUCCEEDED`, `EMPTY`, `NO_PRIMARY_KEY`, `SKIPPED`,"
    " `SQL_EXCEPTION`, `UNKNOWN_SCHEMA`.",
    "total_rows_scanned": "TABLE_SCAN_COMPLETED: rows the scan read from the table.",
    "additional_data": "Every `additional_data` entry, as text.",
    "notified_at": "When the connector made the notification (`timestamp`), UTC.",
}
SNAPSHOT_SCANS_COLUMNS = {
    "aggregate_type": "`Initial Snapshot` or `Incremental Snapshot`.",
    "scanned_collection": "The table scanned (`schema.table` for PostgreSQL, `database.table`"
    " for MySQL, `database.schema.table` for SQL Server).",
    "scan_status": "`SUCCEEDED` or `EMPTY`: complete; anything else: it failed.",
    "total_rows_scanned": "Rows the scan read from the table.",
    "started_at": "When its snapshot started (the newest STARTED notification listing the"
    " table, at or before the scan's end); null when none landed: then it deletes"
    " nothing.",
    "completed_at": "When the scan ended (TABLE_SCAN_COMPLETED), UTC.",
    "notification_id": "The completion's `id`.",
    "connector_name": "The Kafka Connect connector.",
    "_landing_batch": "The newer of the completion's and its STARTED notification's landing"
    " batches: the scan is known from it on.",
}
SCHEMA_CHANGE_COLUMNS = {
    "database_name": "`databaseName`: the database the change applies to.",
    "schema_name": "`schemaName`.",
    "ddl": "The DDL statement, when the connector gives one (SQL Server: never).",
    "table_changes": "`tableChanges`, typed: change type, table id, primary key, columns.",
}
SCHEMA_HISTORY_COLUMNS = {
    "database_name": "`databaseName`.",
    "schema_name": "`schemaName`.",
    "table_id": "Full table identifier (`tableChanges[].id`).",
    "table_change_index": "Position of the change in the event's `tableChanges`, from 0"
    " (0 also for an event that lists none).",
    "change_type": "`CREATE`, `ALTER` or `DROP`.",
    "primary_key_columns": "Primary-key columns of the table after the change.",
    "columns": "Every column after the change: name, JDBC type, type name, length,"
    " scale, position, optional, ...",
    "default_charset_name": "Default character set of the table.",
    "ddl": "The DDL statement, when the connector gives one.",
}
# a landed record (plain-form lines have no Kafka coordinates) and the
# position of the change in it
# a snapshot scan: the landed record of its TABLE_SCAN_COMPLETED notification
SNAPSHOT_SCANS_KEY = ["_landing_file", "_landing_line"]
SCHEMA_HISTORY_KEY = [
    "_landing_file",
    "_landing_line",
    "table_change_index",
]


def described(columns: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{"name": name, "description": text} for name, text in columns.items()]
