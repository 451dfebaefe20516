"""One run of the pipeline: sync, land, dbt, metrics, maintenance.

``python -m python_helpers run`` (``make run``) calls ``run_once`` once;
a watch (``run.watch``) calls it every cycle with one ``DbtSession`` that
keeps dbt's parsed project, and a ``stopping`` check between steps: a
stop asked for mid-run ends it after the step under way, every step
leaving what the next run finishes (the landing's manifest commits a
topic's batch, the build plan keeps what is not yet built, ``checks``
what is built and not yet tested). A watch's cycle also hands a ``Tail``:
then the build makes the changes visible first and the tests and
maintenance wait until the landing is quiet (``run.tail``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from python_helpers.engine.watch_endpoint import state_dir
from python_helpers.land.kafka_tables import TableLanding
from python_helpers.land.landing import links_out, topic_dirs
from python_helpers.project.init_project import LANDING
from python_helpers.project.project_check import ProjectError
from python_helpers.project.sync import sync
from python_helpers.run import build_plan, checks, rebuilds
from python_helpers.run.dbt_session import DbtSession
from python_helpers.run.tail import Tail
from python_helpers.schema.envelope import SpecError
from python_helpers.topic import declarations, spec_files

# a project's own landing folder (`init` makes one), else this checkout's samples
PROJECT_LANDING = Path(LANDING)
SAMPLE_LANDING = Path("sample_landing")


def landing_dir(value: str | None) -> Path:
    default = PROJECT_LANDING if PROJECT_LANDING.is_dir() else SAMPLE_LANDING
    return Path(value or os.environ.get("CDC_LANDING_DIR") or default)


def parse_keys(values: Sequence[str]) -> dict[str, tuple[str, ...]]:
    keys: dict[str, tuple[str, ...]] = {}
    for value in values:
        topic, _, columns = value.partition("=")
        if not topic or not columns:
            raise SystemExit(f"--primary-key wants TOPIC=col[,col...], got {value!r}")
        keys[topic] = tuple(c.strip() for c in columns.split(",") if c.strip())
    return keys


# a run that lands at most this many new bytes and then builds only what
# they touched starts its Spark for a short life (spark_session.SHORT_RUN_JVM);
# the 300 k benchmark's 1 % batch is 13 MB, its first build 1.3 GB
SHORT_RUN_BYTES = 256 * 1024 * 1024


def land(
    args: argparse.Namespace,
    starting: Callable[[], None] = lambda: None,
    narrowed: bool = True,
) -> tuple[int, list[Any]]:
    """Land what is new: (exit code, the landing's report per topic).
    ``starting`` is called when there is something to land, once Spark
    has started (a run parses its dbt project while the landing runs);
    ``narrowed``: the run's build after it is narrowed to what changed."""
    from python_helpers.engine.sql_engine import open_engine, target_name
    from python_helpers.land import landing_memory, raw_store
    from python_helpers.land.raw_tables import RAW_SCHEMA

    landing = landing_dir(args.landing)
    state = state_dir()
    known = spec_files.known_topics(Path("."))
    tables = {
        topic: TableLanding(topic, table, kafka_topic)
        for topic, (table, kafka_topic) in declarations.table_landings(Path(".")).items()
    }
    fingerprint = landing_memory.landing_fingerprint(landing, known)
    changed = landing_memory.changed_topics(fingerprint, state)
    if changed is not None and not changed and not tables:
        print(f"nothing new to land in {landing}: every file is as the last landing left it")
        return 0, []
    clean = landing_memory.clean_topics(state)
    grown = landing_memory.new_bytes(fingerprint, state)
    short = narrowed and not tables and grown is not None and grown <= SHORT_RUN_BYTES
    landing_memory.forget_landing(state)
    folders = topic_dirs(landing)
    unmodelled = [d.name for d in folders if d.name not in known] if known else []
    for folder in folders:
        if changed is None or folder.name in changed:
            for link in links_out(folder):
                print(
                    f"warning: {folder.name}: not reading {link.relative_to(landing)}:"
                    " a symbolic link out of the topic folder",
                    file=sys.stderr,
                )
    for topic in unmodelled:
        print(f"not landing {topic}: sync generated no schema for it (see its reason above)")
    where = "Spark starting" if target_name() == "local" else "through the cluster target"
    what = "every topic" if changed is None else f"{len(changed)} topic(s) with changed files"
    if tables:
        what += f", {len(tables)} topic(s) from Kafka tables"
    print(f"landing {landing}: {what} ({where})", flush=True)
    engine = open_engine(Path("."), short_run=short)
    starting()
    reports = raw_store.land_all(
        engine,
        landing,
        lambda line: print(line, flush=True),
        known,
        bool(known),
        changed,
        clean,
        state / "landing-scratch",
        tables,
    )
    from python_helpers.engine.freshness import remember

    remember(state, [(r.topic, r.newest_ms) for r in reports])
    new = {r.topic for r in reports if r.landed or r.rolled_back}
    present = landing_memory.topics_with_records(fingerprint) & set(known)
    build_plan.add(state, present if changed is None else new | (changed & set(known)))
    # a table-landed topic's schema versions are in what was just landed:
    # synced now, from its raw table (its new models are then built)
    if table_code := _sync_from_tables(args, engine, reports, tables):
        return table_code, reports
    build_plan.add(state, {r.topic for r in reports if r.topic in tables and r.landed})
    landing_memory.remember_landing(fingerprint, state)
    header = ("topic", "files", "unchanged", "read", "landed", "already", "unreadable", "s")
    print(f"{header[0]:<40}" + "".join(f"{h:>11}" for h in header[1:]))
    for r in reports:
        cells = (r.files_read, r.files_unchanged, r.read, r.landed, r.already_landed, r.unreadable)
        print(f"{r.topic:<40}" + "".join(f"{c:>11}" for c in cells) + f"{r.seconds:>11.1f}")
    total = sum(r.landed for r in reports)
    print(f"{total} record(s) landed into {RAW_SCHEMA}.<topic> (Iceberg)")
    return 0, reports


def _sync_from_tables(
    args: argparse.Namespace,
    engine: Any,
    reports: list[Any],
    tables: dict[str, Any],
) -> int:
    """Sync the table-landed topics that got records (their values and
    keys read back from their raw tables: kafka_records): exit code 1 when
    sync could not run at all (a topic it leaves out is named, the others
    go on, as in ``synced``)."""
    from python_helpers.land.kafka_records import batch_records

    landed = {r.topic: r for r in reports if r.topic in tables and r.landed}
    if not landed:
        return 0
    records = {}
    for topic in landed:
        documents = _documents(topic)
        found = batch_records(engine, topic, documents)
        if not documents and any(_documents_value(value) for value, _, _ in found):
            found = batch_records(engine, topic, documents=True)
        records[topic] = found
    code, _ = synced(args, records)
    return code


def _documents(topic: str) -> bool:
    """Whether ``topic``'s spec says its values are documents (every value
    is read to learn their fields, not one a schema text)."""
    path = spec_files.spec_path(Path("."), topic)
    if not path.exists():
        return False
    return spec_files.read_file(path.read_text(encoding="utf-8")).document is not None


def _documents_value(value: str | None) -> bool:
    """Whether a value is an event of a connector that stages documents."""
    from python_helpers import connectors

    try:
        payload = json.loads(value or "null")
    except ValueError:
        return False
    payload = payload.get("payload", payload) if isinstance(payload, dict) else None
    source = payload.get("source") if isinstance(payload, dict) else None
    name = source.get("connector") if isinstance(source, dict) else None
    return isinstance(name, str) and connectors.shape_of(name) == connectors.DOCUMENTS


def absent_topics(known: list[str]) -> list[str]:
    """The declared topics (``known``) with no record in the landing the run
    just landed (no folder, or only empty dump files: its fingerprint,
    noted by ``land``; none when no landing ran to the end). A run does not
    build them (their models stay as they are)."""
    from python_helpers.land import landing_memory

    present = landing_memory.landed_topics(state_dir())
    if present is None:
        return []
    tabled = declarations.table_landings(Path("."))  # no folder: their tables say
    return [topic for topic in known if topic not in present and topic not in tabled]


def sync_step(args: argparse.Namespace) -> int:
    """``sync`` alone: exit code 1 when a topic was left out (the others
    were synced)."""
    code, left_out = synced(args)
    return code or (1 if left_out else 0)


def synced(
    args: argparse.Namespace, records: dict[str, Any] | None = None
) -> tuple[int, dict[str, str]]:
    """Sync: (exit code, the topics left out with why; the others go on).
    With ``records``, the table-landed topics they are of, from them."""
    try:
        result = sync(
            Path(args.project),
            landing_dir(args.landing),
            parse_keys(args.primary_key),
            args.check,
            state_dir=state_dir(),
            progress=lambda line: print(line, flush=True),
            records=records,
        )
    except (ProjectError, SpecError) as error:
        print(f"error: sync left the project unchanged past this point: {error}", file=sys.stderr)
        return 1, {}
    for topic, reason in sorted(result.skipped.items()):
        print(f"skipped {topic}: {reason}", file=sys.stderr)
    for topic, reason in sorted(result.failed.items()):
        print(f"error: topic {topic!r} left out, the others go on: {reason}", file=sys.stderr)
    if not args.check:
        build_plan.add(state_dir(), result.respecified, respecified=True)
    if result.rebuild and not args.check:
        rebuilds.add(state_dir(), result.rebuild)
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
            return 1, result.failed
        print("generated schemas are up to date")
        return 0, result.failed
    print(
        f"{len(result.specs)} topic(s) synced ({result.files_unchanged} with nothing new,"
        f" {result.bytes_scanned / 1e6:.1f} MB scanned); generated schemas "
        f"{'updated' if result.generated_changed else 'unchanged'}"
    )
    for path in result.declared:
        print(f"declared {path}")
    for path in result.scaffolded:
        print(f"wrote {path} (yours from now on: sync never rewrites it)")
    for path in result.models:
        print(f"generated {path}")
    return 0, result.failed


Stopping = Callable[[], bool]


def run_once(
    args: argparse.Namespace,
    dbt: DbtSession,
    stopping: Stopping = lambda: False,
    tail: Tail | None = None,
) -> tuple[int, list[Any]]:
    """sync, land and dbt in one process (one JVM and metastore start-up),
    then the run's metrics, the tests a watch left unchecked and
    maintenance: (exit code, the metrics rows of the topics it touched).
    ``stopping`` is asked between steps; ``tail``: a watch's cycle. Every
    run, even one with nothing new, is added to the Prometheus totals and
    textfile (``prometheus``)."""
    from python_helpers.run import prometheus

    started = time.monotonic()
    code, rows = _run_once(args, dbt, stopping, tail)
    try:
        prometheus.record(
            state_dir(), [vars(row) for row in rows], code == 0, time.monotonic() - started
        )
    except OSError as error:  # the run's data is committed already
        print(f"warning: the Prometheus textfile was not written: {error}", file=sys.stderr)
    return code, rows


def _run_once(
    args: argparse.Namespace,
    dbt: DbtSession,
    stopping: Stopping,
    tail: Tail | None,
) -> tuple[int, list[Any]]:
    from python_helpers.run.metrics import from_landing
    from python_helpers.run.run_record import RunRecord

    steps: list[tuple[str, float]] = []
    started = time.monotonic()
    run_started = datetime.now(UTC)
    code, left_out = synced(args)
    steps.append(("sync", time.monotonic() - started))
    if code or stopping():
        return code, []
    dbt_args = [a for a in args.dbt_args if a != "--"] or ["build"]
    narrowed = not rebuilds.pending(state_dir()) and build_plan.narrows(
        state_dir(), dbt_args, args.all
    )
    code, reports = land(args, lambda: dbt.prepare(dbt_args), narrowed)
    steps.append(("land", time.monotonic() - started))
    record = RunRecord(from_landing(time.time_ns() // 1000, run_started, reports))
    if code or stopping():
        record.keep(time.monotonic() - started)
        return code, list(record.rows.values())
    if topics := rebuilds.pending(state_dir()):
        rebuild = ["build", "--full-refresh", "--select", *rebuilds.selectors(topics)]
        print(f"dbt {' '.join(rebuild)}", flush=True)
        record.dbt_starts(topics)
        result = dbt.invoke(rebuild)
        record.dbt_done(result)
        if not result.success:
            print(f"the rebuild of {', '.join(topics)} failed; the next run tries again")
        else:
            rebuilds.done(state_dir())
        steps.append(("rebuild", time.monotonic() - started))
    absent = absent_topics(spec_files.known_topics(Path(".")))
    if absent and not args.all:
        shown = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
        print(
            f"not building {len(absent)} declared topic(s) with no record in the landing: {shown}"
        )
    planned = build_plan.plan(state_dir(), Path("."), dbt_args, args.all, absent)
    if planned.args is None:
        print(f"{planned.reason}: no dbt (`run --all` builds everything)")
    elif not stopping():
        record.dbt_starts(planned.topics)
        visible_first = tail is not None and tail.defers
        if not _build(args, dbt, dbt_args, planned, steps, started, record, visible_first):
            record.keep(time.monotonic() - started)
            _say_left_out(left_out)
            return 1, list(record.rows.values())
    if args.show and planned.args is not None:
        from python_helpers.engine.show import show_results

        only = _shown_models(planned, record.timings)
        print(show_results(Path("."), args.rows, only=only, tables_at_most=args.show_tables))
    record.keep(time.monotonic() - started)
    steps.append(("metrics", time.monotonic() - started))
    rows = list(record.rows.values())
    if stopping() or (tail is not None and not tail.due(record.rows)):
        return _export(args) or _done(started, steps), rows
    checked = run_checks(dbt, dbt_args)
    steps.append(("tests", time.monotonic() - started))
    maintain_after(tail.take() if tail is not None else record.rows, dbt)
    steps.append(("maintenance", time.monotonic() - started))
    finished = _export(args) or _done(started, steps)
    return checked or finished or _say_left_out(left_out), rows


def _shown_models(planned: build_plan.Plan, ran: Iterable[str]) -> set[str] | None:
    """The current-state models `--show` prints: those of a narrowed
    build's topics, or of the topics of the nodes ``ran`` by a build that
    selected its own (at 500 topics, printing every table takes minutes);
    None (every table) after a whole build."""
    from python_helpers.engine.show import built_current_models, ran_current_models

    if planned.narrowed:
        return built_current_models(Path("."), planned.topics)
    if planned.args is not None and build_plan.selects(planned.args):
        return ran_current_models(Path("."), ran)
    return None


def _say_left_out(left_out: dict[str, str]) -> int:
    """The run's last word on the topics sync left out: 1 when there are some."""
    for topic, reason in sorted(left_out.items()):
        print(f"error: topic {topic!r} was left out of this run: {reason}", file=sys.stderr)
    return 1 if left_out else 0


def run_checks(dbt: DbtSession, dbt_args: list[str]) -> int:
    """The tests of what a watch built and did not test yet (``checks``):
    exit code 1 when one failed (they run again next time)."""
    topics, since = checks.pending(state_dir())
    if not topics or since is None:
        return 0
    print(f"dbt test of {len(topics)} topic(s) built and not yet tested", flush=True)
    result = dbt.invoke(checks.test_args(dbt_args, topics, since))
    if not result.success:
        if result.exception is not None:
            print(f"dbt failed: {result.exception}", file=sys.stderr)
        print(f"the tests of {', '.join(topics)} failed (above); the next cycle runs them again")
        return 1
    checks.done(state_dir(), topics)
    print(f"tests of {len(topics)} topic(s) passed")
    return 0


def maintain_after(touched: Any, dbt: DbtSession) -> None:
    """The pipeline's maintenance of the tables a run touched (policy in
    ``run.maintenance``); a failure is reported and changes nothing else."""
    from python_helpers.engine.sql_engine import open_engine
    from python_helpers.run import maintenance, metrics

    if not touched:
        return
    try:
        nodes = metrics.manifest_nodes(Path("target") / "manifest.json")
        tables = [*maintenance.topic_tables(nodes, touched), *maintenance.SHARED_TABLES]
        rules = maintenance.policy(Path("."))
        done = maintenance.maintain(open_engine(Path(".")), tables, rules, state_dir())
    except Exception as error:  # noqa: BLE001 - the run's data is committed already
        print(f"warning: maintenance failed, the next run tries again: {error}", file=sys.stderr)
        return
    if line := done.line():
        print(line)
    days = maintenance.marker_retention_days(Path("."))
    if days is not None and maintenance.markers_due(state_dir(), rules):
        purge_markers(dbt, days)


def _build(
    args: argparse.Namespace,
    dbt: DbtSession,
    dbt_args: list[str],
    planned: build_plan.Plan,
    steps: list[tuple[str, float]],
    started: float,
    record: Any,
    visible_first: bool = False,
) -> bool:
    """Run the planned dbt build (and source freshness): whether it succeeded.
    ``visible_first``: a narrowed build runs the models only (``dbt run``)
    and notes its topics for ``run_checks``."""
    assert planned.args is not None
    command = planned.args
    visible_first = visible_first and planned.narrowed and command[0] == "build"
    if visible_first:
        command = planned.models_only()
    print(f"dbt {' '.join(command)}  ({planned.reason})", flush=True)
    if visible_first:  # noted first: a run that fails midway may have staged some
        checks.add(state_dir(), planned.topics, time.time_ns() // 1000)
    if build_plan.needs_seeds(planned, command):
        seeded = dbt.invoke(["seed"])
        if not seeded.success:
            record.dbt_done(seeded)
            _say_failed_nodes(seeded)
            return False
    result = dbt.invoke(command)
    record.dbt_done(result)
    steps.append(("dbt " + dbt_args[0], time.monotonic() - started))
    if not result.success:
        if result.exception is not None:  # dbt could not start: say why
            print(f"dbt failed: {result.exception}", file=sys.stderr)
        _say_failed_nodes(result)
        _recount_quarantine(dbt, result)
        return False
    build_plan.succeeded(state_dir(), Path("."), planned)
    if args.freshness:
        _source_freshness(planned.topics if planned.narrowed else None)
        steps.append(("freshness", time.monotonic() - started))
    return True


def _recount_quarantine(dbt: DbtSession, result: Any) -> None:
    """The quarantine counts of the topics that built, after a build that
    failed elsewhere (dbt skipped them for every topic)."""
    from python_helpers.run import quarantine

    args = quarantine.recount_args(getattr(result.result, "results", None) or [])
    if args is None:
        return
    print("counting the quarantine of the topics that built", flush=True)
    if not dbt.invoke(args).success:
        print("warning: the quarantine counts were not updated; the next build does it")


def _say_failed_nodes(result: Any) -> None:
    """After a build that failed: which topics' nodes failed, and the first
    line of why (dbt built every node that did not depend on them); for a
    failed ``cdc_checks``, each broken rule (its rows name it)."""
    for item in getattr(result.result, "results", None) or []:
        if str(item.status) not in ("error", "fail"):
            continue
        meta = (getattr(item.node, "config", None) or {}).get("meta") or {}
        topic = meta.get("cdc_topic") or "(no topic)"
        why = str(item.message or "").strip().splitlines()[:1]
        print(
            f"error: topic {topic!r}: {item.node.name} {item.status}: {why[0] if why else ''}",
            file=sys.stderr,
        )
        if str(item.status) == "fail":
            for line in _broken_rules(item.node):
                print(f"error: topic {topic!r}: {line}", file=sys.stderr)


def _broken_rules(node: Any) -> list[str]:
    """The rows of a failed ``cdc_checks`` test, one line per broken rule:
    the rule, the column, how many rows, an example (its compiled query run
    again; nothing for another test, or when that fails)."""
    metadata = getattr(node, "test_metadata", None)
    code = getattr(node, "compiled_code", None)
    if metadata is None or metadata.name != "cdc_checks" or not code:
        return []
    from python_helpers.engine.sql_engine import open_engine

    try:
        rows = open_engine(Path(".")).sql(code)
    except Exception as error:  # noqa: BLE001 - the failure itself is reported above
        return [f"(its rules could not be listed: {str(error).splitlines()[0]})"]
    return [
        f"{row['rule']} ({row['column_name']}): {row['failing_rows']} row(s), e.g. {row['example']}"
        for row in rows[:20]
    ]


def _export(args: argparse.Namespace) -> int:
    """``run --export``: write the asked tables as JSON."""
    if args.export:
        from python_helpers.engine.export import export_json

        Path(args.export).write_text(export_json(Path("."), args.export_table), encoding="utf-8")
    return 0


def _done(started: float, steps: list[tuple[str, float]]) -> int:
    """Print how long each step of a run took."""
    begins = [0.0] + [at for _, at in steps]
    summary = ", ".join(f"{name} {at - begins[i]:.1f}s" for i, (name, at) in enumerate(steps))
    print(f"done in {time.monotonic() - started:.1f}s ({summary})")
    return 0


def _source_freshness(topics: list[str] | None) -> None:
    """The freshness of the raw landings of ``topics`` (None: of every
    topic), from what the landing noted (``engine.freshness``): no query
    (`dbt source freshness` reads the tables themselves, same thresholds)."""
    from python_helpers.engine.freshness import landed_rows, render, thresholds

    if topics == []:
        return
    known = spec_files.known_topics(Path("."))
    chosen = known if topics is None else [t for t in topics if t in set(known)]
    print(render(landed_rows(state_dir(), chosen, thresholds(Path(".")))))


def purge_markers(dbt: DbtSession, days: int) -> int:
    """The delete markers older than ``days``: purged by the project's own
    operation (``cdc_purge_delete_markers``)."""
    operation = ["run-operation", "cdc_purge_delete_markers"]
    result = dbt.invoke([*operation, "--args", json.dumps({"older_than_days": days})])
    return 0 if result.success else 1
