"""``sync``: bring generated schemas and scaffolded models up to date.

For every topic of a landing: gather and merge its embedded schema blocks,
find its connector (``source.connector``) and primary key (``primary_key`` in
the topic's declaration ``topics/<topic>.yml``, or the ``--primary-key``
option, or the key schema's fields), write the declaration (importing the
landing folder's ``topic.yml`` when it is new or changed, see declarations),
regenerate each topic's spec file (``macros/generated/topics/``) and scaffold
models for topics that have none.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.digest import file_digest
from python_helpers.land.landing import (
    VALUE_SCHEMA_FILE,
    LandingFile,
    refused_dirs,
    topic_dirs,
    topic_files,
)
from python_helpers.project import generated_models, name_claims
from python_helpers.project.code_check import sql_problem
from python_helpers.project.project_check import check_project
from python_helpers.project.scaffold import scaffold_all
from python_helpers.project.topic_properties import history_unsupported, topic_layers
from python_helpers.schema.column_names import ColumnNameError, spark_key, spark_names
from python_helpers.schema.connect_schema import ConnectSchema, SchemaError, parse_schema
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES, metadata_schema
from python_helpers.schema.schema_evolution import POLICIES, QUARANTINE, version_raw_columns
from python_helpers.schema.spark_types import (
    DECIMAL_FORMATS,
    check_decodable,
    unkept_nested_fields,
)
from python_helpers.spec import column_settings, declarations, spec_files, topics
from python_helpers.spec.declarations import Declared
from python_helpers.spec.generate import TopicSpec, decimal_scales
from python_helpers.spec.topic_schema import TopicSchemas, scan_file, scan_keys

STATE_FILE = "sync-state.json"
_HEAD = 1 << 16


@dataclass
class SyncResult:
    """What a sync found and changed."""

    specs: dict[str, TopicSpec] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    # topics left out because something of theirs is wrong (a landing folder
    # that is no topic, a declaration, generated code that would not be
    # safe): every other topic goes on; a run ends non-zero naming them
    failed: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # topics whose table types changed in a way no incremental build can
    # apply (quarantined versions widened: schema_changes became widen):
    # their models must be rebuilt from the raw landing
    rebuild: list[str] = field(default_factory=list)
    generated_changed: bool = False
    # the generated files a write would change, and the topics whose spec
    # file was rewritten (their models must be built again)
    stale: list[Path] = field(default_factory=list)
    respecified: list[str] = field(default_factory=list)
    # the models a person owns written for topics that lacked them
    scaffolded: list[Path] = field(default_factory=list)
    # the topic declarations (topics/<topic>.yml) written, or missing or
    # out of date in a check
    declared: list[Path] = field(default_factory=list)
    # the generated files (models/generated/: base, quarantine, state,
    # history... models and the topics' properties) written, or out of date
    # in a check
    models: list[Path] = field(default_factory=list)
    bytes_scanned: int = 0
    files_unchanged: int = 0


def _configured_key(config: dict[str, Any]) -> tuple[str, ...]:
    key = config.get("primary_key") or ()
    return (key,) if isinstance(key, str) else tuple(str(k) for k in key)


NO_SCHEMA_HELP = (
    "{events} events and none carries a schema block (JsonConverter "
    "schemas.enable=false). Give the topic a schema: `schema_from: <topic>` in "
    "its declaration {declaration} (a landed topic of the same table whose events carry "
    "schema blocks), or the Kafka Connect value schema block in "
    "{folder}/value-schema.json"
)


def _given_schema(
    topic_dir: Path, config: Declared, specs: dict[str, TopicSpec]
) -> tuple[ConnectSchema | None, ConnectSchema | None, str | None]:
    """A schema given for a topic whose events carry none: (value schema,
    key schema, connector), or Nones. Raises SpecError naming what is wrong."""
    source = config.settings.get("schema_from")
    if source:
        known = specs.get(str(source))
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


def _choice(config: Declared, key: str, choices: tuple[str, ...], what: str) -> str:
    """A setting that takes one of ``choices`` (the first is the default); a
    wrong value stops sync naming the file."""
    value = str(config.settings.get(key, choices[0])).lower()
    if value not in choices:
        raise SpecError(
            f"{config.origin}: {key} is {value!r}; expected one of {', '.join(choices)} ({what})"
        )
    return value


def _decimal_format(config: Declared) -> str:
    """The converter's decimal.format as declared (default base64)."""
    return _choice(config, "decimal_format", DECIMAL_FORMATS, "the JsonConverter's decimal.format")


