"""Resolve one topic: what its landing folder, its declaration and its
schema blocks say, as a ``TopicSpec``.

``collect_topic`` scans what is new of a topic's files (``ScanState``
remembers how far each file was read), ``spec_for_topic`` turns what was
collected and the topic's ``Declaration`` into its spec (its connector, its
key, the schema given for a topic whose events carry none), ``named`` gives
its row columns their Spark names. ``project.sync`` calls them for each
topic of a landing and writes what they resolve.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.digest import file_digest
from python_helpers.land.kafka_records import Records
from python_helpers.land.landing import VALUE_SCHEMA_FILE, LandingFile, topic_files
from python_helpers.schema.column_names import ColumnNameError, spark_names
from python_helpers.schema.connect_schema import ConnectSchema, SchemaError, parse_schema
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES, metadata_schema
from python_helpers.schema.schema_evolution import QUARANTINE, version_raw_columns
from python_helpers.schema.spark_types import check_decodable, unkept_nested_fields
from python_helpers.topic import column_settings
from python_helpers.topic.generate import TopicSpec, decimal_scales
from python_helpers.topic.settings import Declaration
from python_helpers.topic.topic_schema import TopicSchemas, scan_file, scan_keys, scan_records

_HEAD = 1 << 16


NO_SCHEMA_HELP = (
    "{events} events and none carries a schema block (JsonConverter "
    "schemas.enable=false). Give the topic a schema: `schema_from: <topic>` in "
    "its declaration {declaration} (a landed topic of the same table whose events carry "
    "schema blocks), or the Kafka Connect value schema block in "
    "{folder}/value-schema.json"
)


def _given_schema(
    topic_dir: Path, config: Declaration, specs: dict[str, TopicSpec]
) -> tuple[ConnectSchema | None, ConnectSchema | None, str | None]:
    """A schema given for a topic whose events carry none: (value schema,
    key schema, connector), or Nones. Raises SpecError naming what is wrong."""
    source = config.schema_from
    if source:
        known = specs.get(source)
        if known is None:
            raise SpecError(
                f"{config.origin}: schema_from names topic {source!r}, "
                "which has no generated schema (land it too)"
            )
        return known.value_schema, known.key_schema, known.connector
    schema_file = topic_dir / VALUE_SCHEMA_FILE
    if schema_file.exists():
        try:
            block = json.loads(schema_file.read_text(encoding="utf-8"))
            if isinstance(block, dict) and isinstance(block.get("schema"), dict):
                block = block["schema"]  # a whole {"schema", "payload"} event
            return parse_schema(block), None, None
        except (ValueError, SchemaError) as error:
            raise SpecError(f"{schema_file}: not a Kafka Connect schema block: {error}") from None
    return None, None, None


def named(spec: TopicSpec, config: Declaration, known: TopicSpec | None) -> TopicSpec:
    """``spec`` with its row columns' Spark names (column_names): the
    declaration's mapping first, then the stored spec's, then the rule."""
    if spec.kind != CHANGES:
        return spec
    kept = (known.column_names if known is not None else {}) | config.column_names
    if spec.shape == connectors.DOCUMENTS:
        fields = spec.document.fields if spec.document is not None else ()
        key = connectors.lookup(spec.connector).key_field
        names = [name for name, _ in fields if name != key]
        keys: tuple[str, ...] = ()
    else:
        names = [f.name for f in row_schema(spec.value_schema).fields]
        keys = spec.primary_key
    try:
        mapping = spark_names(names, keys, kept)
    except ColumnNameError as error:
        raise SpecError(str(error)) from None
    return spec if mapping == spec.column_names else replace(spec, column_names=mapping)


def data_key(
    connector: str, key_schema: ConnectSchema | None, value_schema: ConnectSchema | None
) -> tuple[str, ...]:
    """The primary key the data gives: the Kafka key schema's fields, else
    what the connector's values give (``Connector.data_key``); none without
    either."""
    if key_schema is not None and key_schema.type == "struct":
        return tuple(f.name for f in key_schema.fields)
    if connectors.unsupported(connector) is not None:
        return ()
    return connectors.lookup(connector).data_key(value_schema)


def _primary_key(
    collected: TopicSchemas, connector: str, configured: tuple[str, ...]
) -> tuple[str, ...]:
    return configured or data_key(connector, collected.key_schema, collected.value_schema)


def _head_digest(path: Path, length: int) -> str:
    return file_digest(path, min(length, _HEAD))


# what a scan keeps, as of this version of sync: a state written by an
# earlier one is dropped and every file scanned again, once (2: the
# schema blocks' text, topic_schema.TopicSchemas.schema_blocks)
SCAN_FORMAT = 2


@dataclass
class ScanState:
    """Where each landing file's scan stopped, and which schema texts each
    topic has shown, as of the generated spec files whose digest it names."""

    specs_digest: str = ""
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None, digest: str) -> ScanState:
        if path is None or not path.exists():
            return cls(digest)
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if loaded.get("specs_digest") != digest:
            return cls(digest)  # the specs changed behind sync's back: rescan
        if loaded.get("format") != SCAN_FORMAT:
            return cls(digest)  # a scan that kept less: rescan once
        return cls(digest, loaded.get("files", {}), loaded.get("seen", {}))

    def save(self, path: Path, digest: str) -> None:
        self.specs_digest = digest
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {
            "format": SCAN_FORMAT,
            "specs_digest": self.specs_digest,
            "files": self.files,
            "seen": self.seen,
        }
        path.write_text(json.dumps(body, sort_keys=True), encoding="utf-8")

    def resume_at(self, item: LandingFile) -> int | None:
        """Byte offset to resume ``item`` at, or None when nothing is new."""
        stat = item.path.stat()
        known = self.files.get(str(item.path.resolve()))
        if known is None:
            return 0
        if (known["size"], known["mtime_ns"]) == (stat.st_size, stat.st_mtime_ns):
            return None
        if item.compressed:
            return 0  # a compressed file that changed is scanned whole
        if stat.st_size < known["scanned"]:
            return 0
        if _head_digest(item.path, known["scanned"]) != known["head"]:
            return 0
        return int(known["scanned"])

    def forget(self, topic_dir: Path) -> None:
        """Scan the topic's files again next time (its sync failed)."""
        folder = str(topic_dir.resolve())
        self.files = {
            path: known for path, known in self.files.items() if not path.startswith(folder + "/")
        }
        self.seen.pop(topic_dir.name, None)

    def scanned(self, item: LandingFile, offset: int) -> None:
        stat = item.path.stat()
        self.files[str(item.path.resolve())] = {
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "scanned": offset,
            "head": _head_digest(item.path, offset),
        }


