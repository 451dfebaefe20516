"""Scaffold the dbt files for a topic that has no models yet.

Per topic small SQL models are written (base, staging, quarantine, current
state, and heartbeats for Huawei CDL topics) with one properties file per
topic and layer that sync creates and never rewrites
(``_stg_<folder>__<entity>.yml``, ``_<folder>__<entity>.yml``). The raw
table is added to the folder's ``_<folder>__sources.yml`` by a structural
YAML edit (round trip: comments, order and the user's formatting survive).
Existing model files are never rewritten: once scaffolded, the models belong
to the analysts. After writing, ``check_project`` re-reads every properties
file and fails naming the file if the project would not parse.

Model names come from the topic (see ``naming.entity_name``), so two topics
never share a model name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from python_helpers import connectors
from python_helpers.connectors import mongodb
from python_helpers.project import model_templates
from python_helpers.project.naming import entity_name, raw_table_name
from python_helpers.project.project_check import ProjectError, check_project, read_properties
from python_helpers.project.source_columns import add_source_columns
from python_helpers.project.yaml_edit import SourceEdits
from python_helpers.schema.extended_json import DocType
from python_helpers.schema.metadata_topics import CHANGES, SCHEMA_CHANGES, TRANSACTIONS
from python_helpers.schema.spark_types import decode_column
from python_helpers.spec.generate import TopicSpec, envelope_kind, row_schema

MODELS_DIR = Path("models")


@dataclass(frozen=True)
class ModelNames:
    """The dbt names scaffolded for one topic."""

    folder: str
    entity: str
    source: str
    table: str
    base: str
    staging: str
    quarantine: str
    current: str
    state: str
    heartbeats: str

    @classmethod
    def for_spec(cls, spec: TopicSpec, entity: str | None = None) -> ModelNames:
        folder = connectors.lookup(spec.connector).folder
        # a schema-change topic is named after the server alone: say what it is
        suffix = "_schema_changes" if spec.kind == SCHEMA_CHANGES else ""
        entity = entity or entity_name(spec.topic) + suffix
        return cls(
            folder=folder,
            entity=entity,
            source=f"{folder}_landing",
            table=raw_table_name(spec.topic),
            base=f"base_{folder}__{entity}",
            staging=f"stg_{folder}__{entity}",
            quarantine=f"stg_{folder}__{entity}__quarantine",
            current=f"{folder}__{entity}",
            state=f"{folder}__{entity}__state",
            heartbeats=f"stg_{folder}__{entity}__heartbeats",
        )

    def existing(self, layers: dict[str, str]) -> ModelNames:
        """These names with the topic's models as the project has them
        (``layers``: meta.cdc_layer -> model name; scaffolded under an older
        naming, or renamed by hand). The current-state view is named after
        the state table (``<current>__state``): a topic may have more
        current-layer views (e.g. one with soft deletes)."""
        current = layers["state"].removesuffix("__state") if "state" in layers else self.current
        return replace(
            self,
            base=layers.get("base", self.base),
            staging=layers.get("staging", self.staging),
            quarantine=layers.get("quarantine", self.quarantine),
            state=layers.get("state", self.state),
            heartbeats=layers.get("heartbeats", self.heartbeats),
            current=current,
            entity=current.removeprefix(f"{self.folder}__"),
        )


def topic_models(project: Path) -> dict[str, dict[str, str]]:
    """The models of each topic by layer (``meta.cdc_topic``,
    ``meta.cdc_layer``): topic -> layer -> model name."""
    found: dict[str, dict[str, str]] = {}
    for _, loaded in read_properties(project / MODELS_DIR):
        for model in loaded.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or model.get("meta") or {}
            if meta.get("cdc_layer") and meta.get("cdc_topic"):
                found.setdefault(meta["cdc_topic"], {})[meta["cdc_layer"]] = model["name"]
    return found


def scaffolded_topics(project: Path) -> set[str]:
    """Topics that already have a staging model."""
    return {topic for topic, layers in topic_models(project).items() if "staging" in layers}


def _write_properties(path: Path, models: list[dict[str, Any]], spec: TopicSpec) -> None:
    """A properties file sync owns: written once, refused if it exists.
    The source columns of ``spec`` are documented in the models that have them."""
    if path.exists():
        raise FileExistsError(
            f"{path} exists but declares no staging model for this topic: move it"
            " away (or add the topic's models to it by hand), then sync again"
        )
    add_source_columns(models, spec)
    text = yaml.safe_dump(
        {"version": 2, "models": models}, sort_keys=False, width=88, allow_unicode=True
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _meta(spec: TopicSpec, layer: str) -> dict[str, Any]:
    meta = {"cdc_topic": spec.topic, "cdc_layer": layer}
    return {"meta": meta | ({"cdc_kind": spec.kind} if spec.kind != CHANGES else {})}


def _row_columns(spec: TopicSpec, key_tests: bool) -> list[dict[str, Any]]:
    columns: list[dict[str, Any]] = []
    for item in row_schema(spec.value_schema).fields:
        decoded = decode_column(item.name, item.schema, spec.decimal_format)
        column: dict[str, Any] = {
            "name": item.name,
            "description": f"Source column `{item.name}`: {decoded.connect_type}"
            f" in Kafka Connect, `{decoded.type}` here.",
        }
        if key_tests and item.name in spec.primary_key:
            column["data_tests"] = ["not_null"] + (["unique"] if len(spec.primary_key) == 1 else [])
        columns.append(column)
    return columns


STAGING_OPS = ["c", "r", "u", "d", "t"]
CURRENT_OPS = ["c", "r", "u"]  # deletes and truncates remove rows
STATE_OPS = ["c", "r", "u", "d"]  # deletes stay as delete markers
# the current-state view keeps deleted keys (flagged) with soft deletes on
SOFT_DELETES_WHERE = "{{ 'not is_deleted' if var('cdc_soft_deletes', false) else 'true' }}"


def _column_tests(name: str, ops: list[str] | None, where: str | None = None) -> list[Any]:
    """Tests of a metadata column; none at all where ``ops`` is None (the
    base model, whose verdict and op columns are null by design)."""
    if ops is None:
        return []
    if name == "_cdc_op":
        accepted: dict[str, Any] = {"arguments": {"values": ops}}
        if where is not None:
            accepted["config"] = {"where": where}
        return ["not_null", {"accepted_values": accepted}]
    if name == "_quarantine_reason":
        return ["not_null"]
    return []


def _metadata_columns(
    names: list[str], ops: list[str] | None = STAGING_OPS, where: str | None = None
) -> list[dict[str, Any]]:
    columns = []
    for name in names:
        column: dict[str, Any] = {"name": name, "description": f'{{{{ doc("{name}") }}}}'}
        tests = _column_tests(name, ops, where)
        if tests:
            column["data_tests"] = tests
        columns.append(column)
    return columns


STAGING_METADATA = [
    "_cdc_op",
    "_cdc_position",
    "_cdc_is_snapshot",
    "_cdc_source_committed_at",
    "_cdc_processed_at",
    "_cdc_transaction_id",
    "_cdc_transaction_total_order",
    "_cdc_transaction_collection_order",
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_published_at",
    "_kafka_key",
    "_landing_batch",
    "_landed_at",
    "_staged_at",
    "_landing_file",
    "_landing_line",
]
BASE_VERDICT = [
    "_quarantine_reason",
    "_quarantine_detail",
    "_kafka_value",
]
QUARANTINE_COLUMNS = [
    "_quarantine_reason",
    "_quarantine_detail",
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_published_at",
    "_kafka_key",
    "_kafka_value",
    "_landing_file",
    "_landing_line",
    "_landing_batch",
    "_landed_at",
    "_staged_at",
]


MAX_LINE = 100  # .sqlfluff max_line_length
_CALL = re.compile(
    r"^(?P<indent> *)(?P<head>.*)\{\{ (?P<name>\w+)\((?P<args>.*)\) \}\}(?P<tail>.*)$"
)


def fit_lines(text: str) -> str:
    """Lines of a scaffolded model within the line length: a Jinja call
    too long for one line gets one argument per line (long topic names)."""
    out = []
    for line in text.splitlines():
        found = _CALL.match(line)
        if len(line) <= MAX_LINE or not found:
            out.append(line)
            continue
        indent = found["indent"]
        args = [a.strip() for a in found["args"].split(", ")]
        out.append(f"{indent}{found['head']}{{{{ {found['name']}(")
        out += [f"{indent}    {a}{',' if i < len(args) - 1 else ''}" for i, a in enumerate(args)]
        out.append(f"{indent}) }}}}{found['tail']}")
    return "\n".join(out) + "\n"


def _write_sql(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(fit_lines(text), encoding="utf-8")


HEARTBEAT_COLUMNS = [
    "_cdc_heartbeat_identifier",
    "_cdc_source_committed_at",
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_published_at",
    "_landing_batch",
    "_landed_at",
    "_staged_at",
    "_landing_file",
    "_landing_line",
]


def _has_heartbeats(spec: TopicSpec) -> bool:
    return spec.value_schema.field_named("HEARTBEAT_IDENTIFIER") is not None


def _accounts_test(names: ModelNames, heartbeats: bool) -> dict[str, Any]:
    arguments = {
        "landed": f"source('{names.source}', '{names.table}')",
        "staging": f"ref('{names.staging}')",
        "quarantine": f"ref('{names.quarantine}')",
    }
    if heartbeats:
        arguments["heartbeats"] = f"ref('{names.heartbeats}')"
    return {"cdc_accounts_for_landed_records": {"arguments": arguments}}


def _extra_columns(spec: TopicSpec) -> list[str]:
    """The `_cdc_` columns of the envelope's own extra fields (CDL)."""
    names = {f.name for f in spec.value_schema.fields}
    extra = ("message_version", "message_type", "LOB_COLUMNS", "HEARTBEAT_IDENTIFIER")
    return [f"_cdc_{name.lower()}" for name in extra if name in names]


