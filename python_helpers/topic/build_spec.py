"""A topic's spec from what a scan collected and its declaration: its
connector, its key (declared, else the data's), the schema given for a
topic whose events carry none, each schema version's columns.
"""

from __future__ import annotations

import json
from pathlib import Path

from python_helpers import connectors
from python_helpers.land.landing import VALUE_SCHEMA_FILE
from python_helpers.schema.connect_schema import ConnectSchema, SchemaError, parse_schema
from python_helpers.schema.envelope import SpecError
from python_helpers.schema.metadata_topics import CHANGES, metadata_schema
from python_helpers.schema.schema_evolution import version_raw_columns
from python_helpers.topic.generate import TopicSpec, decimal_scales
from python_helpers.topic.settings import Declaration
from python_helpers.topic.topic_schema import TopicSchemas

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