def _schema_changes(config: Declared) -> str:
    """The topic's schema-change policy (``schema_changes``, see
    schema_evolution; default quarantine)."""
    return _choice(config, "schema_changes", POLICIES, "see schema_evolution")


def _flag(config: Declared, name: str) -> bool:
    """A true/false setting (false when absent)."""
    value = config.settings.get(name, False)
    if not isinstance(value, bool):
        raise SpecError(f"{config.origin}: {name} is {value!r}; expected true or false")
    return value


def _wants_history(config: Declared) -> bool:
    """``history: true`` (or the columns it tracks): scaffold an SCD type 2
    history model."""
    return column_settings.wants_history(config)


def _validated(config: Declared) -> Declared:
    """``config`` once each of its settings is checked (a wrong one stops
    sync, naming the file it came from)."""
    _decimal_format(config)
    _schema_changes(config)
    _wants_history(config)
    column_settings.ignore_null_updates(config)
    _flag(config, "snapshot_deletes")
    _flag(config, "changes")
    prefix = config.settings.get("notifications_for")
    if prefix is not None and (not isinstance(prefix, str) or not prefix):
        raise SpecError(
            f"{config.origin}: notifications_for is {prefix!r}; expected a topic prefix"
        )
    limit = config.settings.get("max_value_bytes")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise SpecError(f"{config.origin}: max_value_bytes is {limit!r}; expected bytes, >= 1")
    _declared_names(config)
    column_settings.declared_docs(config)
    model_name = config.settings.get("model_name")
    if model_name is not None and not (
        isinstance(model_name, str) and re.fullmatch(r"[a-z_][a-z0-9_]{0,199}", model_name)
    ):
        raise SpecError(
            f"{config.origin}: model_name is {model_name!r}; expected a lowercase identifier"
            " (letters, digits, underscores; at most 200)"
        )
    key = config.settings.get("primary_key")
    if key is not None and not (
        isinstance(key, str) or (isinstance(key, list) and all(isinstance(k, str) for k in key))
    ):
        raise SpecError(f"{config.origin}: primary_key is {key!r}; expected a column or a list")
    return config


def _declared_names(config: Declared) -> dict[str, str]:
    """The declaration's ``column_names`` ({source column: Spark column}),
    checked: a wrong one leaves the topic out, naming the file."""
    value = config.settings.get("column_names") or {}
    problem = None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in value.items()
    ):
        problem = "expected a mapping {source column: Spark column}"
    elif len({spark_key(v) for v in value.values()}) != len(value):
        problem = "two source columns map to one Spark column (Spark compares names ignoring case)"
    if problem is not None:
        raise SpecError(f"{config.origin}: column_names is {value!r}; {problem}")
    return dict(value)


def _named(spec: TopicSpec, config: Declared, known: TopicSpec | None) -> TopicSpec:
    """``spec`` with its row columns' Spark names (column_names): the
    declaration's mapping first, then the stored spec's, then the rule."""
    if spec.kind != CHANGES:
        return spec
    kept = (known.column_names if known is not None else {}) | _declared_names(config)
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


def _declaration(config: Declared, spec: TopicSpec, given: tuple[str, ...]) -> Declared:
    """What sync writes as the topic's declaration: the person's settings
    (the declaration's, a landing topic.yml's it imports) and a key given
    on the command line (--primary-key). What sync derives — the key of the
    key schema, the columns' Spark names — lives in the generated spec,
    never in the declaration: a person's setting overrides it, and deleting
    one means "use what the data says" (issue 55)."""
    settings = dict(config.settings)
    if given and spec.shape == connectors.ROWS:
        settings["primary_key"] = given[0] if len(given) == 1 else list(given)
    return Declared(config.topic, settings, config.origin, config.imported)


