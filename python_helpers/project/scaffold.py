"""Scaffold the dbt files for a topic that has no models yet.

Per topic the analysts' SQL models are written from the templates (staging
and current state) with one properties file per topic and layer
(``_stg_<folder>__<entity>.yml``, ``_<folder>__<entity>.yml``) that also
declares the generated models (base, quarantine, state, history and
heartbeats for Huawei CDL topics), which ``generated_models`` writes. The
raw table is added to the folder's ``_<folder>__sources.yml`` by a
structural YAML edit (round trip: comments, order and the user's formatting
survive). The staging and current-state
models and the properties files belong to the analysts from then on; the
plumbing (base, quarantine, state, history, heartbeats) is rewritten by
every sync (``generated_models``). After writing, ``check_project`` re-reads
every properties file and fails naming the file if the project would not
parse.

Model names come from the topic (see ``naming.entity_name``), so two topics
never share a model name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.connectors import mongodb
from python_helpers.project import model_templates
from python_helpers.project.columns import (
    BASE_VERDICT,
    CURRENT_OPS,
    HEARTBEAT_COLUMNS,
    KAFKA_COLUMNS,
    LANDING_COLUMNS,
    MERGED_METADATA,
    MONGODB_CURRENT_COLUMNS,
    QUARANTINE_COLUMNS,
    SCHEMA_CHANGE_COLUMNS,
    SCHEMA_HISTORY_COLUMNS,
    SCHEMA_HISTORY_KEY,
    SOFT_DELETES_WHERE,
    STAGING_METADATA,
    STATE_OPS,
    TRANSACTION_COLUMNS,
    TRANSACTIONS_TABLE_COLUMNS,
    described,
    document_columns,
    extra_columns,
    metadata_columns,
    model_meta,
    row_columns,
    write_properties,
)
from python_helpers.project.model_names import MODELS_DIR, ModelNames, scaffolded_topics
from python_helpers.project.model_templates import write_sql
from python_helpers.project.project_check import ProjectError, check_project
from python_helpers.project.yaml_edit import SourceEdits
from python_helpers.schema.metadata_topics import CHANGES, TRANSACTIONS
from python_helpers.spec.generate import TopicSpec, envelope_kind


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


def _staging_models(spec: TopicSpec, names: ModelNames) -> list[dict[str, Any]]:
    heartbeats = _has_heartbeats(spec)
    metadata = STAGING_METADATA + extra_columns(spec)
    models: list[dict[str, Any]] = [
        {
            "name": names.base,
            "description": f"Every landed record of topic `{spec.topic}`, its value"
            " parsed once: the typed row image, CDC and Kafka metadata, and the"
            " quarantine verdict. Appended batch by batch; the staging and"
            " quarantine models are views over it.",
            "config": model_meta(spec, "base"),
            "data_tests": [_accounts_test(names, heartbeats)],
            "columns": row_columns(spec, key_tests=False)
            + metadata_columns(metadata + BASE_VERDICT, None),
        },
        {
            "name": names.staging,
            "description": f"One row per change event of topic `{spec.topic}`"
            f" ({envelope_kind(spec.value_schema)} envelope):"
            " the row image (after for c/r/u, before for d) as typed columns,"
            " with CDC and Kafka metadata.",
            "config": model_meta(spec, "staging"),
            "columns": row_columns(spec, key_tests=False) + metadata_columns(metadata),
        },
        {
            "name": names.quarantine,
            "description": f"Landed records of topic `{spec.topic}` that did not"
            " become change events, each with the reason.",
            "config": model_meta(spec, "quarantine"),
            "columns": metadata_columns(QUARANTINE_COLUMNS),
        },
    ]
    if heartbeats:
        models.append(
            {
                "name": names.heartbeats,
                "description": f"Heartbeats of topic `{spec.topic}` (a HEARTBEAT_IDENTIFIER"
                " and no row image): counted here, never staged as table rows.",
                "config": model_meta(spec, "heartbeats"),
                "columns": metadata_columns(HEARTBEAT_COLUMNS, None),
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
    fields = {"topic": spec.topic, "connector": spec.connector, "base": names.base}
    if connectors.stages_documents(spec.connector):
        return _scaffold_mongodb(project, spec, names, fields, sources)
    staging_sql = project / names.path("staging")
    write_sql(staging_sql, model_templates.render("staging", **fields))
    touched = [staging_sql]
    sources_yml = _add_source(
        sources,
        staging_dir,
        names,
        spec,
        f"Raw Kafka records of topic `{spec.topic}`, one row"
        " per record, as landed by `python -m python_helpers land`.",
    )
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    write_properties(staging_yml, _staging_models(spec, names), spec)
    touched += [sources_yml, staging_yml]
    if spec.primary_key:
        current_sql = project / names.path("current")
        key_list = ", ".join(spec.primary_key)
        current = {"topic": spec.topic, "key_list": key_list, "state": names.state}
        write_sql(current_sql, model_templates.render("current", **current))
        current_yml = current_dir / f"_{names.folder}__{names.entity}.yml"
        write_properties(current_yml, _current_models(spec, names), spec)
        touched += [current_sql, current_yml]
    return touched


def _current_models(spec: TopicSpec, names: ModelNames) -> list[dict[str, Any]]:
    """The properties of a topic's `__state` table and current-state view."""
    key_list = ", ".join(spec.primary_key)
    metadata = STAGING_METADATA + extra_columns(spec)
    current: dict[str, Any] = {
        "name": names.current,
        "description": f"Current state of topic `{spec.topic}`:"
        f" one row per {key_list}, creates, updates and deletes applied in"
        " source order (see cdc_source_position). A view of"
        f" `{names.state}` without its delete markers; with the variable"
        " `cdc_soft_deletes: true` deleted keys stay, flagged `is_deleted`.",
        "config": model_meta(spec, "current"),
        "columns": row_columns(spec, key_tests=True)
        + metadata_columns(metadata, CURRENT_OPS, where=SOFT_DELETES_WHERE)
        + metadata_columns(MERGED_METADATA, None),
    }
    state: dict[str, Any] = {
        "name": names.state,
        "description": f"Merged state of topic `{spec.topic}`: one row per"
        f" {key_list} ever seen, the newest change in source order; a deleted"
        " key keeps its delete as a row (`_cdc_op = 'd'`, a delete marker) so"
        " that an older event landing later cannot bring it back. Purge old"
        " markers with `dbt run-operation cdc_purge_delete_markers`.",
        "config": model_meta(spec, "state"),
        "columns": row_columns(spec, key_tests=True)
        + metadata_columns(metadata, STATE_OPS)
        + metadata_columns(MERGED_METADATA, None),
    }
    if len(spec.primary_key) > 1:
        for entry in (current, state):
            entry["data_tests"] = [
                {"cdc_unique_combination": {"arguments": {"columns": list(spec.primary_key)}}}
            ]
    return [state, current]


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
    sql_files = {
        project / names.path("staging"): ("staging", fields),
        project / names.path("current"): ("mongodb_current", fields),
    }
    for path, (template, values) in sql_files.items():
        write_sql(path, model_templates.render(template, **values))
    sources_yml = _add_source(
        sources,
        staging_dir,
        names,
        spec,
        f"Raw Kafka records of MongoDB topic `{spec.topic}`, one row"
        " per record, as landed by `python -m python_helpers land`.",
    )
    change_columns = described(mongodb.STAGING_COLUMNS)
    metadata = STAGING_METADATA
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    write_properties(
        staging_yml,
        [
            {
                "name": names.base,
                "description": f"Every landed record of MongoDB topic `{spec.topic}`, its"
                " value parsed once: document id, the change as written (documents,"
                " patch, update description), CDC and Kafka metadata, and the"
                " quarantine verdict. Appended batch by batch.",
                "config": model_meta(spec, "base"),
                "data_tests": [_accounts_test(names, False)],
                "columns": change_columns + metadata_columns(metadata + BASE_VERDICT, None),
            },
            {
                "name": names.staging,
                "description": f"One row per change event of MongoDB topic `{spec.topic}`"
                " (c, r, u, d): document id, the change as the connector wrote it,"
                " CDC and Kafka metadata.",
                "config": model_meta(spec, "staging"),
                "columns": change_columns + metadata_columns(metadata, ["c", "r", "u", "d"]),
            },
            {
                "name": names.quarantine,
                "description": f"Landed records of topic `{spec.topic}` that did not"
                " become change events, each with the reason.",
                "config": model_meta(spec, "quarantine"),
                "columns": metadata_columns(QUARANTINE_COLUMNS),
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
    write_properties(
        current_yml,
        [
            {
                "name": names.current,
                "description": f"Current state of MongoDB topic `{spec.topic}`: one row"
                " per live document, its change events replayed in source order"
                " (ts_ms, ord, Kafka offset) on top of the stored state: full"
                " documents replace, 1.x patches and 2.x update descriptions are"
                " applied to the previous document, deletes remove it.",
                "config": model_meta(spec, "current"),
                "columns": [id_column]
                + document_columns(spec)
                + described(MONGODB_CURRENT_COLUMNS)
                + metadata_columns(metadata, CURRENT_OPS),
            }
        ],
        spec,
    )
    return [*sql_files, sources_yml, staging_yml, current_yml]


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
    sql_files = {
        project / names.path("staging"): (
            "metadata_staging",
            {"topic": spec.topic, "kind": kind, "base": names.base},
        ),
        project / names.path("current"): (
            "transactions" if transactions else "schema_history",
            {"topic": spec.topic, "staging": names.staging},
        ),
    }
    for path, (template, values) in sql_files.items():
        write_sql(path, model_templates.render(template, **values))
    sources_yml = _add_source(
        sources, staging_dir, names, spec, f"Raw Kafka records of the {kind} topic `{spec.topic}`."
    )
    event_columns = described(TRANSACTION_COLUMNS if transactions else SCHEMA_CHANGE_COLUMNS)
    if not transactions:
        event_columns += metadata_columns(
            ["_cdc_position", "_cdc_source_committed_at", "_cdc_processed_at"], None
        )
    event_columns += metadata_columns(KAFKA_COLUMNS, None)
    staging_yml = staging_dir / f"_stg_{names.folder}__{names.entity}.yml"
    write_properties(
        staging_yml,
        [
            {
                "name": names.base,
                "description": f"Every landed record of the {kind} topic `{spec.topic}`,"
                " its value parsed once, with the quarantine verdict.",
                "config": model_meta(spec, "base"),
                "data_tests": [_accounts_test(names, False)],
                "columns": event_columns + metadata_columns(BASE_VERDICT, None),
            },
            {
                "name": names.staging,
                "description": f"One row per event of the {kind} topic `{spec.topic}`.",
                "config": model_meta(spec, "staging"),
                "columns": event_columns,
            },
            {
                "name": names.quarantine,
                "description": f"Landed records of topic `{spec.topic}` that are not"
                f" {kind} events, each with the reason.",
                "config": model_meta(spec, "quarantine"),
                "columns": metadata_columns(QUARANTINE_COLUMNS),
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
            "config": model_meta(spec, "current"),
            "columns": described(TRANSACTIONS_TABLE_COLUMNS),
        }
        current["columns"][0]["data_tests"] = ["not_null", "unique"]
    else:
        current = {
            "name": names.current,
            "description": f"Schema history from topic `{spec.topic}`: one row per"
            " table change, in source order (`_cdc_position`).",
            "config": model_meta(spec, "current"),
            "columns": described(SCHEMA_HISTORY_COLUMNS),
            "data_tests": [
                {"cdc_unique_combination": {"arguments": {"columns": SCHEMA_HISTORY_KEY}}}
            ],
        }
    write_properties(current_yml, [current], spec)
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


# A raw record's loaded-at time for `dbt source freshness` (thresholds in
# dbt_project.yml): its Kafka timestamp, else when it was landed.
LOADED_AT = "coalesce(timestamp_millis(kafka_timestamp_ms), timestamp_micros(landing_batch))"


def _add_source(
    sources: SourceEdits, staging_dir: Path, names: ModelNames, spec: TopicSpec, description: str
) -> Path:
    """Add the topic's raw landing table to its folder's sources file (a
    structural edit, written once per sync); returns that file."""
    path = staging_dir / f"_{names.folder}__sources.yml"
    sources.add(
        path,
        _source_entry(names.source, spec.connector),
        {
            "name": names.table,
            "description": description,
            "meta": {"cdc_topic": spec.topic},
            "columns": metadata_columns(LANDING_COLUMNS),
        },
    )
    return path


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