def _staging_models(spec: TopicSpec, names: ModelNames) -> list[dict[str, Any]]:
    heartbeats = _has_heartbeats(spec)
    metadata = STAGING_METADATA + _extra_columns(spec)
    models: list[dict[str, Any]] = [
        {
            "name": names.base,
            "description": f"Every landed record of topic `{spec.topic}`, its value"
            " parsed once: the typed row image, CDC and Kafka metadata, and the"
            " quarantine verdict. Appended batch by batch; the staging and"
            " quarantine models are views over it.",
            "config": _meta(spec, "base"),
            "data_tests": [_accounts_test(names, heartbeats)],
            "columns": _row_columns(spec, key_tests=False)
            + _metadata_columns(metadata + BASE_VERDICT, None),
        },
        {
            "name": names.staging,
            "description": f"One row per change event of topic `{spec.topic}`"
            f" ({envelope_kind(spec.value_schema)} envelope):"
            " the row image (after for c/r/u, before for d) as typed columns,"
            " with CDC and Kafka metadata.",
            "config": _meta(spec, "staging"),
            "columns": _row_columns(spec, key_tests=False) + _metadata_columns(metadata),
        },
        {
            "name": names.quarantine,
            "description": f"Landed records of topic `{spec.topic}` that did not"
            " become change events, each with the reason.",
            "config": _meta(spec, "quarantine"),
            "columns": _metadata_columns(QUARANTINE_COLUMNS),
        },
    ]
    if heartbeats:
        models.append(
            {
                "name": names.heartbeats,
                "description": f"Heartbeats of topic `{spec.topic}` (a HEARTBEAT_IDENTIFIER"
                " and no row image): counted here, never staged as table rows.",
                "config": _meta(spec, "heartbeats"),
                "columns": _metadata_columns(HEARTBEAT_COLUMNS, None),
            }
        )
    return models


