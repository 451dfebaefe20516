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

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.land.landing import (
    refused_dirs,
    topic_dirs,
)
from python_helpers.project import generated_models, name_claims
from python_helpers.project.code_check import sql_problem
from python_helpers.project.project_check import check_project
from python_helpers.project.scaffold import scaffold_all
from python_helpers.project.topic_properties import history_unsupported, topic_layers
from python_helpers.schema.envelope import SpecError, row_schema
from python_helpers.schema.metadata_topics import CHANGES
from python_helpers.schema.spark_types import (
    check_decodable,
    unkept_nested_fields,
)
from python_helpers.topic import column_settings, declarations, spec_files, topics
from python_helpers.topic.declarations import Declared
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.resolve import ScanState, collect_topic, data_key, named, spec_for_topic
from python_helpers.topic.settings import Declaration

STATE_FILE = "sync-state.json"


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
            every[topic] = topics.Topic(stored, topics.stored(project, topic))
        else:
            specs.pop(topic, None)
            every.pop(topic, None)
    return None if found else wanted


def _sync_topic(
    topic_dir: Path,
    config: Declaration,
    state: ScanState,
    specs: dict[str, TopicSpec],
    result: SyncResult,
    given_key: tuple[str, ...],
    progress: Any,
) -> None:
    """Scan what is new of one topic and bring its spec up to date in
    ``specs`` and ``result`` (or note why it is skipped or left out)."""
    started = time.monotonic()
    policy = config.schema_changes
    collected, new, scanned = collect_topic(topic_dir, state, specs.get(topic_dir.name), policy)
    result.bytes_scanned += scanned
    if not new and topic_dir.name in specs:
        result.files_unchanged += 1
        stored = specs[topic_dir.name]
        specs[topic_dir.name] = result.specs[topic_dir.name] = stored.with_policy(policy)
        if stored.incompatible_versions and not specs[topic_dir.name].incompatible_versions:
            result.rebuild.append(topic_dir.name)  # the policy changed, nothing landed
        # the declared key, else (none declared, or one deleted) the data's
        wanted_key = config.primary_key or data_key(
            stored.connector, stored.key_schema, stored.value_schema
        )
        if wanted_key and stored.primary_key and wanted_key != stored.primary_key:
            rekeyed = replace(specs[topic_dir.name], primary_key=wanted_key)
            specs[topic_dir.name] = result.specs[topic_dir.name] = rekeyed
            _key_changed(result, stored, rekeyed)
        try:
            renamed = named(specs[topic_dir.name], config, stored)
        except SpecError as error:
            result.failed[topic_dir.name] = str(error)
            del result.specs[topic_dir.name]
            specs[topic_dir.name] = stored
            return
        specs[topic_dir.name] = result.specs[topic_dir.name] = renamed
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
        spec = named(spec, config, known)
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
    parsed: dict[str, Declaration] = {}
    for topic_dir in list(dirs):
        try:
            config = declarations.declared(project, topic_dir)
            parsed[topic_dir.name] = Declaration.parse(config.settings, config.origin)
            configs[topic_dir.name] = config
        except SpecError as error:
            result.failed[topic_dir.name] = str(error)
            dirs.remove(topic_dir)
    # topics that borrow another topic's schema go after the others
    dirs.sort(key=lambda d: parsed[d.name].schema_from is not None)
    for topic_dir in dirs:
        known = specs.get(topic_dir.name)
        try:
            _sync_topic(
                topic_dir,
                parsed[topic_dir.name],
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
    every = topics.resolve(
        project,
        specs,
        {t: Declaration.parse(item.settings, item.origin) for t, item in declared.items()},
    )
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
