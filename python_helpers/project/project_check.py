"""Check that the dbt properties files of a project still parse as dbt
needs them: every file is YAML, and no model or source table is declared
twice. ``sync`` runs it after writing, so it fails naming the file instead
of leaving a project `dbt build` refuses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML has it: ~10x faster on a project of hundreds
# of properties files, read on every sync
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ProjectError(ValueError):
    """The project's properties files would not parse."""


# what each properties file said when it was last parsed: (text, content).
# A sync reads the project's properties several times (which topics have
# models, before and after scaffolding; the duplicate check): a file whose
# text is unchanged is not parsed again (hundreds of files at 500 topics).
_PARSED: dict[Path, tuple[str, Any]] = {}


def _parsed(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    cached = _PARSED.get(path)
    if cached is not None and cached[0] == text:
        return cached[1]
    try:
        loaded = yaml.load(text, Loader=_LOADER)  # noqa: S506
    except yaml.YAMLError as error:
        raise ProjectError(f"{path}: not valid YAML: {error}") from None
    _PARSED[path] = (text, loaded)
    return loaded


def read_properties(models: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every properties file under ``models`` with its content (shared
    between calls: read it, do not change it); raises ProjectError naming a
    file that is not YAML."""
    for path in sorted([*models.rglob("*.yml"), *models.rglob("*.yaml")]):
        loaded = _parsed(path.resolve())
        if loaded is None:
            continue
        if not isinstance(loaded, dict):
            raise ProjectError(f"{path}: expected a mapping at the top level")
        yield path, loaded


def check_project(models: Path) -> None:
    """Raise ProjectError when a model or a source table is declared twice,
    or a model file name is used twice."""
    declared: dict[str, Path] = {}
    sources: dict[str, Path] = {}
    for path, loaded in read_properties(models):
        for model in loaded.get("models") or []:
            name = model.get("name") if isinstance(model, dict) else None
            if not name:
                raise ProjectError(f"{path}: a model entry without a name")
            if name in declared:
                raise ProjectError(
                    f"{path}: model {name!r} is declared in {declared[name]} too"
                    " (dbt: two schema.yml entries for the same resource)"
                )
            declared[name] = path
        for source in loaded.get("sources") or []:
            name = source.get("name") if isinstance(source, dict) else None
            if not name:
                raise ProjectError(f"{path}: a source entry without a name")
            # a source's tables may be declared in several files (each topic's
            # generated properties declares its raw table), each table once
            for table in source.get("tables") or []:
                key = f"{name}.{table.get('name') if isinstance(table, dict) else table}"
                if key in sources:
                    raise ProjectError(
                        f"{path}: source table {key!r} is declared in {sources[key]} too"
                    )
                sources[key] = path
    files: dict[str, Path] = {}
    for path in sorted(models.rglob("*.sql")):
        if path.stem in files:
            raise ProjectError(
                f"{path}: model name {path.stem!r} is used by {files[path.stem]} too"
            )
        files[path.stem] = path