def scaffold(
    project: Path, spec: TopicSpec, entity: str | None = None, sources: SourceEdits | None = None
) -> list[Path]:
    """Write the model files for one topic; returns the files touched. Its
    raw table goes into ``sources`` (written by the caller), else at once."""
    if sources is None:
        edits = SourceEdits()
        touched = scaffold(project, spec, entity, edits)
        edits.write()
        return touched
    names = ModelNames.for_spec(spec, entity)
    if spec.kind != CHANGES:
        return _scaffold_metadata(project, spec, names, sources)
    staging_dir = project / MODELS_DIR / "staging" / names.folder
    current_dir = project / MODELS_DIR / "current" / names.folder
    fields = {
        "topic": spec.topic,
        "connector": spec.connector,
        "source": names.source,
        "table": names.table,
        "staging": names.staging,
        "entity": names.entity,
        "base": names.base,
        "events_macro": "cdc_debezium_events",
    }
    if connectors.stages_documents(spec.connector):
        return _scaffold_mongodb(project, spec, names, fields, sources)
    sql_files = {
        project / MODELS_DIR / "staging" / "base" / names.folder / f"{names.base}.sql": "base",
        staging_dir / f"{names.staging}.sql": "staging",
        staging_dir / f"{names.quarantine}.sql": "quarantine",
    }
    if _has_heartbeats(spec):
        sql_files[staging_dir / f"{names.heartbeats}.sql"] = "heartbeats"
    for path, template in sql_files.items():
        _write_sql(path, model_templates.render(template, **fields))
    touched = list(sql_files)
    sources_yml = staging_dir / f"_{names.folder}__sources.yml"
    sources.add(
        sources_yml,
        _source_entry(names.source, spec.connector),
        {
            "name": names.table,
            "description": f"Raw Kafka records of topic `{spec.topic}`, one row"
            " per record, as landed by `python -m python_helpers land`.",
            "meta": {"cdc_topic": spec.topic},
            "columns": _metadata_columns(LANDING_COLUMNS),
        },
    )
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    _write_properties(staging_yml, _staging_models(spec, names), spec)
    touched += [sources_yml, staging_yml]
    if spec.primary_key:
        key_list = ", ".join(spec.primary_key)
        formats = fields | {
            "key_list": key_list,
            "unique_key": repr(list(spec.primary_key)),
            "current": names.current,
            "state": names.state,
        }
        state_sql = current_dir / f"{names.state}.sql"
        current_sql = current_dir / f"{names.current}.sql"
        _write_sql(state_sql, model_templates.render("state", **formats))
        _write_sql(current_sql, model_templates.render("current", **formats))
        current_yml = current_dir / f"_{names.folder}__{names.entity}.yml"
        _write_properties(current_yml, _current_models(spec, names), spec)
        touched += [state_sql, current_sql, current_yml]
    return touched


