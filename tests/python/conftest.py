"""Shared paths and the in-process Spark session for the Python tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parents[2]
SAMPLE_LANDING = PROJECT / "sample_landing"
PRODUCTS_TOPIC = "fullfillment.inventory.products"
ORDERS_TOPIC = "shop.public.orders"
# The in-process session has a metastore of its own: the end-to-end tests
# run dbt in other processes on another state folder. One per pytest-xdist
# worker (a Derby metastore admits one Spark process).
UNIT_STATE = PROJECT / ".state" / f"pytest-unit-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Spread the Spark tests over pytest-xdist's workers (`-n auto
    --dist loadgroup` in pyproject.toml) without splitting what shares a
    warehouse: every test on the shared end-to-end runs goes to one worker,
    every test on the in-process session to one, and each other Spark module
    (its own project copy and state folder) to one. Tests without Spark go
    wherever a worker is free."""
    for item in items:
        if item.get_closest_marker("spark") is None:
            continue
        fixtures = getattr(item, "fixturenames", ())
        group = "runs" if "runs" in fixtures else "session" if "spark" in fixtures else None
        item.add_marker(pytest.mark.xdist_group(group or item.module.__name__))


@pytest.fixture()
def project() -> Path:
    return PROJECT


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One embedded Spark session (the profile's settings) for all tests."""
    from python_helpers.jars import install_iceberg_jar
    from python_helpers.spark_session import local_spark

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


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The end-to-end run every Spark test module shares (built once)."""
    from e2e_harness import build_runs

    return build_runs(tmp_path_factory.mktemp("landing"))
