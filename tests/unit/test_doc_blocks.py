"""The reference the docs site carries: every model of a topic names what
its layer guarantees (a doc block of models/docs/_cdc_guarantees.md in its
description), and every doc block a properties file calls is defined."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import yaml
from project_paths import PROJECT

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DOC_CALL = re.compile(r"""doc\(\s*["'](\w+)["']\s*\)""")
DOC_BLOCK = re.compile(r"{%-?\s*docs\s+(\w+)\s*-?%}")
# the layers of a topic whose models state a guarantee (the analysts'
# tables of metadata topics describe their rows only)
GUARANTEED = {
    "base",
    "staging",
    "quarantine",
    "heartbeats",
    "state",
    "current",
    "history",
    "changes",
    "consistent",
    "progress",
}


def _defined_blocks() -> set[str]:
    return {
        name
        for page in (PROJECT / "models").rglob("*.md")
        for name in DOC_BLOCK.findall(page.read_text(encoding="utf-8"))
    }


def _topic_models() -> list[dict[str, Any]]:
    models = []
    for path in sorted((PROJECT / "models").rglob("*.yml")):
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER) or {}
        for model in document.get("models") or []:
            meta = (model.get("config") or {}).get("meta") or {}
            if "cdc_topic" in meta:
                models.append(model | {"_meta": meta})
    return models


def test_every_topic_model_states_its_layers_guarantee() -> None:
    models = _topic_models()
    missing = []
    blocks: Counter[str] = Counter()
    for model in models:
        meta = model["_meta"]
        called = [b for b in DOC_CALL.findall(model["description"]) if "guarantee" in b]
        blocks.update(called)
        metadata_table = meta["cdc_layer"] == "current" and "cdc_kind" in meta
        if meta["cdc_layer"] in GUARANTEED and not metadata_table and len(called) != 1:
            missing.append(model["name"])
    assert len(models) > 200
    assert missing == []
    # each layer's own block: current views, state tables, histories,
    # MongoDB replays, metadata topics, consistent views, change feeds
    assert set(blocks) == {
        "cdc_guarantee_accounting",
        "cdc_guarantee_state",
        "cdc_guarantee_current",
        "cdc_guarantee_history",
        "cdc_guarantee_consistent",
        "cdc_guarantee_changes",
        "cdc_guarantee_document",
        "cdc_guarantee_metadata",
    }


def test_every_doc_block_called_is_defined() -> None:
    defined = _defined_blocks()
    called = {
        name
        for path in (PROJECT / "models").rglob("*.yml")
        for name in DOC_CALL.findall(path.read_text(encoding="utf-8"))
    }
    assert "cdc_guarantee_current" in called
    assert called - defined == set()


def test_metadata_columns_are_described_once_on_the_overview() -> None:
    """The metadata columns are not listed per model (only where one carries
    a test, or means something of its own there): the overview describes
    each of them once, and every guarantee block links there."""
    overview = (PROJECT / "models" / "docs" / "overview.md").read_text(encoding="utf-8")
    described = set(re.findall(r"^- \*\*`(\w+)`\*\*: \S", overview, re.MULTILINE))
    assert {"_cdc_op", "_kafka_offset", "_landing_line", "_quarantine_reason"} <= described
    assert {"valid_from", "_cdc_change", "kafka_timestamp_ms"} <= described
    for model in _topic_models():
        for column in model.get("columns") or []:
            if column["name"] in described:
                # listed for a test, or for a meaning of its own in this model
                own = column.get("description", "")
                assert column.get("data_tests") or own, (model["name"], column["name"])
                assert "doc(" not in own, (model["name"], column["name"])
    guarantees = (PROJECT / "models" / "docs" / "_cdc_guarantees.md").read_text(encoding="utf-8")
    blocks = DOC_BLOCK.findall(guarantees)
    assert blocks and guarantees.count("[overview](#!/overview)") == len(blocks)
