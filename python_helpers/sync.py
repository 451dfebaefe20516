"""``sync``: bring generated schemas and scaffolded models up to date.

For every topic of a landing: gather and merge its embedded schema blocks,
find its connector (``source.connector``) and primary key (the key schema's
fields, or ``primary_key`` in the topic folder's ``topic.yml``, or the
``--primary-key`` option), regenerate ``macros/generated/cdc_topic_schemas.sql``
and scaffold models for topics that have none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from python_helpers.generate import (
    GENERATED_MACRO,
    SpecError,
    TopicSpec,
    read_macro,
    render_macro,
    row_schema,
)
from python_helpers.landing import TOPIC_CONFIG_FILE, read_topic, topic_dirs
from python_helpers.scaffold import scaffold, scaffolded_topics
from python_helpers.topic_schema import TopicSchemas, collect


@dataclass
class SyncResult:
    """What a sync found and changed."""

    specs: dict[str, TopicSpec] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    generated_changed: bool = False
    scaffolded: list[Path] = field(default_factory=list)


def _configured_key(topic_dir: Path) -> tuple[str, ...]:
    config_path = topic_dir / TOPIC_CONFIG_FILE
    if not config_path.exists():
        return ()
    loaded = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    key = loaded.get("primary_key") or ()
    return (key,) if isinstance(key, str) else tuple(str(k) for k in key)


def _primary_key(collected: TopicSchemas, configured: tuple[str, ...]) -> tuple[str, ...]:
    if configured:
        return configured
    if collected.key_schema is not None and collected.key_schema.type == "struct":
        return tuple(f.name for f in collected.key_schema.fields)
    return ()


def spec_for_topic(
    topic_dir: Path, primary_key: tuple[str, ...] = ()
) -> tuple[TopicSpec | None, str | None]:
    """The spec of one landed topic, or ``(None, reason)`` when it has none."""
    collected = collect(topic_dir.name, read_topic(topic_dir))
    if collected.value_schema is None:
        return None, (
            f"{collected.events} events and none carries a schema block "
            "(JsonConverter schemas.enable=false?)"
        )
    if not collected.connector:
        return None, "no event names its connector (payload.source.connector)"
    spec = TopicSpec(
        topic=topic_dir.name,
        connector=collected.connector,
        source_table=collected.source_table,
        primary_key=_primary_key(collected, primary_key or _configured_key(topic_dir)),
        value_schema=collected.value_schema,
        key_schema=collected.key_schema,
    )
    return spec, None


def sync(
    project: Path,
    landing: Path,
    primary_keys: dict[str, tuple[str, ...]] | None = None,
    check: bool = False,
) -> SyncResult:
    """Regenerate schemas (and scaffold models unless ``check``)."""
    result = SyncResult()
    macro_path = project / GENERATED_MACRO
    old_text = macro_path.read_text(encoding="utf-8") if macro_path.exists() else ""
    specs = read_macro(old_text) if old_text else {}
    for topic_dir in topic_dirs(landing):
        spec, reason = spec_for_topic(topic_dir, (primary_keys or {}).get(topic_dir.name, ()))
        if spec is None:
            result.skipped[topic_dir.name] = reason or "unknown"
            continue
        if spec.topic in specs:
            spec = spec.merged_with(specs[spec.topic])
        try:
            row_schema(spec.value_schema)
        except SpecError as error:
            result.skipped[spec.topic] = str(error)
            continue
        if not spec.primary_key:
            result.warnings.append(
                f"{spec.topic}: no key schema and no primary_key in "
                f"{TOPIC_CONFIG_FILE}; only staging models are scaffolded"
            )
        specs[spec.topic] = spec
        result.specs[spec.topic] = spec
    new_text = render_macro(specs)
    result.generated_changed = new_text != old_text
    if check:
        return result
    if result.generated_changed:
        macro_path.parent.mkdir(parents=True, exist_ok=True)
        macro_path.write_text(new_text, encoding="utf-8")
    existing = scaffolded_topics(project)
    for topic in sorted(result.specs):
        if topic not in existing:
            for path in scaffold(project, result.specs[topic]):
                if path not in result.scaffolded:
                    result.scaffolded.append(path)
    return result
