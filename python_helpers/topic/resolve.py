"""Resolve one topic: what its landing folder, its declaration and its
schema blocks say, as a ``TopicSpec``, in steps that each ask one module:
what is new in its folder (``scan``), the spec that makes
(``build_spec``), merged with the one the project has, checked against
what Spark and the metastore hold, its row columns given their Spark
names (``column_settings``). ``project.sync`` calls ``resolve_topic`` for
each topic of a landing and writes what it resolves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from python_helpers import connectors
from python_helpers.land.kafka_records import Records
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.schema.spark_types import check_decodable, unkept_nested_fields
from python_helpers.topic import column_settings
from python_helpers.topic.build_spec import data_key, spec_for_topic
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.scan import ScanState, collect_topic
from python_helpers.topic.settings import Declaration


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
            row = row_schema(spec.value_schema)
            check_decodable(spec.topic, row)
            if unkept := unkept_nested_fields(row):
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
        spec = column_settings.named(spec, config, known)
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
        resolved.spec = column_settings.named(spec, config, stored)
    except SpecError as error:
        resolved.failed = str(error)
    return resolved
