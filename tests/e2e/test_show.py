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
