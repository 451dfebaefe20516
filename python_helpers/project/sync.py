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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.land.kafka_records import Records
from python_helpers.land.landing import (
    refused_dirs,
    topic_dirs,
)
from python_helpers.project import generated_models, name_claims
from python_helpers.project.code_check import sql_problem
from python_helpers.project.project_check import check_project
from python_helpers.project.scaffold import scaffold_all
from python_helpers.project.topic_properties import history_unsupported, topic_layers
from python_helpers.schema.envelope import SpecError
from python_helpers.topic import declarations, spec_files, topics
from python_helpers.topic.declarations import Declared
from python_helpers.topic.generate import TopicSpec
from python_helpers.topic.resolve import Resolved, resolve_topic
from python_helpers.topic.scan import ScanState
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


def _record(
    resolved: Resolved,
    topic: str,
    specs: dict[str, TopicSpec],
    result: SyncResult,
    progress: Any,
) -> None:
    """What resolving ``topic`` found, into ``specs`` and ``result``."""
    result.bytes_scanned += resolved.scanned
    result.files_unchanged += resolved.unchanged
    if resolved.rebuild:
        result.rebuild.append(topic)
    result.warnings += resolved.warnings
    if progress is not None and resolved.progress:
        progress(resolved.progress)
    if resolved.spec is not None:
        specs[topic] = result.specs[topic] = resolved.spec
    elif resolved.failed is not None:
        result.failed[topic] = resolved.failed
    else:
        result.skipped[topic] = resolved.skipped or "unknown"


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


def sync(
    project: Path,
    landing: Path,
    primary_keys: dict[str, tuple[str, ...]] | None = None,
    check: bool = False,
    state_dir: Path | None = None,
    progress: Any = None,
    records: dict[str, Records] | None = None,
) -> SyncResult:
    """Regenerate schemas (and scaffold models unless ``check``).

    With ``state_dir``, only what was not scanned before is scanned; a check
    always scans everything. The topics landed from a Kafka-source table
    (``landing: {table: ...}`` in their declaration) have no files to
    scan: they are synced from ``records`` (what their landing read, through
    Spark: the run calls sync again after landing them), and only they."""
    result = SyncResult()
    specs = spec_files.load_specs(project)
    stored = set(specs)
    state_path = None if check or state_dir is None else state_dir / STATE_FILE
    state = ScanState.load(state_path, spec_files.digest(project))
    if records is not None:
        dirs = [landing / topic for topic in sorted(records)]
    else:
        tabled = declarations.table_landings(project)
        dirs = [d for d in topic_dirs(landing) if d.name not in tabled]
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
            resolved = resolve_topic(
                topic_dir,
                parsed[topic_dir.name],
                state,
                specs,
                keys.get(topic_dir.name, ()),
                None if records is None else records[topic_dir.name],
            )
            _record(resolved, topic_dir.name, specs, result, progress)
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
