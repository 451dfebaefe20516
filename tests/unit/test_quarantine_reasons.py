"""The seed `cdc_quarantine_reasons` lists exactly the reasons the macros
give (issue 45): a reason added to a macro without its row here, or a row
left behind by a reason removed, fails."""

from __future__ import annotations

import csv
import json
import re
from types import SimpleNamespace

from project_paths import PROJECT

from python_helpers.run import quarantine

SEED = PROJECT / "seeds" / "cdc_quarantine_reasons.csv"
# `then '<word>'` literals of the macros that are not quarantine reasons:
# ops, change kinds, replay issues, snapshot and merge states
NOT_REASONS = {
    "c",
    "d",
    "u",
    "null",
    "full",
    "delete",
    "insert",
    "value",
    "complete",
    "stalled",
    "poison",
    "heartbeat",  # its own view (__heartbeats), never quarantined
    "missing_base_document",  # a MongoDB replay issue (_cdc_replay_issue)
}
THEN_LITERAL = re.compile(r"\bthen\s+'([a-z_]+)'")


def _seed() -> list[dict[str, str]]:
    with SEED.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _macros() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (PROJECT / "macros").rglob("*.sql"))


def test_the_seed_lists_every_reason_the_macros_give_and_no_other() -> None:
    rows = _seed()
    reasons = [row["reason"] for row in rows]
    assert len(reasons) == len(set(reasons))
    macros = _macros()
    given = set(THEN_LITERAL.findall(macros)) - NOT_REASONS
    assert given - set(reasons) == set(), "reasons without a row in the seed"
    assert [r for r in reasons if f"'{r}'" not in macros] == [], "rows no macro gives"
    assert {"tombstone", "truncated_json", "schema_not_covered"} <= set(reasons)


def test_every_reason_says_what_it_means_and_what_to_do() -> None:
    for row in _seed():
        assert row["needs_attention"] in ("true", "false"), row["reason"]
        assert row["meaning"].strip() and row["what_to_do"].strip(), row["reason"]
        assert row["applies_to"].strip(), row["reason"]
    expected = {row["reason"] for row in _seed() if row["needs_attention"] == "false"}
    assert expected == {"tombstone", "schema_not_covered"}


def test_no_cell_holds_a_straight_quote_or_a_backslash() -> None:
    """dbt-spark's seed writes each value into its insert statement between
    single quotes unescaped: a `'` broke the seed (seen), so the texts use
    a typographic apostrophe."""
    text = SEED.read_text(encoding="utf-8")
    assert "'" not in text and "\\" not in text


def _result(name: str, status: str, layer: str | None = None) -> SimpleNamespace:
    """One node of a dbt run's results, as dbt reports it (name, status,
    config meta)."""
    meta = {"cdc_layer": layer} if layer else {}
    return SimpleNamespace(node=SimpleNamespace(name=name, config={"meta": meta}), status=status)


def test_a_failed_topic_leaves_the_others_counts_to_a_recount() -> None:
    """dbt skips the quarantine counts of every topic when one topic's
    model fails: the pipeline then counts the topics whose base model built
    (the var the counts macro reads), and nothing when dbt ran the counts."""
    failed = [
        _result("base_postgres__a", "success", "base"),
        _result("base_postgres__b", "error", "base"),
        _result("base_postgres__c", "success", "base"),
        _result("postgres__a__state", "success", "state"),
        _result("cdc_quarantine_counts", "skipped"),
    ]
    args = quarantine.recount_args(failed)
    assert args is not None and args[:2] == ["run", "--select"]
    assert json.loads(args[args.index("--vars") + 1]) == {
        quarantine.RECOUNT_VAR: ["base_postgres__a", "base_postgres__c"]
    }
    macro = (PROJECT / "macros" / "ops" / "cdc_quarantine_counts.sql").read_text(encoding="utf-8")
    assert f"var('{quarantine.RECOUNT_VAR}'" in macro
    counted = [*failed[:4], _result("cdc_quarantine_counts", "success")]
    assert quarantine.recount_args(counted) is None
    assert quarantine.recount_args([_result("cdc_quarantine_counts", "skipped")]) is None