def _data_key(
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
    return configured or _data_key(connector, collected.key_schema, collected.value_schema)


def _key_changed(result: SyncResult, old: TopicSpec, new: TopicSpec) -> None:
    """A topic whose merge key changed: its generated models take the new
    key, and its models are rebuilt from the raw landing (a table merged on
    the old key cannot be merged on another)."""
    result.rebuild.append(new.topic)
    result.warnings.append(
        f"{new.topic}: primary key {list(old.primary_key)} -> {list(new.primary_key)}: its"
        " models are rebuilt from the raw landing at the next run; the key tests in its"
        " current-state view's properties are yours to update"
    )


def _head_digest(path: Path, length: int) -> str:
    return file_digest(path, min(length, _HEAD))


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
        return cls(digest, loaded.get("files", {}), loaded.get("seen", {}))

    def save(self, path: Path, digest: str) -> None:
        self.specs_digest = digest
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {"specs_digest": self.specs_digest, "files": self.files, "seen": self.seen}
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
    topic_dir: Path, state: ScanState, known: TopicSpec | None = None, policy: str = QUARANTINE
) -> tuple[TopicSchemas, bool, int]:
    """Scan what is new in one topic folder: (schemas, anything new, bytes).
    A MongoDB topic's new events are read against the document type already
    ``known`` (an update's `tags.0` addresses an item of a known array); new
    schema versions are judged against the table schema ``known`` holds,
    under the topic's schema-change ``policy``."""
    collected = TopicSchemas(
        topic_dir.name,
        seen=set(state.seen.get(topic_dir.name, ())),
        document=known.document if known is not None else None,
        policy=policy,
        established=known.value_schema if known is not None else None,
    )
    new = False
    scanned = 0
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
    config: Declared,
    primary_key: tuple[str, ...] = (),
    specs: dict[str, TopicSpec] | None = None,
) -> tuple[TopicSpec | None, str | None]:
    """The spec of what was collected of one topic, or ``(None, reason)``.
    A topic without schema blocks uses the schema its declaration or folder
    gives (see NO_SCHEMA_HELP), resolved against ``specs``."""
    declared = config.settings.get("connector")
    if declared is not None and connectors.shape_of(str(declared)) == connectors.ROWS:
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
    connector = collected.connector or connector or config.settings.get("connector")
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
        primary_key=_primary_key(
            collected, connector, primary_key or _configured_key(config.settings)
        ),
        value_schema=value_schema,
        key_schema=key_schema,
        schema_fingerprints=frozenset(collected.schema_fingerprints),
        decimal_scales=decimal_scales(collected.versions),
        decimal_format=_decimal_format(config),
        schema_changes=_schema_changes(config),
        incompatible_versions={fp: tuple(c) for fp, c in collected.incompatible.items()},
        invalid_versions=dict(collected.invalid),
        version_columns={
            fp: columns
            for fp, schema in collected.versions.items()
            if (columns := version_raw_columns(schema))
        },
    )
    return spec, None


def _leave_out_unsafe(
    project: Path,
    result: SyncResult,
    specs: dict[str, TopicSpec],
    every: dict[str, topics.Topic],
    rendered: dict[str, str],
) -> dict[Path, str] | None:
    """Leave out of this sync the topics whose spec file or generated files
    fail ``code_check`` (noted in ``result.failed``): a topic keeps the spec
    and declaration it had (its new schema versions wait; ``specs`` and
    ``every`` say so), a new one gets no files. Returns the generated files
    it checked when no topic was left out (the files sync writes then), else
    None. ``rendered``: where each spec file's text is kept, by topic
    (spec_files.stale reads it)."""
    found: dict[str, str] = {}
    for topic, spec in result.specs.items():
        text = rendered[topic] = spec_files.render_file(spec)
        path = spec_files.spec_path(project, topic)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue  # checked when it was written
        if (why := sql_problem(text)) is not None:
            found[topic] = f"its generated spec would not be safe to parse ({why})"
    candidates = {t: every[t] for t in result.specs if t not in found}
    wanted = generated_models.wanted_files(project, candidates, every, failed=found)
    for topic, why in found.items():
        result.failed[topic] = why
        del result.specs[topic]
        rendered.pop(topic, None)
        if spec_files.spec_path(project, topic).exists():
            stored = spec_files.read_file(spec_files.spec_path(project, topic).read_text("utf-8"))
            specs[topic] = stored
            every[topic] = topics.Topic(stored, topics.stored_settings(project, topic))
        else:
            specs.pop(topic, None)
            every.pop(topic, None)
    return None if found else wanted


