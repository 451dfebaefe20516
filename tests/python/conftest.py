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
# run dbt in other processes on another state folder.
UNIT_STATE = PROJECT / ".state" / "pytest-unit"


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
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The end-to-end run every Spark test module shares (built once)."""
    from e2e_harness import build_runs

    return build_runs(tmp_path_factory.mktemp("landing"))
