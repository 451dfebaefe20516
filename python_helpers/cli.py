"""Command line: ``python -m python_helpers {land,sync,schema}``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from python_helpers.engine.jars import install_iceberg_jar
from python_helpers.land.landing import topic_dirs
from python_helpers.project.init_project import LANDING, InitError, init_project
from python_helpers.project.project_check import ProjectError
from python_helpers.project.yaml_edit import PropertiesError
from python_helpers.run import build_plan, rebuilds
from python_helpers.schema.connect_schema import SchemaError, parse_schema
from python_helpers.schema.spark_types import fields_ddl, raw_type
from python_helpers.spec import spec_files
from python_helpers.spec.generate import SpecError
from python_helpers.spec.sync import sync

# a project's own landing folder (`init` makes one), else this checkout's samples
PROJECT_LANDING = Path(LANDING)
SAMPLE_LANDING = Path("sample_landing")
DEFAULT_STATE = Path(".state")


def _landing(value: str | None) -> Path:
    default = PROJECT_LANDING if PROJECT_LANDING.is_dir() else SAMPLE_LANDING
    return Path(value or os.environ.get("CDC_LANDING_DIR") or default)


def _state() -> Path:
    return Path(os.environ.get("CDC_STATE_DIR") or DEFAULT_STATE)


def _parse_keys(values: Sequence[str]) -> dict[str, tuple[str, ...]]:
    keys: dict[str, tuple[str, ...]] = {}
    for value in values:
        topic, _, columns = value.partition("=")
        if not topic or not columns:
            raise SystemExit(f"--primary-key wants TOPIC=col[,col...], got {value!r}")
        keys[topic] = tuple(c.strip() for c in columns.split(",") if c.strip())
    return keys


def _cmd_land(args: argparse.Namespace) -> int:
    return _land(args)[0]


def _land(args: argparse.Namespace) -> tuple[int, list[Any]]:
    """Land what is new: (exit code, the landing's report per topic)."""
    from python_helpers.engine.sql_engine import open_engine, target_name
    from python_helpers.land import raw_store

    landing = _landing(args.landing)
    state = _state()
    _refuse_old_state(state)
    known = spec_files.known_topics(Path("."))
    fingerprint = raw_store.landing_fingerprint(landing, known)
    changed = raw_store.changed_topics(fingerprint, state)
    if changed is not None and not changed:
        print(f"nothing new to land in {landing}: every file is as the last landing left it")
        return 0, []
    clean = raw_store.clean_topics(state)
    raw_store.forget_landing(state)
    unmodelled = [d.name for d in topic_dirs(landing) if d.name not in known] if known else []
    for topic in unmodelled:
        print(f"not landing {topic}: sync generated no schema for it (see its reason above)")
    where = "Spark starting" if target_name() == "local" else "through the cluster target"
    what = "every topic" if changed is None else f"{len(changed)} topic(s) with changed files"
    print(f"landing {landing}: {what} ({where})", flush=True)
    reports = raw_store.land_all(
        open_engine(Path(".")),
        landing,
        lambda line: print(line, flush=True),
        known,
        bool(known),
        changed,
        clean,
    )
    new = {r.topic for r in reports if r.landed or r.rolled_back}
    build_plan.add(state, set(known) if changed is None else new | (changed & set(known)))
    raw_store.remember_landing(fingerprint, state)
    header = ("topic", "files", "unchanged", "read", "landed", "already", "unreadable", "s")
    print(f"{header[0]:<40}" + "".join(f"{h:>11}" for h in header[1:]))
    for r in reports:
        cells = (r.files_read, r.files_unchanged, r.read, r.landed, r.already_landed, r.unreadable)
        print(f"{r.topic:<40}" + "".join(f"{c:>11}" for c in cells) + f"{r.seconds:>11.1f}")
    total = sum(r.landed for r in reports)
    print(f"{total} record(s) landed into {raw_store.RAW_SCHEMA}.<topic> (Iceberg)")
    return 0, reports


def _refuse_old_state(state: Path) -> None:
    """The first layout kept raw records as JSON files under <state>/raw,
    read through external JSON tables: it cannot be appended to."""
    if any((state / "raw").glob("*/batch-*.jsonl")):
        raise SystemExit(
            f"error: {state} holds a landing of the older layout (JSON files under"
            f" {state / 'raw'}). Raw tables are Iceberg tables now: run `make clean`"
            " (or delete that folder), then `make run` to land and build again from"
            " the landing folder; nothing is lost, the landing is the source."
        )


def _cmd_sync(args: argparse.Namespace) -> int:
    try:
        result = sync(
            Path(args.project),
            _landing(args.landing),
            _parse_keys(args.primary_key),
            args.check,
            state_dir=_state(),
            progress=lambda line: print(line, flush=True),
        )
    except (ProjectError, PropertiesError, FileExistsError, SpecError) as error:
        print(f"error: sync left the project unchanged past this point: {error}", file=sys.stderr)
        return 1
    for topic, reason in sorted(result.skipped.items()):
        print(f"skipped {topic}: {reason}", file=sys.stderr)
    if not args.check:
        build_plan.add(_state(), result.respecified)
    if result.rebuild and not args.check:
        rebuilds.add(_state(), result.rebuild)
        for topic in result.rebuild:
            print(f"{topic}: its models are rebuilt from the raw landing by the next `run`")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.check:
        if result.generated_changed:
            paths = result.declared + result.stale + result.models
            stale = ", ".join(str(path) for path in paths[:5])
            more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
            print(f"out of date: {stale}{more}; run `python -m python_helpers sync`")
            return 1
        print("generated schemas are up to date")
        return 0
    print(
        f"{len(result.specs)} topic(s) synced ({result.files_unchanged} with nothing new,"
        f" {result.bytes_scanned / 1e6:.1f} MB scanned); generated schemas "
        f"{'updated' if result.generated_changed else 'unchanged'}"
    )
    for path in result.declared:
        print(f"declared {path}")
    for path in result.scaffolded:
        print(f"scaffolded {path}")
    for path in result.models:
        print(f"regenerated {path}")
    for path in result.moved:
        print(f"moved the properties of generated models out of {path} (now generated)")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    text = Path(args.file).read_text(encoding="utf-8") if args.file != "-" else sys.stdin.read()
    try:
        block = json.loads(text)
        if isinstance(block, dict) and "schema" in block and "payload" in block:
            block = block["schema"]
        schema = parse_schema(block)
    except (ValueError, SchemaError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(fields_ddl(schema) if schema.type == "struct" else raw_type(schema))
    return 0


def _cmd_jars(args: argparse.Namespace) -> int:
    print(f"iceberg runtime: {install_iceberg_jar(_state())}")
    return 0


def _cmd_thrift(args: argparse.Namespace) -> int:
    from python_helpers.engine import thrift

    port = args.port or thrift.cluster_port(Path(args.project))
    server = thrift.Server(_state(), port)
    if args.action == "down":
        stopped = thrift.stop(server)
        print("thrift server stopped" if stopped else "no thrift server was running")
        return 0
    try:
        pid = thrift.start(Path(args.project), server)
    except RuntimeError as error:
        print(f"thrift server: {error}", file=sys.stderr)
        return 1
    print(
        f"thrift server on {thrift.HOST}:{port} (pid {pid}, log {server.log_file});"
        " use it with CDC_DBT_TARGET=cluster, stop it with `make thrift-down`"
    )
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    """sync, land and dbt in one process: one JVM and metastore start-up."""
    import time
    from datetime import UTC, datetime

    from python_helpers.run.metrics import from_landing
    from python_helpers.run.run_record import RunRecord

    steps: list[tuple[str, float]] = []
    started = time.monotonic()
    run_started = datetime.now(UTC)
    code = _cmd_sync(args)
    steps.append(("sync", time.monotonic() - started))
    if code:
        return code
    code, reports = _land(args)
    steps.append(("land", time.monotonic() - started))
    if code:
        return code
    record = RunRecord(from_landing(time.time_ns() // 1000, run_started, reports))
    dbt_args = [a for a in args.dbt_args if a != "--"] or ["build"]
    if topics := rebuilds.pending(_state()):
        from dbt.cli.main import dbtRunner  # seconds to import: only when dbt runs

        rebuild = ["build", "--full-refresh", "--select", *rebuilds.selectors(topics)]
        print(f"dbt {' '.join(rebuild)}", flush=True)
        record.dbt_starts(topics)
        result = dbtRunner().invoke(rebuild)
        record.dbt_done(result)
        if not result.success:
            print(f"the rebuild of {', '.join(topics)} failed; the next run tries again")
        else:
            rebuilds.done(_state())
        steps.append(("rebuild", time.monotonic() - started))
    planned = build_plan.plan(_state(), Path("."), dbt_args, args.all)
    if planned.args is None:
        print(f"{planned.reason}: no dbt (`run --all` builds everything)")
    else:
        record.dbt_starts(planned.topics)
        if not _build(args, dbt_args, planned, steps, started, record):
            record.keep(time.monotonic() - started)
            return 1
    if args.show and planned.args is not None:
        from python_helpers.engine.show import built_current_models, show_results

        only = built_current_models(Path("."), planned.topics) if planned.narrowed else None
        print(show_results(Path("."), args.rows, only=only))
    record.keep(time.monotonic() - started)
    return _export(args) or _done(started, steps)


def _build(
    args: argparse.Namespace,
    dbt_args: list[str],
    planned: build_plan.Plan,
    steps: list[tuple[str, float]],
    started: float,
    record: Any,
) -> bool:
    """Run the planned dbt build (and source freshness): whether it succeeded."""
    import time

    from dbt.cli.main import dbtRunner

    assert planned.args is not None
    print(f"dbt {' '.join(planned.args)}  ({planned.reason})", flush=True)
    result = dbtRunner().invoke(planned.args)
    record.dbt_done(result)
    steps.append(("dbt " + dbt_args[0], time.monotonic() - started))
    if not result.success:
        if result.exception is not None:  # dbt could not start: say why
            print(f"dbt failed: {result.exception}", file=sys.stderr)
        return False
    build_plan.succeeded(_state(), Path("."), planned)
    if args.freshness:
        _source_freshness(dbtRunner(), dbt_args, planned.topics if planned.narrowed else None)
        steps.append(("freshness", time.monotonic() - started))
    return True


def _export(args: argparse.Namespace) -> int:
    """``run --export``: write the asked tables as JSON."""
    if args.export:
        from python_helpers.engine.export import export_json

        Path(args.export).write_text(export_json(Path("."), args.export_table), encoding="utf-8")
    return 0


def _done(started: float, steps: list[tuple[str, float]]) -> int:
    """Print how long each step of a run took."""
    import time

    begins = [0.0] + [at for _, at in steps]
    summary = ", ".join(f"{name} {at - begins[i]:.1f}s" for i, (name, at) in enumerate(steps))
    print(f"done in {time.monotonic() - started:.1f}s ({summary})")
    return 0


def _source_freshness(runner: Any, dbt_args: list[str], topics: list[str] | None) -> None:
    """`dbt source freshness` (same target as ``dbt_args``), as a table: of
    the sources of ``topics`` (None: of every source)."""
    from python_helpers.engine.freshness import freshness_rows, render

    target = []
    if "--target" in dbt_args[:-1]:
        target = ["--target", dbt_args[dbt_args.index("--target") + 1]]
    selection = ["--select", *rebuilds.selectors(topics)] if topics else []
    if topics == []:
        return
    result = runner.invoke(["--quiet", "source", "freshness", *target, *selection])
    if result.exception is not None:
        print(f"source freshness failed: {result.exception}", file=sys.stderr)
        return
    print(render(freshness_rows(result.result)))


def _cmd_show(args: argparse.Namespace) -> int:
    from python_helpers.engine.show import show_results

    print(show_results(Path("."), args.rows))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from python_helpers.engine.sql_engine import open_engine
    from python_helpers.run import metrics, report

    rows = metrics.read_runs(open_engine(Path(".")), args.runs)
    if args.html:
        Path(args.html).write_text(report.render_html(rows), encoding="utf-8")
        print(f"wrote {args.html}: lag and throughput of the last {args.runs} run(s)")
    print(report.render_json(rows) if args.json else report.render_text(rows))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from python_helpers.engine.export import export_json

    print(export_json(Path("."), args.tables))
    return 0


LANDING_HELP = "landing directory (default: $CDC_LANDING_DIR, else landing/ or sample_landing/)"


def _cmd_init(args: argparse.Namespace) -> int:
    try:
        written = init_project(Path(__file__).resolve().parents[1], Path(args.directory))
    except InitError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(
        f"wrote {len(written)} files and folders under {args.directory}: the machinery, no samples"
    )
    print(
        f"next: put each topic's dump in {args.directory}/landing/<topic>/, then `make run` there"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the CLI."""
    parser = argparse.ArgumentParser(prog="python -m python_helpers", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    land = commands.add_parser("land", help="land topic dumps into the raw tables")
    land.add_argument("--landing", help=LANDING_HELP)
    land.set_defaults(run=_cmd_land)
    sync_cmd = commands.add_parser(
        "sync", help="regenerate schemas, scaffold models for new topics"
    )
    sync_cmd.add_argument("--landing", help=LANDING_HELP)
    sync_cmd.add_argument("--project", default=".", help="dbt project root (default: .)")
    sync_cmd.add_argument(
        "--primary-key",
        action="append",
        default=[],
        metavar="TOPIC=COLS",
        help="primary key of a topic without a key schema",
    )
    sync_cmd.add_argument(
        "--check", action="store_true", help="only check that the generated schemas are up to date"
    )
    sync_cmd.set_defaults(run=_cmd_sync)
    schema = commands.add_parser("schema", help="print the Spark DDL of one schema block or event")
    schema.add_argument(
        "file", help="a JSON file holding a schema block or a whole event ('-': stdin)"
    )
    schema.set_defaults(run=_cmd_schema)
    jars = commands.add_parser("jars", help="install and verify the Iceberg runtime jar")
    jars.set_defaults(run=_cmd_jars)
    run = commands.add_parser(
        "run",
        help="sync + land + dbt in one process (default dbt command: build)",
        description="sync, land, then dbt (args after --, default `build`) in one"
        " process, so Spark starts once.",
    )
    run.add_argument("--landing", help=LANDING_HELP)
    run.add_argument("--project", default=".", help="dbt project root (default: .)")
    run.add_argument("--show", action="store_true", help="print a few rows of every table after")
    run.add_argument(
        "--freshness",
        action="store_true",
        help="run `dbt source freshness` after dbt and print its results as a table",
    )
    run.add_argument("--rows", type=int, default=5)
    run.add_argument(
        "--all",
        action="store_true",
        help="build every model, not only those of the topics that changed since the last build",
    )
    run.add_argument(
        "--export", metavar="FILE", help="after dbt, write the --export-table tables as JSON"
    )
    run.add_argument(
        "--export-table", action="append", default=[], metavar="SCHEMA.TABLE", help="see --export"
    )
    run.add_argument("dbt_args", nargs=argparse.REMAINDER, help="dbt arguments after --")
    run.set_defaults(run=_cmd_run, primary_key=[], check=False)
    thrift_cmd = commands.add_parser(
        "thrift", help="start or stop a local Spark Thrift Server (the cluster target's endpoint)"
    )
    thrift_cmd.add_argument("action", choices=["up", "down"])
    thrift_cmd.add_argument(
        "--port", type=int, help="default: the cluster target's (CDC_SPARK_PORT, else 10000)"
    )
    thrift_cmd.add_argument("--project", default=".", help="dbt project root (default: .)")
    thrift_cmd.set_defaults(run=_cmd_thrift)
    show = commands.add_parser("show", help="print a few rows of every current-state table")
    show.add_argument("--rows", type=int, default=5)
    show.set_defaults(run=_cmd_show)
    init = commands.add_parser(
        "init", help="start a project for your own topics: the machinery without the samples"
    )
    init.add_argument("directory", help="a new or empty folder")
    init.set_defaults(run=_cmd_init)
    report_cmd = commands.add_parser(
        "report", help="what the last runs did, per run and topic (the metrics table)"
    )
    report_cmd.add_argument("--runs", type=int, default=20, help="how many runs (default 20)")
    report_cmd.add_argument(
        "--json", action="store_true", help="JSON, one object per run and topic"
    )
    report_cmd.add_argument(
        "--html", metavar="FILE", help="also write a page charting lag and throughput"
    )
    report_cmd.set_defaults(run=_cmd_report)
    export = commands.add_parser("export", help="print tables as JSON (types and rows)")
    export.add_argument("tables", nargs="+", help="schema.table names")
    export.set_defaults(run=_cmd_export)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