def _sync_topic(
    topic_dir: Path,
    config: Declared,
    state: ScanState,
    specs: dict[str, TopicSpec],
    result: SyncResult,
    given_key: tuple[str, ...],
    progress: Any,
) -> None:
    """Scan what is new of one topic and bring its spec up to date in
    ``specs`` and ``result`` (or note why it is skipped or left out)."""
    started = time.monotonic()
    policy = _schema_changes(config)
    collected, new, scanned = collect_topic(topic_dir, state, specs.get(topic_dir.name), policy)
    result.bytes_scanned += scanned
    if not new and topic_dir.name in specs:
        result.files_unchanged += 1
        stored = specs[topic_dir.name]
        specs[topic_dir.name] = result.specs[topic_dir.name] = stored.with_policy(policy)
        if stored.incompatible_versions and not specs[topic_dir.name].incompatible_versions:
            result.rebuild.append(topic_dir.name)  # the policy changed, nothing landed
        # the declared key, else (none declared, or one deleted) the data's
        wanted_key = _configured_key(config.settings) or _data_key(
            stored.connector, stored.key_schema, stored.value_schema
        )
        if wanted_key and stored.primary_key and wanted_key != stored.primary_key:
            rekeyed = replace(specs[topic_dir.name], primary_key=wanted_key)
            specs[topic_dir.name] = result.specs[topic_dir.name] = rekeyed
            _key_changed(result, stored, rekeyed)
        try:
            named = _named(specs[topic_dir.name], config, stored)
        except SpecError as error:
            result.failed[topic_dir.name] = str(error)
            del result.specs[topic_dir.name]
            specs[topic_dir.name] = stored
            return
        specs[topic_dir.name] = result.specs[topic_dir.name] = named
        return
    if progress is not None and scanned:
        progress(
            f"scanned {topic_dir.name}: {scanned / 1e6:.1f} MB, {collected.events} events,"
            f" {len(collected.seen)} distinct schema text(s), {time.monotonic() - started:.1f}s"
        )
    known = specs.get(topic_dir.name)
    spec, reason = spec_for_topic(topic_dir, collected, config, given_key, specs)
    if spec is None and known is not None:
        spec = known  # nothing new that changes it (e.g. known schemas only)
    elif spec is not None and known is not None:
        spec = spec.merged_with(known)
    if known is not None and known.incompatible_versions and spec is not None:
        spec = spec.with_policy(policy)
        if not spec.incompatible_versions:
            result.rebuild.append(topic_dir.name)
    if spec is None:
        result.skipped[topic_dir.name] = reason or "unknown"
        return
    try:
        if spec.shape == connectors.ROWS:
            check_decodable(spec.topic, row_schema(spec.value_schema))
            if unkept := unkept_nested_fields(row_schema(spec.value_schema)):
                result.failed[spec.topic] = (
                    f"nested field(s) {', '.join(map(repr, unkept[:5]))}: the Hive"
                    " metastore cannot keep such a name inside a column's type (a table"
                    " holding it would break its schema's listing for every topic)"
                )
                return
        column_settings.check_columns(config, spec)
    except SpecError as error:
        result.skipped[spec.topic] = str(error)
        return
    try:
        spec = _named(spec, config, known)
    except SpecError as error:
        result.failed[spec.topic] = str(error)
        return
    if known is not None and known.primary_key and spec.primary_key != known.primary_key:
        _key_changed(result, known, spec)
    if not spec.primary_key and spec.kind == CHANGES:
        result.warnings.append(
            f"{spec.topic}: no key schema and no primary_key in its declaration "
            f"{config.origin}; only staging models are scaffolded"
        )
    specs[spec.topic] = spec
    result.specs[spec.topic] = spec