def _current_models(spec: TopicSpec, names: ModelNames) -> list[dict[str, Any]]:
    """The properties of a topic's `__state` table and current-state view."""
    key_list = ", ".join(spec.primary_key)
    metadata = STAGING_METADATA + _extra_columns(spec)
    current: dict[str, Any] = {
        "name": names.current,
        "description": f"Current state of topic `{spec.topic}`:"
        f" one row per {key_list}, creates, updates and deletes applied in"
        " source order (see cdc_source_position). A view of"
        f" `{names.state}` without its delete markers; with the variable"
        " `cdc_soft_deletes: true` deleted keys stay, flagged `is_deleted`.",
        "config": _meta(spec, "current"),
        "columns": _row_columns(spec, key_tests=True)
        + _metadata_columns(metadata, CURRENT_OPS, where=SOFT_DELETES_WHERE)
        + _metadata_columns(MERGED_METADATA, None),
    }
    state: dict[str, Any] = {
        "name": names.state,
        "description": f"Merged state of topic `{spec.topic}`: one row per"
        f" {key_list} ever seen, the newest change in source order; a deleted"
        " key keeps its delete as a row (`_cdc_op = 'd'`, a delete marker) so"
        " that an older event landing later cannot bring it back. Purge old"
        " markers with `dbt run-operation cdc_purge_delete_markers`.",
        "config": _meta(spec, "state"),
        "columns": _row_columns(spec, key_tests=True)
        + _metadata_columns(metadata, STATE_OPS)
        + _metadata_columns(MERGED_METADATA, None),
    }
    if len(spec.primary_key) > 1:
        for entry in (current, state):
            entry["data_tests"] = [
                {"cdc_unique_combination": {"arguments": {"columns": list(spec.primary_key)}}}
            ]
    return [state, current]


def _document_columns(spec: TopicSpec) -> list[dict[str, Any]]:
    columns = []
    for column in mongodb.document_columns(spec.document or DocType("doc")):
        kind = DocType.from_json(column["doc_type"]).kind
        columns.append(
            {
                "name": column["name"],
                "description": f"Document field `{column['name']}`: {kind} in the"
                f" documents seen by sync, `{column['type']}` here (null where a"
                " document lacks it).",
            }
        )
    return columns


