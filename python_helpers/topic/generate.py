"""Turn a topic's merged schema into the spec the dbt macros read.

``render_spec`` gives, per topic, the ``from_json`` DDL of the event value
and key, the decoded row-image columns and the primary key, and stores the
topic's merged Kafka Connect schema so that later syncs (other landings)
keep merging versions instead of forgetting them; ``spec_files`` writes it
as one generated macro file per topic. Deterministic: the same topic gives
the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any

from python_helpers import connectors
from python_helpers.escaping import spark_identifier
from python_helpers.schema.connect_schema import (
    ConnectSchema,
    compact_json,
    merge_schemas,
    parse_schema,
    to_block,
)
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.extended_json import DocType, merge
from python_helpers.schema.metadata_topics import CHANGES, SOURCE_TYPES
from python_helpers.schema.schema_evolution import QUARANTINE, WIDEN, IncompatibleColumn, widen_with
from python_helpers.schema.spark_types import (
    BASE64,
    DECIMAL,
    NUMERIC,
    DecodedColumn,
    decode_column,
    raw_type,
)

# the schema blocks a topic's spec keeps whole, at most this many characters
# together (the newest first): a base model recognises a value of one by its
# first bytes instead of hashing its block (cdc_schema_fingerprint)
BLOCKS_KEPT_CHARS = 131_072


@dataclass(frozen=True)
class RowColumn:
    """One row column of a topic: its source name, its Spark name and how
    it is decoded (types, decoder, its Kafka Connect type as text)."""

    source: str
    name: str
    decoded: DecodedColumn


@dataclass(frozen=True)
class TopicSpec:
    """Everything the macros need to stage one topic."""

    topic: str
    connector: str
    source_table: str | None
    primary_key: tuple[str, ...]
    value_schema: ConnectSchema
    key_schema: ConnectSchema | None
    kind: str = CHANGES
    # MongoDB topics: the merged type of every document seen
    document: DocType | None = None
    # md5 of every distinct value schema block text seen (drift detection)
    schema_fingerprints: frozenset[str] = frozenset()
    # fingerprint -> its block's text, the oldest first (topic_schema.
    # recognisable; rendered up to BLOCKS_KEPT_CHARS, the newest kept)
    schema_blocks: dict[str, str] = field(default_factory=dict, compare=False)
    # top-level Decimal column -> {fingerprint: scale} for the schema
    # versions whose scale differs from the merged one (their events are
    # decoded with their own scale)
    decimal_scales: dict[str, dict[str, int]] = field(default_factory=dict, compare=False)
    # the converter's decimal.format (the declaration's `decimal_format`): Decimals
    # arrive as base64 bytes or as JSON numbers
    decimal_format: str = BASE64
    # schema evolution (schema_evolution): the topic's policy, the versions
    # whose row columns the table cannot take in place, the versions whose
    # block is unreadable (why), and each version's row columns as it
    # declares them (raw types: a record is checked against its own block)
    schema_changes: str = QUARANTINE
    incompatible_versions: dict[str, tuple[IncompatibleColumn, ...]] = field(
        default_factory=dict, compare=False
    )
    invalid_versions: dict[str, str] = field(default_factory=dict, compare=False)
    version_columns: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
    # source column -> Spark column, for the row columns Spark cannot hold
    # under their own names (python_helpers.schema.column_names)
    column_names: dict[str, str] = field(default_factory=dict)

    @property
    def shape(self) -> str:
        """What the topic's events stage: ``connectors.METADATA`` for a
        metadata topic, else its connector's shape (row images merged on a
        key, or documents replayed)."""
        if self.kind != CHANGES:
            return connectors.METADATA
        return connectors.shape_of(self.connector) or connectors.ROWS

    def spark_name(self, source: str) -> str:
        """The Spark column of source column ``source``."""
        return self.column_names.get(source, source)

    @cached_property
    def row_columns(self) -> tuple[RowColumn, ...]:
        """The row-image columns, each decoded once (the spec's `columns`
        and the properties' descriptions read them); none for a topic
        without row images."""
        if self.shape != connectors.ROWS:
            return ()
        return tuple(
            RowColumn(
                item.name,
                self.spark_name(item.name),
                decode_column(item.name, item.schema, self.decimal_format),
            )
            for item in row_schema(self.value_schema).fields
        )

    @cached_property
    def source_types(self) -> dict[str, str]:
        """The staged Spark type of each field of its events' ``source``
        block (the `_cdc_source_*` columns), in the schema's order."""
        if self.shape == connectors.METADATA:
            source = self.value_schema.field_named("source")
            fields = [f.name for f in source.schema.fields] if source else []
            return {name: SOURCE_TYPES.get(name, "string") for name in fields}
        return connectors.lookup(self.connector).source_types(self.value_schema)

    def with_policy(self, policy: str) -> TopicSpec:
        """This spec under the schema-change ``policy`` (the declaration changed
        with nothing new landed): under widen, the quarantined versions'
        columns are widened into the table schema."""
        if policy == self.schema_changes:
            return self
        if policy != WIDEN or not self.incompatible_versions:
            return replace(self, schema_changes=policy)
        found = [c for columns in self.incompatible_versions.values() for c in columns]
        widened = widen_with(self.value_schema, found)
        return replace(
            self,
            schema_changes=policy,
            value_schema=widened,
            decimal_scales=_merged_scales(self, self, widened),
            incompatible_versions={},
        )

    def merged_with(self, other: TopicSpec) -> TopicSpec:
        """Combine with the spec stored by an earlier sync of the same topic."""
        key = self.key_schema
        if key is not None and other.key_schema is not None:
            key = merge_schemas(other.key_schema, key)
        document = self.document
        if document is not None and other.document is not None:
            document = merge(other.document, document)
        value_schema = merge_schemas(other.value_schema, self.value_schema)
        incompatible = other.incompatible_versions | self.incompatible_versions
        if self.schema_changes == WIDEN:
            value_schema = widen_with(value_schema, [c for v in incompatible.values() for c in v])
            incompatible = {}
        return replace(
            self,
            incompatible_versions=dict(sorted(incompatible.items())),
            invalid_versions=dict(sorted((other.invalid_versions | self.invalid_versions).items())),
            version_columns=dict(sorted((other.version_columns | self.version_columns).items())),
            connector=other.connector,  # a stray event of another connector changes nothing
            value_schema=value_schema,
            decimal_scales=_merged_scales(other, self, value_schema),
            key_schema=key or other.key_schema,
            primary_key=self.primary_key or other.primary_key,
            source_table=self.source_table or other.source_table,
            document=document or other.document,
            schema_fingerprints=self.schema_fingerprints | other.schema_fingerprints,
            schema_blocks=other.schema_blocks | self.schema_blocks,
            column_names=other.column_names | self.column_names,
        )


def decimal_scales(versions: dict[str, ConnectSchema]) -> dict[str, dict[str, int]]:
    """Top-level Decimal column -> {fingerprint: scale}, per schema version
    (a version whose row cannot be read is left out)."""
    out: dict[str, dict[str, int]] = {}
    for fingerprint, value_schema in sorted(versions.items()):
        try:
            row = row_schema(value_schema)
        except SpecError:
            continue
        for item in row.fields:
            if item.schema.name == DECIMAL and item.schema.type == "bytes":
                scale = int(item.schema.parameter("scale") or 0)
                out.setdefault(item.name, {})[fingerprint] = scale
    return out


def _column_scales(value_schema: ConnectSchema) -> dict[str, int]:
    try:
        row = row_schema(value_schema)
    except SpecError:
        return {}
    return {
        item.name: int(item.schema.parameter("scale") or 0)
        for item in row.fields
        if item.schema.name == DECIMAL and item.schema.type == "bytes"
    }


def _merged_scales(
    old: TopicSpec, new: TopicSpec, merged: ConnectSchema
) -> dict[str, dict[str, int]]:
    """The versions' own scales after a merge: a version the old spec kept
    no entry for had the old merged scale; entries equal to the new merged
    scale are dropped."""
    old_scales = _column_scales(old.value_schema)
    out: dict[str, dict[str, int]] = {}
    for column, scale in _column_scales(merged).items():
        known = {fp: old_scales[column] for fp in old.schema_fingerprints if column in old_scales}
        versions = known | old.decimal_scales.get(column, {}) | new.decimal_scales.get(column, {})
        differing = {fp: s for fp, s in sorted(versions.items()) if s != scale}
        if differing:
            out[column] = differing
    return out


def render_spec(spec: TopicSpec) -> dict[str, Any]:
    """The YAML-ready dict one topic contributes to the generated macro."""
    renderer = {
        connectors.METADATA: _render_metadata_spec,
        connectors.DOCUMENTS: _render_documents_spec,
    }.get(spec.shape, _render_row_spec)
    return renderer(spec)


def _render_row_spec(spec: TopicSpec) -> dict[str, Any]:
    """The spec of a topic of row images."""
    connector = connectors.lookup(spec.connector)
    envelope = connector.parsed_value(spec.value_schema)
    source_types = spec.source_types
    key_schema = spec.key_schema
    if key_schema is None and connector.tombstone_deletes:
        key_schema = declared_key_schema(spec)
    return (
        {
            "connector": spec.connector,
            "envelope": connector.envelope_of(spec.value_schema),
            "source_table": spec.source_table,
            "primary_key": list(spec.primary_key),
            "value_type": raw_type(envelope),
            "key_type": raw_type(key_schema) if key_schema else None,
            "key_fields": [f.name for f in key_schema.fields] if key_schema else [],
            "parse_fields": [f.name for f in envelope.fields],
            "envelope_fields": connector.envelope_fields(envelope),
            "source_fields": list(source_types),
            "source_types": source_types,
            "columns": [_column_spec(spec, column) for column in spec.row_columns],
            **_mapped_row(spec),
            "value_schema": compact_json(to_block(spec.value_schema)),
            "key_schema": compact_json(to_block(spec.key_schema)) if spec.key_schema else None,
            "schema_fingerprints": sorted(spec.schema_fingerprints),
            "decimal_format": spec.decimal_format,
        }
        | _kept_blocks(spec.schema_blocks)
        | ({"tombstone_deletes": True} if connector.tombstone_deletes else {})
        | _row_images(connector, spec.value_schema)
        | _evolution_spec(spec)
    )


def _kept_blocks(blocks: dict[str, str]) -> dict[str, Any]:
    """The newest schema blocks, up to BLOCKS_KEPT_CHARS together, oldest
    first: a base model recognises their values by their first bytes
    (cdc_schema_fingerprint); a value of another version is hashed."""
    kept: list[tuple[str, str]] = []
    size = 0
    for fingerprint, text in reversed(blocks.items()):
        size += len(text)
        if size > BLOCKS_KEPT_CHARS:
            break
        kept.append((fingerprint, text))
    return {"schema_blocks": dict(reversed(kept))} if kept else {}


def _row_images(connector: connectors.Connector, value_schema: ConnectSchema) -> dict[str, Any]:
    """The value's row-image fields, when the connector's are not
    Debezium's (``after``, ``before``)."""
    images = connector.row_images(value_schema)
    return {"row_images": list(images)} if images != connectors.ROW_IMAGES else {}


def declared_key_schema(spec: TopicSpec) -> ConnectSchema | None:
    """The Kafka key a topic without key schema blocks carries, from its
    declared ``primary_key``: a struct of those row columns (what
    Debezium's key holds). A flattened topic's tombstone names its key
    there only; without it every delete was quarantined
    ``missing_primary_key``."""
    if not spec.primary_key:
        return None
    row = row_schema(spec.value_schema)
    fields = tuple(f for f in row.fields if f.name in spec.primary_key)
    if len(fields) != len(spec.primary_key):
        return None
    return ConnectSchema("struct", optional=True, fields=fields)


def _column_spec(spec: TopicSpec, item: RowColumn) -> dict[str, Any]:
    """One row column of the spec: its Spark name (``source_name``: the
    source's, when they differ), types and decoder."""
    column = {k: v for k, v in asdict(item.decoded).items() if v is not None}
    if item.name != item.source:
        column = {"name": item.name, "source_name": item.source} | {
            k: v for k, v in column.items() if k != "name"
        }
    return column | _version_scales(spec, item.source)


def _mapped_row(spec: TopicSpec) -> dict[str, Any]:
    """When columns are renamed: the mapping, and the row image's type
    under the Spark names (the parsed row is cast to it, by position)."""
    if not spec.column_names:
        return {}
    row = row_schema(spec.value_schema)
    inner = ", ".join(
        f"{spark_identifier(spec.spark_name(f.name))}: {raw_type(f.schema)}" for f in row.fields
    )
    return {"column_names": dict(spec.column_names), "row_type": f"struct<{inner}>"}


def _evolution_spec(spec: TopicSpec) -> dict[str, Any]:
    """The schema-evolution entries of a spec (only those that are set, so
    a topic with one schema version renders as before)."""
    out: dict[str, Any] = {}
    if spec.schema_changes != QUARANTINE:
        out["schema_changes"] = spec.schema_changes
    if spec.incompatible_versions:
        out["incompatible_versions"] = {
            fp: [c.to_spec() for c in columns]
            for fp, columns in sorted(spec.incompatible_versions.items())
        }
    if spec.invalid_versions:
        out["invalid_versions"] = dict(sorted(spec.invalid_versions.items()))
    if spec.version_columns:
        out["version_columns"] = {
            fp: dict(sorted(columns.items()))
            for fp, columns in sorted(spec.version_columns.items())
        }
    return out


def _render_metadata_spec(spec: TopicSpec) -> dict[str, Any]:
    """A transaction-metadata or schema-change topic: its built-in schema."""
    return {
        "connector": spec.connector,
        "kind": spec.kind,
        "source_table": spec.source_table,
        "primary_key": [],
        "value_type": raw_type(spec.value_schema),
        "key_type": None,
        "key_fields": [],
        "parse_fields": [f.name for f in spec.value_schema.fields],
        "envelope_fields": [f.name for f in spec.value_schema.fields],
        "source_fields": list(spec.source_types),
        "source_types": spec.source_types,
        "columns": [],
        "value_schema": compact_json(to_block(spec.value_schema)),
        "key_schema": None,
    }


def _render_documents_spec(spec: TopicSpec) -> dict[str, Any]:
    """A topic of documents: the connector's built-in envelope, its staged
    change columns, and the documents' inferred type (typed columns, tagged
    parse type)."""
    connector = connectors.lookup(spec.connector)
    source_types = spec.source_types
    documents = connector.document_spec(spec.document or DocType("doc"), spec.column_names)
    return {
        "connector": spec.connector,
        "envelope": connector.envelope_of(spec.value_schema),
        "source_table": spec.source_table,
        "primary_key": documents.pop("primary_key"),
        "value_type": raw_type(spec.value_schema),
        "key_type": documents.pop("key_type"),
        "key_fields": documents.pop("key_fields"),
        "parse_fields": [f.name for f in spec.value_schema.fields],
        "envelope_fields": [f.name for f in spec.value_schema.fields],
        "source_fields": list(source_types),
        "source_types": source_types,
        **documents,
        "value_schema": compact_json(to_block(spec.value_schema)),
        "key_schema": None,
    }


def _version_scales(spec: TopicSpec, column: str) -> dict[str, Any]:
    if spec.decimal_format == NUMERIC:
        return {}  # a JSON number carries its own scale
    scale = _column_scales(spec.value_schema).get(column)
    if scale is None:
        return {}  # no longer a Decimal (widened): the versions' scales do not apply
    differing = {
        fp: s for fp, s in sorted(spec.decimal_scales.get(column, {}).items()) if s != scale
    }
    return {"version_scales": differing} if differing else {}


def spec_from_item(topic: str, item: dict[str, Any]) -> TopicSpec:
    """The spec that ``render_spec`` rendered as ``item``."""
    key_text = item.get("key_schema")
    document = item.get("document")
    return TopicSpec(
        topic=topic,
        connector=item["connector"],
        source_table=item.get("source_table"),
        primary_key=tuple(item.get("primary_key") or ()),
        value_schema=parse_schema(json.loads(item["value_schema"])),
        key_schema=parse_schema(json.loads(key_text)) if key_text else None,
        kind=item.get("kind", CHANGES),
        document=DocType.from_json(json.loads(document)) if document else None,
        schema_fingerprints=frozenset(item.get("schema_fingerprints") or ()),
        schema_blocks=dict(item.get("schema_blocks") or {}),
        decimal_scales={
            column.get("source_name", column["name"]): dict(column["version_scales"])
            for column in item.get("columns") or ()
            if column.get("version_scales")
        },
        decimal_format=item.get("decimal_format", BASE64),
        schema_changes=item.get("schema_changes", QUARANTINE),
        incompatible_versions={
            fp: tuple(IncompatibleColumn.from_spec(c) for c in columns)
            for fp, columns in (item.get("incompatible_versions") or {}).items()
        },
        invalid_versions=dict(item.get("invalid_versions") or {}),
        version_columns={
            fp: dict(columns) for fp, columns in (item.get("version_columns") or {}).items()
        },
        column_names=dict(item.get("column_names") or {}),
    )