def sync(
    project: Path,
    landing: Path,
    primary_keys: dict[str, tuple[str, ...]] | None = None,
    check: bool = False,
    state_dir: Path | None = None,
    progress: Any = None,
) -> SyncResult:
    """Regenerate schemas (and scaffold models unless ``check``).

    With ``state_dir``, only what was not scanned before is scanned; a check
    always scans everything."""
    result = SyncResult()
    specs = spec_files.load_specs(project)
    stored = set(specs)
    state_path = None if check or state_dir is None else state_dir / STATE_FILE
    state = ScanState.load(state_path, spec_files.digest(project))
    dirs = topic_dirs(landing)
    result.failed.update(refused_dirs(landing))
    keys = primary_keys or {}
    # each topic's declaration (a wrong setting leaves its topic out, by name)
    configs: dict[str, Declared] = {}
    for topic_dir in list(dirs):
        try:
            configs[topic_dir.name] = _validated(declarations.declared(project, topic_dir))
        except SpecError as error:
            result.failed[topic_dir.name] = str(error)
            dirs.remove(topic_dir)
    # topics that borrow another topic's schema go after the others
    dirs.sort(key=lambda d: bool(configs[d.name].settings.get("schema_from")))
    for topic_dir in dirs:
        known = specs.get(topic_dir.name)
        try:
            _sync_topic(
                topic_dir,
                configs[topic_dir.name],
                state,
                specs,
                result,
                keys.get(topic_dir.name, ()),
                progress,
            )
        except Exception as error:  # noqa: BLE001 - one topic's trouble never stops another
            result.failed[topic_dir.name] = (
                f"its schema could not be read ({type(error).__name__}: {error})"
            )
            result.specs.pop(topic_dir.name, None)
            state.forget(topic_dir)
            if known is not None:
                specs[topic_dir.name] = known
            else:
                specs.pop(topic_dir.name, None)
    declared = {
        topic: _declaration(configs[topic], spec, keys.get(topic, ()))
        for topic, spec in result.specs.items()
        if topic in configs
    }
    # every topic of the project resolved once: what each generator reads
    every = topics.resolve(project, specs, {t: item.settings for t, item in declared.items()})
    # a new topic whose names another topic or file has is left out alone
    for refused, why in name_claims.clashes(project, every, set(result.specs) - stored).items():
        result.failed[refused] = why
        for held in (result.specs, specs, every, declared):
            held.pop(refused, None)
    rendered: dict[str, str] = {}
    checked = _leave_out_unsafe(project, result, specs, every, rendered)
    wanted = [declared[topic] for topic in sorted(result.specs) if topic in declared]
    result.stale = spec_files.stale(project, specs, rendered)
    synced = {topic: every[topic] for topic in sorted(result.specs)}
    if check:
        result.declared = declarations.stale(project, wanted)
        wanted_files = (
            checked
            if checked is not None
            else generated_models.wanted_files(project, synced, every)
        )
        result.models = generated_models.stale(wanted_files)
        result.generated_changed = bool(result.stale or result.declared or result.models)
        check_project(project / "models")
        return result
    result.declared = declarations.write(project, wanted)
    result.generated_changed = bool(result.stale or result.declared)
    result.respecified = spec_files.write_specs(project, specs, result.stale)
    if state_path is not None:
        state.save(state_path, spec_files.digest(project))
    result.scaffolded = scaffold_all(project, list(synced.values()))
    for topic in synced.values():
        spec = topic.spec
        if topic.history and (reason := history_unsupported(spec)) is not None:
            result.warnings.append(f"{spec.topic}: history: true ignored: {reason}")
        if topic.changes and "state" not in topic_layers(spec, False):
            result.warnings.append(
                f"{spec.topic}: changes: true ignored: the topic has no state table"
                " (a change feed reads one: MongoDB documents are replayed, a topic without"
                " a key is not merged)"
            )
    wanted_models = (
        checked
        if checked is not None and not result.scaffolded
        else generated_models.wanted_files(project, synced, every)
    )
    result.models = generated_models.write(wanted_models)
    check_project(project / "models")
    return result
