"""Scaffold the dbt files for a topic that has no models yet.

Per topic three small SQL models are written (staging, quarantine, current
state) and entries are appended to the folder's ``_<folder>__sources.yml`` and
``_<folder>__models.yml``. Existing files are never rewritten: once
scaffolded, the models belong to the analysts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from python_helpers.generate import TopicSpec, row_schema
from python_helpers.naming import connector_folder, identifier, raw_table_name
from python_helpers.spark_types import decode_column

MODELS_DIR = Path("models")

BASE_SQL = """\
{{#- Base of Kafka topic `{topic}` ({connector} connector): -#}}
{{#- every landed record, its value parsed once, appended batch by batch. -#}}
{{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}}
with

landed as (
    select * from {{{{ source('{source}', '{table}') }}}}
),

final as (
    {{{{ cdc_debezium_events('landed', '{topic}') }}}}
)

select * from final
"""

STAGING_SQL = """\
{{#- Staging of Kafka topic `{topic}` ({connector} connector): -#}}
{{#- one row per change event, typed. -#}}
{{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}}
with

events as (
    select * from {{{{ ref('{base}') }}}}
),

final as (
    {{{{ cdc_debezium_changes('events', '{topic}') }}}}
)

select * from final
"""

QUARANTINE_SQL = """\
{{#- Landed records of topic `{topic}` that are not change events. -#}}
{{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}}
with

events as (
    select * from {{{{ ref('{base}') }}}}
),

final as (
    {{{{ cdc_debezium_rejects('events') }}}}
)

select * from final
"""

CURRENT_SQL = """\
{{#- Current state of `{entity}` from topic `{topic}`, -#}}
{{#- one row per {key_list}. -#}}
{{#- Scaffolded by `python -m python_helpers sync`; edit freely. -#}}
{{{{ config(unique_key={unique_key}) }}}}

with

changes as (
    select * from {{{{ ref('{staging}') }}}}
),

final as (
    {{{{ cdc_current_state('changes', {unique_key}) }}}}
)

select * from final
"""


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

    @classmethod
    def for_spec(cls, spec: TopicSpec) -> ModelNames:
        folder = connector_folder(spec.connector)
        entity = identifier(spec.source_table or spec.topic)
        return cls(
            folder=folder,
            entity=entity,
            source=f"{folder}_landing",
            table=raw_table_name(spec.topic),
            base=f"base_{folder}__{entity}",
            staging=f"stg_{folder}__{entity}",
            quarantine=f"stg_{folder}__{entity}__quarantine",
            current=f"{folder}__{entity}",
        )


def scaffolded_topics(project: Path) -> set[str]:
    """Topics that already have a staging model (``meta.cdc_topic``)."""
    topics: set[str] = set()
    for path in sorted((project / MODELS_DIR).rglob("*.yml")):
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for model in loaded.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or model.get("meta") or {}
            if meta.get("cdc_layer") == "staging" and meta.get("cdc_topic"):
                topics.add(meta["cdc_topic"])
    return topics


def _append_entries(path: Path, header: str, entries: list[dict[str, Any]], indent: int) -> None:
    text = yaml.safe_dump(entries, sort_keys=False, width=88, allow_unicode=True)
    block = "".join(" " * indent + line + "\n" for line in text.splitlines())
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header, encoding="utf-8")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(block)


def _meta(spec: TopicSpec, layer: str) -> dict[str, Any]:
    return {"meta": {"cdc_topic": spec.topic, "cdc_layer": layer}}


def _row_columns(spec: TopicSpec, key_tests: bool) -> list[dict[str, Any]]:
    columns: list[dict[str, Any]] = []
    for item in row_schema(spec.value_schema).fields:
        decoded = decode_column(item.name, item.schema)
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


def _column_tests(name: str, ops: list[str] | None) -> list[Any]:
    """Tests of a metadata column; none at all where ``ops`` is None (the
    base model, whose verdict and op columns are null by design)."""
    if ops is None:
        return []
    if name == "_cdc_op":
        return ["not_null", {"accepted_values": {"arguments": {"values": ops}}}]
    if name == "_quarantine_reason":
        return ["not_null"]
    return []


def _metadata_columns(
    names: list[str], ops: list[str] | None = STAGING_OPS
) -> list[dict[str, Any]]:
    columns = []
    for name in names:
        column: dict[str, Any] = {"name": name, "description": f'{{{{ doc("{name}") }}}}'}
        tests = _column_tests(name, ops)
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
    "_kafka_topic",
    "_kafka_partition",
    "_kafka_offset",
    "_kafka_published_at",
    "_kafka_key",
    "_landing_batch",
    "_landed_at",
    "_staged_at",
]
BASE_VERDICT = [
    "_quarantine_reason",
    "_quarantine_detail",
    "_kafka_value",
    "_landing_file",
    "_landing_line",
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


def _write_sql(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def scaffold(project: Path, spec: TopicSpec) -> list[Path]:
    """Write the model files for one topic; returns the files touched."""
    names = ModelNames.for_spec(spec)
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
    }
    base_sql = project / MODELS_DIR / "staging" / "base" / names.folder / f"{names.base}.sql"
    staging_sql = staging_dir / f"{names.staging}.sql"
    quarantine_sql = staging_dir / f"{names.quarantine}.sql"
    _write_sql(base_sql, BASE_SQL.format(**fields))
    _write_sql(staging_sql, STAGING_SQL.format(**fields))
    _write_sql(quarantine_sql, QUARANTINE_SQL.format(**fields))
    touched = [base_sql, staging_sql, quarantine_sql]
    sources_yml = staging_dir / f"_{names.folder}__sources.yml"
    _append_entries(
        sources_yml,
        _sources_header(names.source, spec.connector),
        [
            {
                "name": names.table,
                "description": f"Raw Kafka records of topic `{spec.topic}`, one row"
                " per record, as landed by `python -m python_helpers land`.",
                "meta": {"cdc_topic": spec.topic},
                "columns": _metadata_columns(LANDING_COLUMNS),
            }
        ],
        indent=6,
    )
    staging_yml = staging_dir / f"_{names.folder}__models.yml"
    _append_entries(
        staging_yml,
        "version: 2\n\nmodels:\n",
        [
            {
                "name": names.base,
                "description": f"Every landed record of topic `{spec.topic}`, its value"
                " parsed once: the typed row image, CDC and Kafka metadata, and the"
                " quarantine verdict. Appended batch by batch; the staging and"
                " quarantine models are views over it.",
                "config": _meta(spec, "base"),
                "data_tests": [
                    {
                        "cdc_accounts_for_landed_records": {
                            "arguments": {
                                "landed": f"source('{names.source}', '{names.table}')",
                                "staging": f"ref('{names.staging}')",
                                "quarantine": f"ref('{names.quarantine}')",
                            }
                        }
                    }
                ],
                "columns": _row_columns(spec, key_tests=False)
                + _metadata_columns(STAGING_METADATA + BASE_VERDICT, None),
            },
            {
                "name": names.staging,
                "description": f"One row per change event of topic `{spec.topic}`:"
                " the row image (after for c/r/u, before for d) as typed columns,"
                " with CDC and Kafka metadata.",
                "config": _meta(spec, "staging"),
                "columns": _row_columns(spec, key_tests=False)
                + _metadata_columns(STAGING_METADATA),
            },
            {
                "name": names.quarantine,
                "description": f"Landed records of topic `{spec.topic}` that did not"
                " become change events, each with the reason.",
                "config": _meta(spec, "quarantine"),
                "columns": _metadata_columns(QUARANTINE_COLUMNS),
            },
        ],
        indent=2,
    )
    touched += [sources_yml, staging_yml]
    if spec.primary_key:
        current_sql = current_dir / f"{names.current}.sql"
        key_list = ", ".join(spec.primary_key)
        unique_key = repr(list(spec.primary_key))
        _write_sql(
            current_sql,
            CURRENT_SQL.format(**fields, key_list=key_list, unique_key=unique_key),
        )
        current_yml = current_dir / f"_{names.folder}__models.yml"
        entry: dict[str, Any] = {
            "name": names.current,
            "description": f"Current state of `{names.entity}` (topic `{spec.topic}`):"
            f" one row per {key_list}, creates, updates and deletes applied in"
            " source order.",
            "config": _meta(spec, "current"),
            "columns": _row_columns(spec, key_tests=True)
            + _metadata_columns(STAGING_METADATA, CURRENT_OPS),
        }
        if len(spec.primary_key) > 1:
            entry["data_tests"] = [
                {"cdc_unique_combination": {"arguments": {"columns": list(spec.primary_key)}}}
            ]
        _append_entries(current_yml, "version: 2\n\nmodels:\n", [entry], indent=2)
        touched += [current_sql, current_yml]
    return touched


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


def _sources_header(source: str, connector: str) -> str:
    return f"""\
version: 2

sources:
  - name: {source}
    description: >
      Raw Kafka topics written by the Debezium {connector} connector, one
      table per topic, landed by `python -m python_helpers land`.
    schema: "{{{{ var('cdc_landing_schema', 'cdc_landing') }}}}"
    loader: python_helpers land
    loaded_at_field: timestamp_micros(landing_batch)
    tables:
"""
