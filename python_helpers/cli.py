"""The project's command line: ``python -m python_helpers <command>``.

``run`` does a whole pass (sync, land, dbt) or keeps watching; ``sync``,
``land``, ``dbt``, ``maintain``, ``report``, ``show`` and ``export`` are its
steps and views; ``init`` starts a project; ``--help`` lists them all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from python_helpers.engine.class_archive import ensure_archive, use_archive
from python_helpers.engine.jars import install_iceberg_jar
from python_helpers.engine.show import SHOWN_TABLES
from python_helpers.engine.watch_endpoint import state_dir
from python_helpers.project.init_project import InitError, init_project
from python_helpers.run import pipeline
from python_helpers.run.dbt_session import DbtSession
from python_helpers.schema.connect_schema import SchemaError, parse_schema
from python_helpers.schema.spark_types import fields_ddl, raw_type


def _cmd_land(args: argparse.Namespace) -> int:
    return pipeline.land(args)[0]


def _cmd_sync(args: argparse.Namespace) -> int:
    return pipeline.sync_step(args)


def _cmd_run(args: argparse.Namespace) -> int:
    from python_helpers.engine.watch_endpoint import serving_port

    if (port := serving_port(state_dir())) is not None:
        print(
            f"error: a watch runs on {state_dir()} (serving port {port}): it lands and builds"
            " what arrives; stop it (Ctrl-C or SIGTERM) before `run`",
            file=sys.stderr,
        )
        return 1
    if args.watch:
        from python_helpers.run.watch import watch

        return watch(args)
    return pipeline.run_once(args, DbtSession(keep_parsed=True))[0]


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
    print(f"iceberg runtime: {install_iceberg_jar(state_dir())}")
    print(f"class archive: {ensure_archive(Path('.'))}")
    return 0


def _cmd_lint(args: argparse.Namespace) -> int:
    from python_helpers.project.lint import lint

    return lint(Path("."), args.paths, state_dir(), args.processes)


def _cmd_thrift(args: argparse.Namespace) -> int:
    from python_helpers.engine import thrift

    port = args.port or thrift.cluster_port(Path(args.project))
    server = thrift.Server(state_dir(), port)
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


def _cmd_cluster(args: argparse.Namespace) -> int:
    from python_helpers.engine import standalone

    cluster = standalone.Cluster(
        state_dir(), port=args.port, web_port=args.web_port, workers=args.workers
    )
    if args.action == "down":
        stopped = standalone.stop(cluster)
        print("cluster stopped" if stopped else "no cluster was running")
        return 0
    try:
        standalone.start(cluster)
    except RuntimeError as error:
        print(f"cluster: {error}", file=sys.stderr)
        return 1
    print(
        f"standalone cluster at {cluster.url}: {cluster.workers} workers"
        f" (logs and work in {cluster.folder}); `make thrift-up` with"
        f" {standalone.MASTER_VARIABLE}={cluster.url} submits the Thrift server to it,"
        " `make cluster-down` stops it"
    )
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from python_helpers.engine.show import show_results

    print(show_results(Path("."), args.rows))
    return 0


def _check(args: argparse.Namespace) -> int:
    """``report --check``: 1 naming the topics that need attention, else 0."""
    try:
        findings, topics = _findings(args)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    for finding in findings:
        print(f"{finding.topic}: {finding.why}")
    bad = sorted({f.topic for f in findings})
    print(
        f"{len(bad)} of {topics} topic(s) need attention: {', '.join(bad)}"
        if bad
        else f"all {topics} topic(s) within their limits"
    )
    return 1 if bad else 0


def _findings(args: argparse.Namespace) -> tuple[list[Any], int]:
    """What needs attention (``run.alerts``) and of how many topics, from
    the state folder alone."""
    from python_helpers.engine.watch_endpoint import state_dir
    from python_helpers.run import alerts, metrics_log, prometheus, quarantine
    from python_helpers.topic import spec_files

    state = state_dir()
    newest = alerts.last_rows(metrics_log.read_runs(state, 10_000) or [])
    totals = prometheus.load(state)
    success = {t: v["last_success"] for t, v in totals["topics"].items() if "last_success" in v}
    given = {"max_lag": args.max_lag, "max_staleness": args.max_staleness}
    known = sorted(set(spec_files.known_topics(Path("."))) | set(newest))
    limits = alerts.topic_limits(Path("."), known, given)
    expected = quarantine.expected(Path("."))
    return alerts.check(newest, success, limits, expected=expected), len(limits)


def _cmd_report(args: argparse.Namespace) -> int:
    from python_helpers.engine.watch_endpoint import state_dir
    from python_helpers.run import metrics_log, report

    if args.check:
        return _check(args)

    rows = None if args.from_table else metrics_log.read_runs(state_dir(), args.runs)
    if rows is None:  # no run wrote the log here: the table (a Spark start)
        from python_helpers.engine.sql_engine import open_engine
        from python_helpers.run import metrics

        rows = metrics.read_runs(open_engine(Path(".")), args.runs)
    if args.html:
        _write_page(args, rows)
    print(report.render_json(rows) if args.json else report.render_text(rows))
    return 0


def _write_page(args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    """``report --html FILE``: the page (``run.report_page``), from the
    state folder alone."""
    from datetime import UTC, datetime

    from python_helpers.engine.watch_endpoint import state_dir
    from python_helpers.project import quarantine_reasons
    from python_helpers.run import quarantine, report_page

    try:
        findings, topics = _findings(args)
    except ValueError as error:  # a declaration's limit: the page still shows the runs
        print(f"warning: {error}; the page lists no finding", file=sys.stderr)
        findings, topics = [], len({row["topic"] for row in rows})
    page = report_page.Page(
        rows=rows,
        findings=findings,
        summary=quarantine.load(state_dir()),
        reasons=quarantine_reasons.reasons(Path(".")),
        topics=topics,
        now=datetime.now(UTC),
    )
    Path(args.html).write_text(report_page.render(page), encoding="utf-8")
    print(
        f"wrote {args.html}: what needs attention, then each topic over the last {args.runs} run(s)"
    )


def _cmd_maintain(args: argparse.Namespace) -> int:
    from python_helpers.engine.sql_engine import open_engine
    from python_helpers.run import maintenance, metrics

    nodes = metrics.manifest_nodes(Path("target") / "manifest.json")
    if not nodes:
        print(
            "error: no dbt manifest (target/manifest.json): run `make run` first", file=sys.stderr
        )
        return 1
    tables = maintenance.topic_tables(nodes, args.topic or None)
    if args.topic and not tables:
        print(f"error: no built models of topic(s) {', '.join(args.topic)}", file=sys.stderr)
        return 1
    if not args.topic:
        tables += maintenance.SHARED_TABLES
    engine = open_engine(Path("."))
    rules = maintenance.policy(Path("."))
    done = maintenance.maintain(engine, tables, rules, state_dir(), force=True, progress=print)
    print(done.line() or "maintenance: nothing to do")
    if (days := maintenance.marker_retention_days(Path("."))) is not None:
        return pipeline.purge_markers(DbtSession(), days)
    return 0


def _cmd_dbt(args: argparse.Namespace) -> int:
    """dbt with the project's defaults; while a watch serves this state
    folder, through the watch's endpoint (the ``cluster`` target)."""
    from python_helpers.engine.thrift import HOST
    from python_helpers.engine.watch_endpoint import serving_port

    env = dict(os.environ)
    env.setdefault("DBT_PROFILES_DIR", "profiles")
    port = serving_port(state_dir())
    if port is not None and not env.get("CDC_DBT_TARGET"):
        env |= {
            "CDC_DBT_TARGET": "cluster",
            "CDC_SPARK_METHOD": "thrift",
            "CDC_SPARK_HOST": HOST,
            "CDC_SPARK_PORT": str(port),
        }
        print(f"a watch serves {state_dir()}: dbt goes through {HOST}:{port}", file=sys.stderr)
    executable = Path(sys.executable).parent / "dbt"
    dbt_args = [a for a in args.dbt_args if a != "--"]
    os.execve(executable, [str(executable), *dbt_args], env)
    return 1  # not reached: execve replaces this process


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