MONGODB_CURRENT_COLUMNS = {
    "_document": "The whole current document, compact extended JSON (fields in"
    " document order; what the typed columns do not show is here).",
    "_cdc_replay_issue": "Null when the document is exact. Otherwise why it may"
    " not be: `missing_base_document` (an update without a full document came"
    " before any create/read of this `_id`) or `unsupported_patch: ...` (an"
    " update the replay cannot apply, quarantined). Cleared by the next full"
    " document.",
}


def _scaffold_mongodb(
    project: Path,
    spec: TopicSpec,
    names: ModelNames,
    fields: dict[str, str],
    sources: SourceEdits,
) -> list[Path]:
    """Models of a MongoDB topic: base, staging and quarantine as for the
    other connectors, and the replayed current state."""
    staging_dir = project / MODELS_DIR / "staging" / names.folder
    current_dir = project / MODELS_DIR / "current" / names.folder
    fields = fields | {"events_macro": "cdc_mongodb_events"}
    sql_files = {
        project / MODELS_DIR / "staging" / "base" / names.folder / f"{names.base}.sql": "base",
        staging_dir / f"{names.staging}.sql": "staging",
        staging_dir / f"{names.quarantine}.sql": "quarantine",
        current_dir / f"{names.current}.sql": "mongodb_current",
    }
    for path, template in sql_files.items():
        _write_sql(path, model_templates.render(template, **fields))
    sources_yml = staging_dir / f"_{names.folder}__sources.yml"
    sources.add(
        sources_yml,
        _source_entry(names.source, spec.connector),
        {
            "name": names.table,
            "description": f"Raw Kafka records of MongoDB topic `{spec.topic}`, one row"
            " per record, as landed by `python -m python_helpers land`.",
            "meta": {"cdc_topic": spec.topic},
            "columns": _metadata_columns(LANDING_COLUMNS),
        },
    )
    change_columns = _described(mongodb.STAGING_COLUMNS)
    metadata = STAGING_METADATA
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    _write_properties(
        staging_yml,
        [
            {
                "name": names.base,
                "description": f"Every landed record of MongoDB topic `{spec.topic}`, its"
                " value parsed once: document id, the change as written (documents,"
                " patch, update description), CDC and Kafka metadata, and the"
                " quarantine verdict. Appended batch by batch.",
                "config": _meta(spec, "base"),
                "data_tests": [_accounts_test(names, False)],
                "columns": change_columns + _metadata_columns(metadata + BASE_VERDICT, None),
            },
            {
                "name": names.staging,
                "description": f"One row per change event of MongoDB topic `{spec.topic}`"
                " (c, r, u, d): document id, the change as the connector wrote it,"
                " CDC and Kafka metadata.",
                "config": _meta(spec, "staging"),
                "columns": change_columns + _metadata_columns(metadata, ["c", "r", "u", "d"]),
            },
            {
                "name": names.quarantine,
                "description": f"Landed records of topic `{spec.topic}` that did not"
                " become change events, each with the reason.",
                "config": _meta(spec, "quarantine"),
                "columns": _metadata_columns(QUARANTINE_COLUMNS),
            },
        ],
        spec,
    )
    id_column: dict[str, Any] = {
        "name": mongodb.KEY_FIELD,
        "description": mongodb.STAGING_COLUMNS[mongodb.KEY_FIELD],
        "data_tests": ["not_null", "unique"],
    }
    current_yml = current_dir / f"_{names.folder}__{names.entity}.yml"
    _write_properties(
        current_yml,
        [
            {
                "name": names.current,
                "description": f"Current state of MongoDB topic `{spec.topic}`: one row"
                " per live document, its change events replayed in source order"
                " (ts_ms, ord, Kafka offset) on top of the stored state: full"
                " documents replace, 1.x patches and 2.x update descriptions are"
                " applied to the previous document, deletes remove it.",
                "config": _meta(spec, "current"),
                "columns": [id_column]
                + _document_columns(spec)
                + _described(MONGODB_CURRENT_COLUMNS)
                + _metadata_columns(metadata, CURRENT_OPS),
            }
        ],
        spec,
    )
    return [*sql_files, sources_yml, staging_yml, current_yml]