def collect_topic(
    topic_dir: Path,
    state: ScanState,
    known: TopicSpec | None = None,
    policy: str = QUARANTINE,
    records: Records | None = None,
) -> tuple[TopicSchemas, bool, int]:
    """Scan what is new in one topic folder: (schemas, anything new, bytes).
    A MongoDB topic's new events are read against the document type already
    ``known`` (an update's `tags.0` addresses an item of a known array); new
    schema versions are judged against the table schema ``known`` holds,
    under the topic's schema-change ``policy``. A topic landed from a
    Kafka-source table has no files: ``records`` are what its landing just
    read (scan_records), and its folder is not read."""
    collected = TopicSchemas(
        topic_dir.name,
        seen=set(state.seen.get(topic_dir.name, ())),
        document=known.document if known is not None else None,
        policy=policy,
        established=known.value_schema if known is not None else None,
    )
    new = False
    scanned = 0
    if records is not None:
        scan_records(records, collected)
        state.seen[topic_dir.name] = sorted(collected.seen)
        return collected, bool(records), sum(len(v or "") for v, _, _ in records)
    for item in topic_files(topic_dir):
        start = state.resume_at(item)
        if start is None:
            continue
        new = True
        end = scan_file(item.path, item.is_kcat, collected, start)
        if item.keys is not None:
            scan_keys(item.keys, collected)
        scanned += end - start
        state.scanned(item, end)
    state.seen[topic_dir.name] = sorted(collected.seen)
    return collected, new, scanned