def _cmd_capture(args: argparse.Namespace) -> int:
    from python_helpers.capture.engine import StopRule, capture, read_properties
    from python_helpers.capture.kafka_form import KcatWriter

    properties = read_properties(Path(args.config))
    for setting in args.set:
        name, equals, value = setting.partition("=")
        if not equals:
            raise ValueError(f"--set {setting!r}: expected name=value")
        properties[name.strip()] = value.strip()
    landing = Path(args.landing or os.environ.get("CDC_LANDING_DIR") or "landing")
    stop = StopRule(args.idle, args.until_topic, args.max_seconds)
    done = capture(properties, KcatWriter(landing), stop)
    for topic, count in sorted(done.written.items()):
        print(f"{topic}: {count} record(s)")
    print(
        f"captured {sum(done.written.values())} record(s) of {len(done.written)} topic(s)"
        f" into {landing} in {done.seconds:.1f}s (stopped: {done.stopped_by})"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the CLI."""
    parser = argparse.ArgumentParser(
        prog="python -m python_helpers",
        description="Debezium / Kafka Connect CDC topics to current-state tables on Spark,"
        " as a dbt project (README.md).",
    )
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
    jars = commands.add_parser(
        "jars", help="install and verify the Iceberg runtime jar; write the JVM's class archive"
    )
    jars.set_defaults(run=_cmd_jars)
    lint_cmd = commands.add_parser(
        "lint",
        help="sqlfluff on the models as written (macros stood in for: no dbt, no Spark)",
    )
    lint_cmd.add_argument("paths", nargs="*", default=["models", "tests/dbt"])
    lint_cmd.add_argument("--processes", type=int, default=2)
    lint_cmd.set_defaults(run=_cmd_lint)
    run = commands.add_parser(
        "run",
        help="sync + land + dbt in one process (default dbt command: build)",
        description="sync, land, then dbt (args after --, default `build`) in one"
        " process, so Spark starts once.",
    )
    run.add_argument("--landing", help=LANDING_HELP)
    run.add_argument("--project", default=".", help="dbt project root (default: .)")
    run.add_argument(
        "--show", action="store_true", help="print a few rows of the tables built, after"
    )
    run.add_argument(
        "--freshness",
        action="store_true",
        help="run `dbt source freshness` after dbt and print its results as a table",
    )
    run.add_argument("--rows", type=int, default=5)
    run.add_argument(
        "--show-tables",
        type=int,
        default=SHOWN_TABLES,
        metavar="N",
        help=f"--show prints at most N tables (default {SHOWN_TABLES}; `show` prints every one)",
    )
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
    run.add_argument(
        "--watch",
        action="store_true",
        help="keep running: land and build what arrives, one line per cycle (Ctrl-C stops)",
    )
    run.add_argument(
        "--interval", type=float, default=2.0, help="--watch: seconds between cycles (2)"
    )
    run.add_argument(
        "--cycles", type=int, default=0, help="--watch: stop after this many cycles (0: never)"
    )
    run.add_argument(
        "--checks-every",
        type=float,
        default=300.0,
        help="--watch: a cycle makes changes visible first; the tests of what it built and"
        " the maintenance run once the landing is quiet for 5 s, and at least every this"
        " many seconds under a steady stream (300); 0: every cycle, the tests inside the"
        " build as in `run`",
    )
    run.add_argument(
        "--serve-port",
        type=int,
        default=None,
        help="--watch: port of the Thrift endpoint it serves the tables on (default: the"
        " cluster target's, CDC_SPARK_PORT else 10000; 0: serve none)",
    )
    run.add_argument(
        "--metrics-port",
        type=int,
        default=9464,
        help="--watch: port of its Prometheus /metrics (9464; 0: none)",
    )
    run.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="--watch: address of /metrics (127.0.0.1; another is reachable by other machines,"
        " without authentication)",
    )
    run.add_argument(
        "--serve-host",
        default="127.0.0.1",
        help="--watch: address the Thrift endpoint listens on (127.0.0.1: this machine only);"
        " another address requires HiveServer2 authentication in the profile"
        " (docs/watch-and-maintenance.md), else the watch refuses to start",
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
    cluster_cmd = commands.add_parser(
        "cluster", help="start or stop a standalone Spark cluster here (a master and workers)"
    )
    cluster_cmd.add_argument("action", choices=["up", "down"])
    cluster_cmd.add_argument("--port", type=int, default=7077, help="the master's port")
    cluster_cmd.add_argument("--web-port", type=int, default=8090, help="the master's web UI")
    cluster_cmd.add_argument("--workers", type=int, default=2)
    cluster_cmd.set_defaults(run=_cmd_cluster)
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
    report_cmd.add_argument(
        "--check",
        action="store_true",
        help="exit 1 naming each topic over its max_lag or max_staleness, or that quarantined"
        " records in its last run (limits: its declaration, the project vars cdc_max_lag and"
        " cdc_max_staleness, these options, else 1h and 1d)",
    )
    report_cmd.add_argument("--max-lag", help="--check: e.g. 10m (a declaration's wins)")
    report_cmd.add_argument("--max-staleness", help="--check: e.g. 2h (a declaration's wins)")
    report_cmd.add_argument(
        "--from-table",
        action="store_true",
        help="read the metrics table (a Spark start) rather than the state folder's log"
        " of the runs made here",
    )
    report_cmd.set_defaults(run=_cmd_report)
    maintain = commands.add_parser(
        "maintain",
        help="compact the tables, expire old snapshots, remove orphan files (and purge"
        " delete markers past cdc_marker_retention_days), now",
    )
    maintain.add_argument(
        "--topic", action="append", default=[], help="only this topic's tables (repeatable)"
    )
    maintain.set_defaults(run=_cmd_maintain)
    dbt_cmd = commands.add_parser(
        "dbt",
        help="dbt with the project's defaults (through a running watch's endpoint if any)",
    )
    dbt_cmd.add_argument("dbt_args", nargs=argparse.REMAINDER, help="dbt's arguments")
    dbt_cmd.set_defaults(run=_cmd_dbt)
    export = commands.add_parser("export", help="print tables as JSON (types and rows)")
    export.add_argument("tables", nargs="+", help="schema.table names")
    export.set_defaults(run=_cmd_export)
    capture_cmd = commands.add_parser(
        "capture",
        help="run Debezium's engine against your database into the landing, as Kafka holds"
        " each record (kcat -J form; production runs Kafka Connect)",
    )
    capture_cmd.add_argument(
        "--config", required=True, help="the connector's .properties (Debezium's own settings)"
    )
    capture_cmd.add_argument(
        "--landing", help="landing directory (default: $CDC_LANDING_DIR, else landing/)"
    )
    capture_cmd.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="one more setting"
    )
    capture_cmd.add_argument(
        "--idle", type=float, default=10.0, help="stop after this many seconds without a record"
    )
    capture_cmd.add_argument(
        "--until-topic", help="stop once a record of this topic arrives (it is not written)"
    )
    capture_cmd.add_argument(
        "--max-seconds", type=float, default=3600.0, help="stop after this long in any case"
    )
    capture_cmd.set_defaults(run=_cmd_capture)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    use_archive()  # the Spark it starts maps the environment's class archive
    try:
        return int(args.run(args))
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
