"""The rows display after a run, on real Spark: a warehouse whose topics
have no key (staging models only, so no current-state schema) is shown as
such, not a failure of a green build."""

from __future__ import annotations

from typing import Any

import pytest
from project_paths import PROJECT

from python_helpers.engine.show import CURRENT_SCHEMA, show_results
from python_helpers.engine.sql_engine import SessionEngine

pytestmark = pytest.mark.spark


def test_a_warehouse_without_current_state_tables_says_so(spark: Any) -> None:
    engine = SessionEngine(spark)
    # this session's warehouse holds the raw landing only, as after a build of
    # topics without a key
    assert engine.sql(f"show databases like '{CURRENT_SCHEMA}'") == []
    text = show_results(PROJECT, engine=engine)
    assert f"no current-state table yet in {CURRENT_SCHEMA}" in text
    assert engine.sql(f"show databases like '{CURRENT_SCHEMA}'") == []


def test_a_run_shows_its_first_tables_by_name_and_says_how_many_more(spark: Any) -> None:
    """`run --show` prints at most `--show-tables` tables (at 500 topics,
    every table's count and rows would take minutes); `show` prints all."""
    engine = SessionEngine(spark)
    engine.sql(f"create database {CURRENT_SCHEMA}")
    try:
        for name in ("c_orders", "a_customers", "b_items", "b_items__state"):
            engine.sql(f"create view {CURRENT_SCHEMA}.{name} as select 1 as id, 'x' as label")
        text = show_results(PROJECT, engine=engine, tables_at_most=2)
        assert f"\n{CURRENT_SCHEMA}.a_customers: 1 rows\n" in text
        assert f"\n{CURRENT_SCHEMA}.b_items: 1 rows\n" in text
        assert "c_orders" not in text and "__state" not in text
        assert "(the first 2 of 3 by name: `python -m python_helpers show` prints them all" in text
        every = show_results(PROJECT, engine=engine)
        assert f"\n{CURRENT_SCHEMA}.c_orders: 1 rows\n" in every and "(the first" not in every
    finally:
        engine.sql(f"drop database {CURRENT_SCHEMA} cascade")
