"""Shared paths and the in-process Spark session for the Python tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_LANDING = PROJECT / "sample_landing"
PRODUCTS_TOPIC = "fullfillment.inventory.products"
ORDERS_TOPIC = "shop.public.orders"
# The in-process session has a metastore of its own: the end-to-end tests
# run dbt in other processes on another state folder.
UNIT_STATE = PROJECT / ".state" / "pytest-unit"


def copy_sample_topic(topic: str, landing: Path, name: str | None = None) -> Path:
    """A sample topic's folder copied into ``landing`` (as ``name``), with
    the project's declaration of it as the folder's topic.yml: how a user's
    landing brings its settings to a project that has not declared it."""
    target = landing / (name or topic)
    shutil.copytree(SAMPLE_LANDING / topic, target)
    declaration = PROJECT / "topics" / f"{topic}.yml"
    if declaration.exists():
        shutil.copy(declaration, target / "topic.yml")
    return target


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the shared end-to-end runs go last (stable order
    otherwise): the runs are built in the background (`runs` below) while
    the other tests run."""
    items.sort(key=_needs_runs)


def _needs_runs(item: pytest.Item) -> bool:
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


@pytest.fixture(scope="session", autouse=True)
def _runs_in_background(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    """Start building the shared end-to-end runs at the first test, on a
    thread (the work is done by dbt and Spark processes), if any collected
    test needs them: the tests that do not — their own Spark processes, the
    in-process session, plain Python — run meanwhile, on the other core."""
    if not any(_needs_runs(item) for item in request.session.items):
        return None
    from e2e_harness import BackgroundRuns

    return BackgroundRuns(tmp_path_factory.mktemp("landing"))


@pytest.fixture(scope="session")
def runs(_runs_in_background: Any) -> dict[str, Any]:
    """The end-to-end run every Spark test module shares (built once)."""
    return _runs_in_background.result()  # type: ignore[no-any-return]
