"""``run --watch`` (``make watch``): the pipeline as one long-lived process.

Spark starts once and stays warm; dbt's parsed project is kept while the
project's files are unchanged (``DbtSession``). Every ``--interval``
seconds a cycle runs the pipeline (``pipeline.run_once``): sync and the
landing's fingerprint notice grown and new files without Spark, and only
the topics that changed are landed and built. A cycle makes the changes
visible first (the models, ``dbt run``); their tests and the tables'
maintenance run once the landing is quiet, or at least every
``--checks-every`` seconds (``run.tail``, ``run.checks``). Each cycle that
did something prints one line (``metrics.summary_line``); the cycle's own
output goes to ``<state>/watch/watch.log``.

On the local target the watch serves its tables over Thrift
(``watch_endpoint``), so other processes can read them while it runs.
SIGINT (Ctrl-C) or SIGTERM stops it after the step under way, sent to the
watch alone or to its whole process group (a service manager's stop: the
local JVM is started ignoring both, ``spark_session.local_spark``, and
ends with this process); a second one stops it at once (what the next run
cannot finish is never left: a landing batch is committed by its manifest
rows, a build not done stays planned).
"""

from __future__ import annotations

import argparse
import faulthandler
import signal
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from python_helpers.engine import thrift, watch_endpoint
from python_helpers.engine.sql_engine import target_name
from python_helpers.land import landing_memory
from python_helpers.run import metrics, metrics_http, pipeline
from python_helpers.run.dbt_session import DbtSession
from python_helpers.run.tail import Tail
from python_helpers.topic import spec_files

LOG_FILE = Path("watch") / "watch.log"
RETRY_SECONDS = 10.0


class StopRequest:
    """Set by the first SIGINT or SIGTERM; the second one interrupts.
    SIGUSR1 writes every thread's Python stack to the console (a stop that
    takes long shows where it waits: test_watch.py sends it before giving
    up on a watch)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.asked_at: float | None = None

    def install(self) -> None:
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, self._handle)
        faulthandler.register(signal.SIGUSR1, file=sys.__stderr__ or sys.stderr, all_threads=True)

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()
        self.asked_at = time.monotonic()
        name = signal.Signals(number).name
        # the console, not the cycle's log (stdout may be redirected to it)
        print(f"{_now()} stopping after the current step ({name})", file=sys.__stdout__)

    def waited(self) -> str:
        """How long the stop waited for the step under way, for the last line."""
        if self.asked_at is None:
            return ""
        return f", {time.monotonic() - self.asked_at:.1f}s after the stop signal"

    def asked(self) -> bool:
        return self.event.is_set()


def _now() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


def landing_waits(landing: Path, state: Path) -> bool:
    """Whether a file of a known topic changed since the last landing (file
    sizes and times only: no Spark)."""
    known = spec_files.known_topics(Path("."))
    fingerprint = landing_memory.landing_fingerprint(landing, known)
    changed = landing_memory.changed_topics(fingerprint, state)
    return changed is None or bool(changed & set(known))


def watch(args: argparse.Namespace) -> int:
    """Run cycles until stopped (or ``--cycles`` of them); exit code 0 once
    stopped, whatever a cycle did (a failed cycle is retried by the next)."""
    state = watch_endpoint.state_dir()
    stop = StopRequest()
    stop.install()
    log_path = state / LOG_FILE
    log_path.parent.mkdir(parents=True, exist_ok=True)
    local = target_name() == "local"
    serving = local and args.serve_port != 0
    if local:  # started here, before dbt would: the JVM ignores SIGTERM
        from python_helpers.engine.spark_session import (
            local_spark,
            local_spark_conf,
            long_running_conf,
        )

        profile = local_spark_conf(Path("."))
        conf = long_running_conf(profile)
        if serving:
            watch_endpoint.check_bind(args.serve_host, profile)  # before Spark starts
            conf |= watch_endpoint.serving_conf(profile)
        spark = local_spark(Path("."), conf)
    if serving:
        port = args.serve_port or thrift.cluster_port(Path("."))
        watch_endpoint.serve(spark, state, port, args.serve_host)
        print(
            f"{_now()} serving the tables on {args.serve_host}:{port}: from another shell,"
            " `python -m python_helpers export|show|report` and"
            " `python -m python_helpers dbt <command>` go through it"
        )
    print(
        f"{_now()} watching {pipeline.landing_dir(args.landing)} every {args.interval:g}s"
        f" (log {log_path}); Ctrl-C or SIGTERM stops after the current step",
        flush=True,
    )
    scrapes = None
    if args.metrics_port:
        if not watch_endpoint.is_loopback(args.metrics_host):
            print(
                f"{_now()} /metrics on {args.metrics_host}, an address other machines reach:"
                " topic names and counts (no rows) for anyone who reaches it",
                flush=True,
            )
        scrapes = metrics_http.serve(state, args.metrics_host, args.metrics_port)
        if scrapes is not None:
            print(
                f"{_now()} serving Prometheus metrics on"
                f" http://{args.metrics_host}:{args.metrics_port}/metrics",
                flush=True,
            )
    dbt = DbtSession(keep_parsed=True, quiet=True, artifacts=False)
    landing = pipeline.landing_dir(args.landing)
    tail = Tail(args.checks_every, lambda: landing_waits(landing, state))
    cycles = 0
    # one log for the watch's life: a handler that dbt, py4j or logging set
    # up during a cycle keeps writing to it after that cycle
    log = log_path.open("a", encoding="utf-8")
    try:
        while not stop.asked():
            with redirect_stdout(log), redirect_stderr(log):
                print(f"--- cycle {cycles + 1} at {datetime.now(UTC).isoformat()}")
                code, rows = pipeline.run_once(args, dbt, stop.asked, tail)
                log.flush()
            _say_cycle(code, rows, stop.asked(), log_path)
            cycles += 1
            if args.cycles and cycles >= args.cycles:
                break
            # after a failure, not faster than every RETRY_SECONDS; a file
            # that arrived during the cycle starts the next one at once
            if code:
                stop.event.wait(max(args.interval, RETRY_SECONDS))
            elif not landing_waits(landing, state):
                stop.event.wait(args.interval)
    except KeyboardInterrupt:  # the second stop signal: at once
        print(
            f"{_now()} stopped at once during cycle {cycles + 1}: what it had not committed"
            " is left for the next run",
            flush=True,
        )
        return 130
    finally:
        if serving:
            watch_endpoint.stop_serving(state)
        if scrapes is not None:
            scrapes.shutdown()
        log.close()
    print(
        f"{_now()} watch stopped after {cycles} cycle(s){stop.waited()}",
        file=sys.stdout,
        flush=True,
    )
    return 0


def _say_cycle(code: int, rows: list[Any], stopping: bool, log_path: Path) -> None:
    """The cycle's line, when it did something or failed; a cycle a stop
    cut short is reported as such (its work left for the next run)."""
    if not rows and not code:
        return
    line = metrics.summary_line(rows) if rows else "the cycle"
    if code and stopping:
        line += f"; stopped before it finished (see {log_path}): the next run finishes it"
    elif code:
        line += f"; FAILED (exit {code}, see {log_path}), retrying"
    print(f"{_now()} {line}", flush=True)