TRANSACTION_COLUMNS = {
    "transaction_id": "Transaction id (`id`), as on the change events' `transaction.id`.",
    "status": "`BEGIN` or `END`.",
    "event_count": "END: how many change events the transaction emitted.",
    "data_collections": "END: events per table (`data_collection`, `event_count`).",
    "event_at": "When the boundary happened at the source (`ts_ms`), UTC.",
}
TRANSACTIONS_TABLE_COLUMNS = {
    "transaction_id": "Transaction id: join to the change events' `_cdc_transaction_id`.",
    "status": "`committed` once the END event is seen, else `open`.",
    "begun_at": "BEGIN time at the source, UTC.",
    "ended_at": "END time at the source, UTC.",
    "event_count": "How many change events the transaction emitted (END).",
    "data_collections": "Events per table (END): `data_collection`, `event_count`.",
    "_landing_batch": '{{ doc("_landing_batch") }}',
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
    "_cdc_position": '{{ doc("_cdc_position") }}',
    "_cdc_source_committed_at": '{{ doc("_cdc_source_committed_at") }}',
    "_kafka_topic": '{{ doc("_kafka_topic") }}',
    "_kafka_partition": '{{ doc("_kafka_partition") }}',
    "_kafka_offset": '{{ doc("_kafka_offset") }}',
    "_landing_batch": '{{ doc("_landing_batch") }}',
    "_landing_file": '{{ doc("_landing_file") }}',
    "_landing_line": '{{ doc("_landing_line") }}',
}
# a landed record (plain-form lines have no Kafka coordinates) and the
# position of the change in it
SCHEMA_HISTORY_KEY = [
    "_landing_file",
    "_landing_line",
    "table_change_index",
]
# Columns cdc_current_state adds to the merged (`__state`) tables.
MERGED_METADATA = ["_cdc_value_positions"]
KAFKA_COLUMNS = [
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_published_at",
    "_kafka_key",
    "_landing_batch",
    "_landed_at",
    "_staged_at",
    "_landing_file",
    "_landing_line",
]


def _described(columns: dict[str, str]) -> list[dict[str, Any]]:
    return [{"name": name, "description": text} for name, text in columns.items()]


