"""The suite's JVM flags, its test order, the in-process Spark session and
the shared end-to-end runs (tests/support/e2e_harness.py)."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backlog import Backlog, Build
from project_paths import PROJECT, UNIT_STATE

from python_helpers.engine.class_archive import use_archive

# Every Spark the suite starts (dbt's, the CLI's, the Thrift server's, the
# in-process one) lives for seconds to minutes: the JVM's quick compiler
# and collector cost about 40% less CPU there than its defaults (the
# profile adds CDC_JVM_OPTIONS to the driver's flags; docs/testing.md).
# The quick compiler alone gets a 48 MB code cache, which Spark's generated
# code fills within one build of a few topics ("CodeCache is full", then a
# task fails on a method handle it cannot compile): the default's 240 MB.
SHORT_RUN_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=240m"
os.environ.setdefault("CDC_JVM_OPTIONS", SHORT_RUN_JVM)
# ... and evaluate expressions interpreted instead of compiling them (the
# profile's spark.sql.codegen.factoryMode): a first build of the samples
# took 10-13 % less CPU. The Kafka-table module runs with Spark's default
# (compiled), as a user's run does.
os.environ.setdefault("CDC_CODEGEN_MODE", "NO_CODEGEN")
# ... and plan each query for a few rows a table (the profile's
# settings): one shuffle partition, no adaptive re-planning. A first build
# of the samples (`run --all -- build`, the flags above): its dbt step
# 264.8-271.8 s with Spark's settings, 236.2-243.8 s with these
# (docs/testing.md)
os.environ.setdefault("CDC_SHUFFLE_PARTITIONS", "1")
os.environ.setdefault("CDC_ADAPTIVE_QUERIES", "false")
# ... and map the environment's class archive (`make setup` writes it), as
# the CLI does: `dbt` run directly in a project made by `init` too
use_archive()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the shared end-to-end runs go after the others (stable
    order otherwise): the runs are built in the background (`runs` below)
    while the other tests run, and a thread that reaches them first runs
    the modules' builds meanwhile; the modules with a build of their own
    (`backlog` below) go last: by then either thread may have built them."""
    items.sort(key=_rank)


def _rank(item: pytest.Item) -> int:
    """0: plain tests; 1: tests on the shared runs; 2: modules with a build."""
    return 2 if _has_build(item) else 1 if _needs_runs(item) else 0


def _has_build(item: pytest.Item) -> bool:
    """Whether the test's module names a build of its own (tests/support/backlog.py)."""
    return hasattr(getattr(item, "module", None), "BACKGROUND_BUILD")


def _needs_runs(item: pytest.Item) -> bool:
    """Whether the test uses the shared runs (`runs` below: a module's own
    fixture must not take that name, or its test waits for them)."""
    return "runs" in getattr(item, "fixturenames", ())


@pytest.fixture()
def project() -> Path:
    return PROJECT


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One embedded Spark session (the profile's settings) for all tests."""
    from python_helpers.engine.jars import install_iceberg_jar
    from python_helpers.engine.spark_session import local_spark

    os.environ["CDC_STATE_DIR"] = str(UNIT_STATE)
    install_iceberg_jar(UNIT_STATE)
    previous = Path.cwd()
    os.chdir(PROJECT)  # the profile's paths are relative to the project
    try:
        session = local_spark(PROJECT)
        session.sql("create database if not exists cdc_landing")
        yield session
        session.stop()
    finally:
        os.chdir(previous)


@pytest.fixture()
def fresh(spark: Any) -> Any:
    """The in-process session with no raw table: each landing test starts
    from an empty landing schema. The tables are dropped from the catalog,
    not purged: a purge reads and deletes every file of the table (about a
    second a table, against a twentieth); the files left are referenced by
    no table, and a table of the same name made later writes its own."""
    from python_helpers.land.raw_tables import RAW_SCHEMA

    for row in spark.sql(f"show tables in {RAW_SCHEMA}").collect():
        spark.sql(f"drop table if exists {RAW_SCHEMA}.{row.tableName}")
    return spark


@pytest.fixture(scope="session")
def backlog(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Backlog:
    """The builds of the collected modules that name one, in test order."""
    modules = {}
    for item in request.session.items:
        module = getattr(item, "module", None)
        if hasattr(module, "BACKGROUND_BUILD"):
            modules.setdefault(module.__name__, module)
    return Backlog(
        [
            Build(
                name,
                functools.partial(module.BACKGROUND_BUILD, tmp_path_factory),
                getattr(module, "BUILD_SECONDS", 0.0),
            )
            for name, module in modules.items()
        ]
    )


@pytest.fixture(scope="session", autouse=True)
def _runs_in_background(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, backlog: Backlog
) -> Any:
    """Start building the shared end-to-end runs at the first test, on a
    thread (the work is done by dbt and Spark processes), if any collected
    test needs them: the tests that do not — their own Spark processes, the
    in-process session, plain Python — run meanwhile, on the other core.
    Once the runs are built, that thread takes the modules' builds no test
    has reached yet."""
    if not any(_needs_runs(item) for item in request.session.items):
        return None
    from e2e_harness import BackgroundRuns

    # the docs site of the runs' warehouse, when a test reads it
    docs = any(item.path.name == "test_docs_site.py" for item in request.session.items)
    background = BackgroundRuns(
        tmp_path_factory.mktemp("landing"), docs=docs, then=backlog.take_all
    )
    request.config._cdc_background_runs = background  # type: ignore[attr-defined]
    request.addfinalizer(background.stop)
    return background


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """How long the shared runs took on their thread: with the tests run
    meanwhile, one of the two is the suite's critical path."""
    background = getattr(terminalreporter.config, "_cdc_background_runs", None)
    if background is not None and background.seconds is not None:
        steps = ", ".join(f"{name} {seconds:.0f}s" for name, seconds in background.steps.items())
        terminalreporter.write_line(
            f"shared end-to-end runs: built in {background.seconds:.0f}s on their own thread"
            + (f" ({steps})" if steps else "")
        )


@pytest.fixture(scope="session")
def runs(_runs_in_background: Any, backlog: Backlog) -> dict[str, Any]:
    """The end-to-end run every Spark test module shares (built once). A
    test that needs them before they are built runs the modules' builds no
    thread has taken yet while it waits (both cores stay busy)."""
    backlog.take_while(lambda: not _runs_in_background.ready())
    return _runs_in_background.result()  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def runs_docs_site(runs: dict[str, Any], _runs_in_background: Any) -> str:
    """The URL of `make docs` on the shared runs' warehouse (started by the
    runs' thread once they are built: docs_server)."""
    return _runs_in_background.docs_url()  # type: ignore[no-any-return]
