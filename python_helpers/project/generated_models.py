"""Everything generated of each topic, under ``models/generated/``.

A topic's base model (every landed record parsed once), its quarantine
view, its merged ``__state`` table, its history, change feed, heartbeat and
transaction-consistent models are derived from the topic's declaration and
its schema, and so is one properties file per topic
(``models/generated/properties/<folder>/_<model>.yml``): its raw table and
every model of the topic, the staging and current-state models a person
owns included (their descriptions and tests come from the declaration's
``description:`` and ``columns:``). ``sync`` rewrites these files whenever
the text it would write differs (a template, a declared setting, the
schema or the names changed, or a person edited one), and ``sync --check``
lists them while they differ. Their first line says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.escaping import jinja_literal
from python_helpers.project import model_templates, quarantine_reasons, source_columns
from python_helpers.project.code_check import entries_problem, sql_problem
from python_helpers.project.columns import properties_text, properties_yaml
from python_helpers.project.model_names import (
    GENERATED_DIR,
    MODELS_DIR,
    ModelNames,
    properties_header,
)
from python_helpers.project.notification_groups import ScanSource, scan_sources
from python_helpers.project.topic_properties import GENERATED_LAYERS, model_entries, topic_layers
from python_helpers.project.transaction_groups import (
    TransactionGroup,
    member_groups,
    transaction_groups,
)
from python_helpers.schema.metadata_topics import CHANGES, KIND_LABELS
from python_helpers.topic import column_settings
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.settings import Declaration
from python_helpers.topic.topics import Topic

# the current-state views that have a transaction-consistent sibling
CONSISTENT_VIEWS = Path("macros", "generated", "cdc_consistent_views.sql")
# every topic's quarantine by reason (macros/ops/cdc_quarantine_counts.sql)
QUARANTINE_COUNTS = Path("models", "generated", "ops", "cdc_quarantine_counts.sql")
PROPERTIES_NOTE = (
    "# From its declaration topics/<topic>.yml and its schemas: describe the topic and\n"
    "# its columns there (`description:`, `columns:`), see docs/topics.md.\n"
)
# A raw record's loaded-at time for `dbt source freshness` (thresholds in
# dbt_project.yml): its Kafka timestamp, else when it was landed.
LOADED_AT = "coalesce(timestamp_millis(kafka_timestamp_ms), timestamp_micros(landing_batch))"
LANDING_SCHEMA = "{{ var('cdc_landing_schema', 'cdc_landing') }}"


def _templates(
    spec: TopicSpec,
    names: ModelNames,
    layers: list[str],
    declared: Declaration,
    transactions: dict[str, Any],
    scans: dict[str, Any],
) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each generated layer of ``layers``: (template, fields);
    ``transactions``: the fields of its transaction group's models;
    ``scans``: of the snapshot scans its merged models read."""
    common = {
        "topic": spec.topic,
        "connector": spec.connector,
        "source": names.source,
        "table": names.table,
        "base": names.base,
        "staging": names.staging,
        "current": names.current,
        "state": names.state,
    }
    keys = list(spec.primary_key)
    keyed = common | {
        "key_list": ", ".join(keys),
        "unique_key": jinja_literal(keys),
        "merge_key": jinja_literal([*keys, "valid_from_position"]),
        "snapshot_deletes": declared.snapshot_deletes,
        "snapshot_scans": scans.get("snapshot_scans"),
        "scans_model": scans.get("scans_model"),
        "column_configs": {
            name: jinja_literal(value)
            for name, value in column_settings.model_configs(declared, spec.column_names).items()
        },
    }
    base: tuple[str, dict[str, Any]]
    if spec.kind != CHANGES:
        base = ("metadata_base", common | {"kind": KIND_LABELS[spec.kind]})
    else:
        macro = connectors.lookup(spec.connector).events_macro
        limits = {"max_value_bytes": declared.max_value_bytes}
        base = ("base", common | {"events_macro": macro} | limits)
    wanted = {
        "base": base,
        "quarantine": ("quarantine", common),
        "state": ("state", keyed),
        "history": ("history", keyed),
        "changes": ("changes", keyed),
        "heartbeats": ("heartbeats", common),
        "consistent": ("consistent", keyed | transactions),
        "progress": ("transaction_progress", common | transactions),
    }
    return {layer: wanted[layer] for layer in GENERATED_LAYERS if layer in layers}