def _scaffold_metadata(
    project: Path, spec: TopicSpec, names: ModelNames, sources: SourceEdits
) -> list[Path]:
    """Models of a transaction-metadata or schema-change topic: base,
    staging (events), quarantine, and the transactions table or the schema
    history."""
    staging_dir = project / MODELS_DIR / "staging" / names.folder
    current_dir = project / MODELS_DIR / "current" / names.folder
    transactions = spec.kind == TRANSACTIONS
    kind = "transaction metadata" if transactions else "schema-change"
    fields = {
        "topic": spec.topic,
        "kind": kind,
        "source": names.source,
        "table": names.table,
        "staging": names.staging,
        "base": names.base,
    }
    sql_files = {
        project / MODELS_DIR / "staging" / "base" / names.folder / f"{names.base}.sql": (
            "metadata_base"
        ),
        staging_dir / f"{names.staging}.sql": "metadata_staging",
        staging_dir / f"{names.quarantine}.sql": "quarantine",
        current_dir / f"{names.current}.sql": (
            "transactions" if transactions else "schema_history"
        ),
    }
    for path, template in sql_files.items():
        _write_sql(path, model_templates.render(template, **fields))
    sources_yml = staging_dir / f"_{names.folder}__sources.yml"
    sources.add(
        sources_yml,
        _source_entry(names.source, spec.connector),
        {
            "name": names.table,
            "description": f"Raw Kafka records of the {kind} topic `{spec.topic}`.",
            "meta": {"cdc_topic": spec.topic},
            "columns": _metadata_columns(LANDING_COLUMNS),
        },
    )
    event_columns = _described(TRANSACTION_COLUMNS if transactions else SCHEMA_CHANGE_COLUMNS)
    if not transactions:
        event_columns += _metadata_columns(
            ["_cdc_position", "_cdc_source_committed_at", "_cdc_processed_at"], None
        )
    event_columns += _metadata_columns(KAFKA_COLUMNS, None)
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    _write_properties(
        staging_yml,
        [
            {
                "name": names.base,
                "description": f"Every landed record of the {kind} topic `{spec.topic}`,"
                " its value parsed once, with the quarantine verdict.",
                "config": _meta(spec, "base"),
                "data_tests": [_accounts_test(names, False)],
                "columns": event_columns + _metadata_columns(BASE_VERDICT, None),
            },
            {
                "name": names.staging,
                "description": f"One row per event of the {kind} topic `{spec.topic}`.",
                "config": _meta(spec, "staging"),
                "columns": event_columns,
            },
            {
                "name": names.quarantine,
                "description": f"Landed records of topic `{spec.topic}` that are not"
                f" {kind} events, each with the reason.",
                "config": _meta(spec, "quarantine"),
                "columns": _metadata_columns(QUARANTINE_COLUMNS),
            },
        ],
        spec,
    )
    current_yml = current_dir / f"_{names.folder}__{names.entity}.yml"
    if transactions:
        current: dict[str, Any] = {
            "name": names.current,
            "description": f"One row per transaction of topic `{spec.topic}`: join"
            " `transaction_id` to the change events' `_cdc_transaction_id`.",
            "config": _meta(spec, "current"),
            "columns": _described(TRANSACTIONS_TABLE_COLUMNS),
        }
        current["columns"][0]["data_tests"] = ["not_null", "unique"]
    else:
        current = {
            "name": names.current,
            "description": f"Schema history from topic `{spec.topic}`: one row per"
            " table change, in source order (`_cdc_position`).",
            "config": _meta(spec, "current"),
            "columns": _described(SCHEMA_HISTORY_COLUMNS),
            "data_tests": [
                {"cdc_unique_combination": {"arguments": {"columns": SCHEMA_HISTORY_KEY}}}
            ],
        }
    _write_properties(current_yml, [current], spec)
    return [*sql_files, sources_yml, staging_yml, current_yml]


def scaffold_all(
    project: Path, specs: list[TopicSpec], entities: dict[str, str] | None = None
) -> list[Path]:
    """Scaffold the topics that have no models yet, then check that the
    project still parses (``ProjectError`` names the file if not)."""
    existing = scaffolded_topics(project)
    new = [spec for spec in specs if spec.topic not in existing]
    taken = {path.stem: path for path in sorted((project / MODELS_DIR).rglob("*.sql"))}
    for spec in new:
        names = ModelNames.for_spec(spec, (entities or {}).get(spec.topic))
        for name in (names.base, names.staging, names.quarantine, names.current, names.state):
            if name in taken:
                raise ProjectError(
                    f"topic {spec.topic!r} would be scaffolded as model {name!r}, which"
                    f" {taken[name]} already is: set `model_name: <name>` in the topic's"
                    " declaration topics/<topic>.yml"
                )
            taken[name] = Path(f"<{spec.topic}>")
    touched: dict[Path, None] = {}  # in order, once each
    sources = SourceEdits()
    for spec in new:
        if spec.topic not in existing:
            for path in scaffold(project, spec, (entities or {}).get(spec.topic), sources):
                touched[path] = None
    sources.write()
    check_project(project / MODELS_DIR)
    return list(touched)


LANDING_COLUMNS = [
    "kafka_topic",
    "kafka_partition",
    "kafka_offset",
    "kafka_timestamp_ms",
    "kafka_key",
    "kafka_value",
    "landing_file",
    "landing_line",
    "landing_error",
    "landing_batch",
]


# A raw record's loaded-at time for `dbt source freshness` (thresholds in
# dbt_project.yml): its Kafka timestamp, else when it was landed.
LOADED_AT = "coalesce(timestamp_millis(kafka_timestamp_ms), timestamp_micros(landing_batch))"


def _source_entry(source: str, connector: str) -> dict[str, Any]:
    return {
        "name": source,
        "description": f"Raw Kafka topics written by the {connector} connector, one"
        " table per topic, landed by `python -m python_helpers land`.",
        "schema": "{{ var('cdc_landing_schema', 'cdc_landing') }}",
        "loader": "python_helpers land",
        "config": {"loaded_at_field": LOADED_AT},
        "tables": [],
    }