def spec_for_topic(
    topic_dir: Path,
    collected: TopicSchemas,
    config: Declaration,
    primary_key: tuple[str, ...] = (),
    specs: dict[str, TopicSpec] | None = None,
) -> tuple[TopicSpec | None, str | None]:
    """The spec of what was collected of one topic, or ``(None, reason)``.
    A topic without schema blocks uses the schema its declaration or folder
    gives (see NO_SCHEMA_HELP), resolved against ``specs``."""
    declared = config.connector
    if declared is not None and connectors.shape_of(declared) == connectors.ROWS:
        collected.kind = CHANGES  # a declared row topic (its rows may look like metadata)
    if collected.kind != CHANGES:
        spec = TopicSpec(
            topic=topic_dir.name,
            connector=collected.connector or connectors.metadata_connector().name,
            source_table=None,
            primary_key=(),
            value_schema=metadata_schema(collected.kind, collected.source_fields),
            key_schema=None,
            kind=collected.kind,
        )
        return spec, None
    if collected.connector and connectors.shape_of(collected.connector) == connectors.DOCUMENTS:
        documents = connectors.lookup(collected.connector)
        spec = TopicSpec(
            topic=topic_dir.name,
            connector=collected.connector,
            source_table=collected.source_table,
            primary_key=(documents.key_field,),
            value_schema=documents.builtin_value_schema(collected.source_fields),
            key_schema=None,
            document=collected.document,
        )
        return spec, None
    value_schema, key_schema, connector = collected.value_schema, collected.key_schema, None
    if value_schema is None:
        try:
            value_schema, key_schema, connector = _given_schema(topic_dir, config, specs or {})
        except SpecError as error:
            return None, str(error)
    if value_schema is None:
        return None, NO_SCHEMA_HELP.format(
            events=collected.events, folder=topic_dir, declaration=config.origin
        )
    connector = collected.connector or connector or config.connector
    if not connector:
        return None, (
            "no event names its connector (payload.source.connector); "
            + connectors.undeclared_help()
        )
    if (problem := connectors.unsupported(str(connector))) is not None:
        return None, f"{problem}: no models, its records are not landed"
    connector = str(connector)
    # a declared connector's rows as its envelope (rows without metadata)
    value_schema = connectors.lookup(connector).value_schema(value_schema)
    collected.value_schema, collected.key_schema = value_schema, key_schema
    spec = TopicSpec(
        topic=topic_dir.name,
        connector=connector,
        source_table=collected.source_table,
        primary_key=_primary_key(collected, connector, primary_key or config.primary_key),
        value_schema=value_schema,
        key_schema=key_schema,
        schema_fingerprints=frozenset(collected.schema_fingerprints),
        schema_blocks=dict(collected.schema_blocks),
        decimal_scales=decimal_scales(collected.versions),
        decimal_format=config.decimal_format,
        schema_changes=config.schema_changes,
        incompatible_versions={fp: tuple(c) for fp, c in collected.incompatible.items()},
        invalid_versions=dict(collected.invalid),
        version_columns={
            fp: columns
            for fp, schema in collected.versions.items()
            if (columns := version_raw_columns(schema))
        },
    )
    return spec, None


@dataclass
class Resolved:
    """What resolving one topic found: its spec, or why it has none
    (``skipped``: nothing to model yet; ``failed``: left out, by name), and
    what the sync reports of it."""

    spec: TopicSpec | None = None
    skipped: str | None = None
    failed: str | None = None
    # its models must be rebuilt from the raw landing (a merge key or the
    # table's types changed in a way no incremental build can apply)
    rebuild: bool = False
    warnings: list[str] = field(default_factory=list)
    scanned: int = 0  # bytes read of its files
    unchanged: bool = False  # nothing new in its files
    progress: str = ""  # a line for the scan's progress, when it read something

    def key_changed(self, old: TopicSpec, new: TopicSpec) -> None:
        """A merge key changed: the generated models take the new key, the
        models are rebuilt from the raw landing (a table merged on the old
        key cannot be merged on another)."""
        self.rebuild = True
        self.warnings.append(
            f"{new.topic}: primary key {list(old.primary_key)} -> {list(new.primary_key)}: its"
            " models are rebuilt from the raw landing at the next run; the key tests in its"
            " current-state view's properties are yours to update"
        )