def _unsafe(texts: dict[Path, str], entries: list[dict[str, Any]]) -> str | None:
    """Why a topic's generated files would not be safe to parse (code_check),
    or None; files already on disk as they are were checked when written."""
    if all(_on_disk(path) == text for path, text in texts.items()):
        return None
    for path, text in texts.items():
        if path.suffix == ".sql" and (why := sql_problem(text)) is not None:
            return f"its generated {path.name} would not be safe to parse ({why})"
    if (why := entries_problem(entries)) is not None:
        return f"its generated properties would not be safe to parse ({why})"
    return None


def _on_disk(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def _transaction_fields(group: TransactionGroup, names: dict[str, ModelNames]) -> dict[str, Any]:
    """The fields of a transaction group's progress model and consistent views."""
    return {
        "transaction_topic": group.topic,
        "transactions": names[group.topic].staging,
        "progress": names[group.topic].progress,
        "prefix": group.prefix,
        "match": group.match,
        "members": [
            (member, names[member].staging, names[member].table) for member in group.members
        ],
    }


def _scan_fields(source: ScanSource, names: dict[str, ModelNames]) -> dict[str, Any]:
    """The fields of a merged model that reads the snapshot scans of its
    topic's notification topic (notification_groups.py)."""
    scans = {"model": names[source.notification_topic].current, "table": source.data_collection}
    return {"snapshot_scans": jinja_literal(scans), "scans_model": scans["model"]}


def _source_description(spec: TopicSpec, title: str) -> str:
    if spec.kind != CHANGES:
        return f"Raw Kafka records of the {KIND_LABELS[spec.kind]} topic `{spec.topic}`."
    return (
        f"Raw Kafka records of {title} topic `{spec.topic}`, one row per record, as landed"
        " by `python -m python_helpers land` (its columns: the overview)."
    )


def _source_table(spec: TopicSpec, names: ModelNames) -> dict[str, Any]:
    """The topic's raw table, as its connector's landing source lists it."""
    title = connectors.lookup(spec.connector).title
    return {
        "name": names.table,
        "description": _source_description(spec, title),
        "meta": {"cdc_topic": spec.topic},
    }


def landing_sources(topics: list[tuple[TopicSpec, ModelNames]]) -> dict[Path, str]:
    """Each connector's landing source (``<folder>_landing``), declared once
    with the raw tables of all its ``topics``, in its own generated file:
    models/generated/sources/_<folder>_landing.yml."""
    by_source: dict[str, list[tuple[TopicSpec, ModelNames]]] = {}
    for spec, names in sorted(topics, key=lambda pair: pair[0].topic):
        by_source.setdefault(names.source, []).append((spec, names))
    files = {}
    for source, members in by_source.items():
        title = connectors.lookup(members[0][0].connector).title
        declared = {
            "name": source,
            "description": f"Raw Kafka topics of the {title} connector, one table per topic.",
            "schema": LANDING_SCHEMA,
            "config": {"loaded_at_field": LOADED_AT},
            "tables": [_source_table(spec, names) for spec, names in members],
        }
        header = (
            f"# GENERATED by `python -m python_helpers sync`: the landing source of the"
            f" {title} connector, one table per topic. Do not edit.\n"
        )
        path = MODELS_DIR / GENERATED_DIR / "sources" / f"_{source}.yml"
        files[path] = header + properties_yaml({"version": 2, "sources": [declared]})
    return files


def wanted_files(
    project: Path,
    topics: dict[str, Topic],
    every: dict[str, Topic] | None = None,
    failed: dict[str, str] | None = None,
) -> dict[Path, str]:
    """The text of every generated file of ``topics`` (by path): its
    generated models and its properties. ``every``: all the project's topics
    (default ``topics``), which the transaction groups and the snapshot scans
    are made of, also when a landing holds only some. ``failed``: where a
    topic whose files fail ``code_check`` is noted (by topic, with the
    reason); its files are left out."""
    every = {**(every or {}), **topics}
    specs = {name: topic.spec for name, topic in every.items()}
    all_names = {name: ModelNames.for_topic(topic) for name, topic in every.items()}
    groups = transaction_groups(specs)
    members = member_groups(groups)
    scans = scan_sources(specs, {name: topic.declaration for name, topic in every.items()})
    wanted: dict[Path, str] = {}
    for name, topic in topics.items():
        spec, names = topic.spec, all_names[name]
        group = groups.get(name) or members.get(name)
        layers = topic_layers(spec, topic.history, group is not None, topic.changes)
        generated = [layer for layer in layers if layer in GENERATED_LAYERS]
        group_fields = _transaction_fields(group, all_names) if group else {}
        source = scans.get(name)
        scan_fields = _scan_fields(source, all_names) if source else {}
        templates = _templates(spec, names, generated, topic.declaration, group_fields, scan_fields)
        texts: dict[Path, str] = {}
        for layer, (template, fields) in templates.items():
            texts[project / names.path(layer)] = model_templates.render(template, **fields)
        entries = model_entries(topic, names, layers)
        header = properties_header(name) + PROPERTIES_NOTE
        texts[project / names.properties()] = properties_text(entries, header)
        if failed is not None and (why := _unsafe(texts, entries)) is not None:
            failed[name] = why
            continue
        wanted |= texts
    views = sorted(all_names[name].current for name in members)
    wanted[project / CONSISTENT_VIEWS] = model_templates.render("consistent_views", views=views)
    # a topic left out here has no files to read (it may never have had any)
    kept = [name for name in sorted(every) if failed is None or name not in failed]
    quarantines = [(name, all_names[name].quarantine, all_names[name].base) for name in kept]
    # their raw tables (one landing source per connector) and source fields
    listed = [(every[name].spec, all_names[name]) for name in kept]
    sources = {project / path: text for path, text in landing_sources(listed).items()}
    return wanted | sources | project_files(project, quarantines, _source_fields(listed))


def _source_fields(topics: list[tuple[TopicSpec, ModelNames]]) -> dict[str, tuple[str, list[str]]]:
    """Per connector folder, its title and the `source` fields of its
    ``topics`` (first seen first, in the order given)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for spec, names in topics:
        fields = source_columns.fields(spec)
        if not fields:
            continue
        title = connectors.lookup(spec.connector).title
        known = found.setdefault(names.folder, (title, []))[1]
        known += [field for field in fields if field not in known]
    return found


def project_files(
    project: Path,
    quarantines: list[tuple[str, str, str]],
    sources: dict[str, tuple[str, list[str]]] | None = None,
) -> dict[Path, str]:
    """The generated files of the whole project: the quarantine counts of
    ``quarantines`` (topic, quarantine model, base model), the doc blocks
    of the connectors' source columns (``sources``: per connector folder,
    its title and fields) and the doc block of the seed's reasons. ``init``
    writes them for no topic, so a new project parses before its first
    sync."""
    files = {
        project / QUARANTINE_COUNTS: model_templates.render(
            "quarantine_counts", quarantines=quarantines
        ),
        project / source_columns.DOC_FILE: source_columns.doc_blocks(sources or {}),
    }
    if (reasons_doc := quarantine_reasons.doc_block(project)) is not None:
        files[project / quarantine_reasons.DOC_BLOCK] = reasons_doc
    return files


def stale(wanted: dict[Path, str]) -> list[Path]:
    """The generated models that are missing or whose file says something
    else."""
    return [
        path
        for path, text in wanted.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write(wanted: dict[Path, str]) -> list[Path]:
    """Write the generated models that are missing or differ; returns
    their paths."""
    changed = stale(wanted)
    for path in changed:
        model_templates.write_sql(path, wanted[path])
    return changed
