"""What a topic weighs in a project: its files and their lines.

A topic's files are its declaration (``topics/<topic>.yml``), its spec
macro (``macros/generated/topics/<topic>.sql``), every properties file
that declares one of its models (``meta.cdc_topic``) and declares only
its models, and the SQL file of each of its models. Files shared between
topics (a connector's sources file, the consistent views) are not counted.

    python -m bench.weight [--project DIR] [TOPIC ...]

prints a table per topic (files, lines, YAML lines, lines a person owns)
and the mean over every topic of the project, and writes it to
``bench/results/weight-<name>.md`` with ``--save NAME``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Weight:
    topic: str
    files: int
    lines: int
    yaml_lines: int
    declaration_lines: int


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _models_by_file(project: Path) -> dict[Path, set[str]]:
    """Properties file -> the topics its models belong to (None: a model
    of no topic)."""
    found: dict[Path, set[str]] = {}
    for path in sorted((project / "models").rglob("*.yml")):
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for model in loaded.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or model.get("meta") or {}
            found.setdefault(path, set()).add(str(meta.get("cdc_topic")))
    return found


def _model_names(path: Path) -> list[str]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [str(model["name"]) for model in loaded.get("models") or []]


def weights(project: Path) -> list[Weight]:
    by_file = _models_by_file(project)
    sql = {path.stem: path for path in (project / "models").rglob("*.sql")}
    result = []
    for declaration in sorted((project / "topics").glob("*.yml")):
        topic = declaration.stem
        files = [declaration]
        spec = project / "macros" / "generated" / "topics" / f"{topic}.sql"
        if spec.exists():
            files.append(spec)
        for path, topics in by_file.items():
            if topics == {topic}:
                files.append(path)
                files.extend(sql[name] for name in _model_names(path) if name in sql)
        files = sorted(set(files))
        result.append(
            Weight(
                topic=topic,
                files=len(files),
                lines=sum(_lines(path) for path in files),
                yaml_lines=sum(_lines(path) for path in files if path.suffix == ".yml"),
                declaration_lines=_lines(declaration),
            )
        )
    return result


def table(rows: list[Weight], chosen: list[str]) -> str:
    head = "| topic | files | lines | YAML lines | declaration lines |\n|---|---:|---:|---:|---:|\n"
    body = "".join(
        f"| `{row.topic}` | {row.files} | {row.lines} | {row.yaml_lines} |"
        f" {row.declaration_lines} |\n"
        for row in rows
        if row.topic in chosen
    )
    mean = (
        f"| mean of {len(rows)} topics | {statistics.mean(r.files for r in rows):.1f} |"
        f" {statistics.mean(r.lines for r in rows):.0f} |"
        f" {statistics.mean(r.yaml_lines for r in rows):.0f} |"
        f" {statistics.mean(r.declaration_lines for r in rows):.1f} |\n"
    )
    return head + body + mean


def totals(project: Path) -> str:
    models = project / "models"
    yml = list(models.rglob("*.yml"))
    every = [path for path in models.rglob("*") if path.is_file()]
    return (
        f"models/: {len(every)} files, {sum(_lines(p) for p in every)} lines;"
        f" {len(yml)} YAML files, {sum(_lines(p) for p in yml)} YAML lines"
    )


DEFAULT_TOPICS = [
    "PostgreSQL_server.public.customers",
    "shopdb.shop.accounts",
    "rw_mongo.inventory.customers",
    "shop.public.coupons",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path("."))
    parser.add_argument("--save", help="write bench/results/weight-<SAVE>.md")
    parser.add_argument("topics", nargs="*")
    args = parser.parse_args()
    rows = weights(args.project)
    text = (
        f"Topic weight of {args.project.resolve().name} ({platform.node()}):\n\n"
        + table(rows, args.topics or DEFAULT_TOPICS)
        + "\n"
        + totals(args.project)
        + "\n"
    )
    print(text)
    if args.save:
        Path("bench/results", f"weight-{args.save}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