def resolve_topic(
    topic_dir: Path,
    config: Declaration,
    state: ScanState,
    specs: dict[str, TopicSpec],
    given_key: tuple[str, ...] = (),
    records: Records | None = None,
) -> Resolved:
    """Scan what is new of one topic and resolve its spec against what
    ``specs`` (the project's, read only) knows of it: the whole path from a
    landing folder and a declaration to a spec, below the generators."""
    started = time.monotonic()
    policy = config.schema_changes
    known = specs.get(topic_dir.name)
    collected, new, scanned = collect_topic(topic_dir, state, known, policy, records)
    resolved = Resolved(scanned=scanned)
    if not new and known is not None:
        resolved.unchanged = True
        return _resolve_unchanged(resolved, known, config)
    if scanned:
        resolved.progress = (
            f"scanned {topic_dir.name}: {scanned / 1e6:.1f} MB, {collected.events} events,"
            f" {len(collected.seen)} distinct schema text(s), {time.monotonic() - started:.1f}s"
        )
    spec, reason = spec_for_topic(topic_dir, collected, config, given_key, specs)
    if spec is None and known is not None:
        spec = known  # nothing new that changes it (e.g. known schemas only)
    elif spec is not None and known is not None:
        spec = spec.merged_with(known)
    if known is not None and known.incompatible_versions and spec is not None:
        spec = spec.with_policy(policy)
        resolved.rebuild = not spec.incompatible_versions
    if spec is None:
        resolved.skipped = reason or "unknown"
        return resolved
    try:
        if spec.shape == connectors.ROWS:
            check_decodable(spec.topic, row_schema(spec.value_schema))
            if unkept := unkept_nested_fields(row_schema(spec.value_schema)):
                resolved.failed = (
                    f"nested field(s) {', '.join(map(repr, unkept[:5]))}: the Hive"
                    " metastore cannot keep such a name inside a column's type (a table"
                    " holding it would break its schema's listing for every topic)"
                )
                return resolved
        column_settings.check_columns(config, spec)
    except SpecError as error:
        resolved.skipped = str(error)
        return resolved
    try:
        spec = named(spec, config, known)
    except SpecError as error:
        resolved.failed = str(error)
        return resolved
    if known is not None and known.primary_key and spec.primary_key != known.primary_key:
        resolved.key_changed(known, spec)
    if not spec.primary_key and spec.kind == CHANGES:
        resolved.warnings.append(
            f"{spec.topic}: no key schema and no primary_key in its declaration "
            f"{config.origin}; only staging models are scaffolded"
        )
    resolved.spec = spec
    return resolved


def _resolve_unchanged(resolved: Resolved, stored: TopicSpec, config: Declaration) -> Resolved:
    """A topic with nothing new: its stored spec under the declaration as
    it is now (the schema-change policy, the key, the Spark names)."""
    spec = stored.with_policy(config.schema_changes)
    # the policy changed, nothing landed
    resolved.rebuild = bool(stored.incompatible_versions and not spec.incompatible_versions)
    # the declared key, else (none declared, or one deleted) the data's
    wanted_key = config.primary_key or data_key(
        stored.connector, stored.key_schema, stored.value_schema
    )
    if wanted_key and stored.primary_key and wanted_key != stored.primary_key:
        spec = replace(spec, primary_key=wanted_key)
        resolved.key_changed(stored, spec)
    try:
        resolved.spec = named(spec, config, stored)
    except SpecError as error:
        resolved.failed = str(error)
    return resolved
