"""The suite's folders say what a test needs: tests/unit never starts
Spark (the fast lane runs it alone), every module in tests/e2e is marked
`spark`, and tests/support holds no test."""

from __future__ import annotations

import ast
from pathlib import Path

from project_paths import PROJECT

TESTS = PROJECT / "tests"


def _marked_spark(module: Path) -> bool:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        and "spark" in ast.unparse(node.value)
        for node in tree.body
    )


def _uses_spark(module: Path) -> bool:
    text = module.read_text(encoding="utf-8")
    return "mark.spark" in text or "pyspark" in text or "spark: Any" in text


def test_unit_tests_need_no_spark_and_end_to_end_tests_are_marked() -> None:
    unit = sorted(m for m in TESTS.glob("unit/test_*.py") if m.name != Path(__file__).name)
    e2e = sorted(TESTS.glob("e2e/test_*.py"))
    assert len(unit) >= 9 and len(e2e) >= 15
    assert [m.name for m in unit if _uses_spark(m)] == []
    assert [m.name for m in e2e if not _marked_spark(m)] == []


def test_support_holds_no_test() -> None:
    assert sorted(p.name for p in TESTS.glob("support/**/test_*.py")) == []
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]
