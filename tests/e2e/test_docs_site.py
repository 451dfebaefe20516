"""The lineage docs site, in a real browser.

On the warehouse the shared end-to-end runs built, `make docs` generates
the site and serves it on 127.0.0.1; headless Chromium (Debian's package,
driven by Playwright, offline flags) opens it. Checked: every column of
every model and source in the warehouse is described (the generated
catalog against the project's properties: on its model, on its topic's
staging or current-state model, or once on the overview), the overview page shows the
flow picture, the lineage graph of a current-state view shows its state
table, staging and base models and raw source, and a model page shows its
columns' descriptions and what its layer guarantees. Screenshots are
kept in `.state/artifacts/`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from project_paths import PROJECT

pytestmark = pytest.mark.spark

ARTIFACTS = PROJECT / ".state" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
# no background connections: this machine's network is closed
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MODEL = "postgres__shop_public_orders"
# the nodes the lineage graph shows (dbt-docs keeps its cytoscape graph in window.graph)
VISIBLE = "window.graph.nodes().filter(n => n.visible())"
LINEAGE = {
    "model.cdc.postgres__shop_public_orders",
    "model.cdc.postgres__shop_public_orders__state",
    "model.cdc.stg_postgres__shop_public_orders",
    "model.cdc.base_postgres__shop_public_orders",
    "source.cdc.postgres_landing.shop_public_orders",
}


@pytest.fixture(scope="module")
def site(runs_docs_site: str) -> str:
    """`make docs` on the end-to-end warehouse, serving (the shared runs'
    thread starts it once they are built: tests/support/docs_server.py)."""
    return runs_docs_site


def _overview_columns() -> set[str]:
    """The metadata columns the overview describes, once for every model."""
    overview = (PROJECT / "models" / "docs" / "overview.md").read_text(encoding="utf-8")
    return set(re.findall(r"^- \*\*`(\w+)`\*\*: \S", overview, re.MULTILINE))


def _described(node: dict[str, Any]) -> set[str]:
    """The columns a node describes: in its properties, or listed in its
    description as the overview lists its columns (a staging model shows
    its connector's `_cdc_source_*` columns, one doc block per connector)."""
    listed = re.findall(r"^- \*\*`(\w+)`\*\*: \S", node.get("description") or "", re.MULTILINE)
    return {
        name.lower() for name, column in node["columns"].items() if column["description"].strip()
    } | {name.lower() for name in listed}


def _undocumented(manifest: dict[str, Any], catalog: dict[str, Any]) -> list[str]:
    """Columns of the warehouse described nowhere: not on their model, not
    on the staging or current-state model of its topic (a plumbing model's
    row columns are those models'), not on the overview (metadata columns;
    `_cdc_source_<field>` in its connector's doc block, which the staging
    model's description shows)."""
    by_topic: dict[str, set[str]] = {}
    for node in manifest["nodes"].values():
        meta = node.get("config", {}).get("meta", {})
        if node["resource_type"] == "model" and meta.get("cdc_layer") in ("staging", "current"):
            by_topic.setdefault(meta["cdc_topic"], set()).update(_described(node))
    overview = _overview_columns()
    missing = []
    for kind in ("nodes", "sources"):
        for unique_id, entry in catalog[kind].items():
            node = manifest[kind].get(unique_id)
            if node is None:
                continue
            topic = node.get("config", {}).get("meta", {}).get("cdc_topic")
            described = _described(node) | by_topic.get(topic, set()) | overview
            missing += [
                f"{node['name']}.{name}"
                for name in entry["columns"]
                if name.lower() not in described
            ]
    return missing


def test_every_column_in_the_warehouse_is_documented(site: str) -> None:
    target = PROJECT / "target"
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    catalog = json.loads((target / "catalog.json").read_text(encoding="utf-8"))
    assert len(catalog["nodes"]) > 100 and len(catalog["sources"]) > 20
    assert {"_cdc_op", "_kafka_offset", "kafka_value", "valid_from"} <= _overview_columns()
    assert _undocumented(manifest, catalog) == []


def _plain(markdown: str) -> str:
    """Text with every run of white space as one space (the columns table
    shows descriptions as written)."""
    return re.sub(r"\s+", " ", markdown).strip()


def test_lineage_graph_and_column_descriptions_in_chromium(site: str) -> None:
    from playwright.sync_api import sync_playwright

    manifest = json.loads((PROJECT / "target" / "manifest.json").read_text(encoding="utf-8"))
    columns = manifest["nodes"][f"model.cdc.{MODEL}"]["columns"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{site}/#!/model/model.cdc.{MODEL}?g_v=1&g_i=%2B{MODEL}")
        page.wait_for_function(f"window.graph && {VISIBLE}.length > 1")
        shown = set(page.evaluate(f"{VISIBLE}.map(n => n.id())"))
        page.screenshot(path=str(ARTIFACTS / "docs-lineage.png"))
        assert shown == LINEAGE

        # the overview page shows the flow picture (assets/flow.svg)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{site}/#!/overview")
        flow = (
            "[...document.images]"
            ".some(i => i.src.endsWith('assets/flow.svg') && i.naturalWidth > 0)"
        )
        page.wait_for_function(flow)
        page.screenshot(path=str(ARTIFACTS / "docs-overview.png"))
        # ... and describes the metadata columns, once for every model
        text = page.inner_text("body")
        assert "Metadata columns" in text and "_quarantine_reason" in text

        # the quarantine summary's page: its columns and the reasons' table
        # (the doc block sync renders from the seed)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{site}/#!/model/model.cdc.cdc_quarantine_summary")
        page.wait_for_function("document.body.innerText.includes('truncated_json')")
        summary_page = _plain(page.inner_text("body"))
        page.screenshot(path=str(ARTIFACTS / "docs-quarantine-summary.png"), full_page=True)

        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{site}/#!/model/model.cdc.{MODEL}")
        first = _plain(columns["order_id"]["description"])
        page.wait_for_function(f"document.body.innerText.includes({json.dumps(first[:40])})")
        page.screenshot(path=str(ARTIFACTS / "docs-model.png"), full_page=True)
        text = _plain(page.inner_text("body"))
        browser.close()
    for name, column in columns.items():
        assert _plain(column["description"])[:60] in text, name
    # the model's description ends in its layer's guarantee (a doc block,
    # rendered as markdown: the bold lead shows as plain text)
    assert "Guaranteed — source order, not arrival order." in text
    # ... and links where its metadata columns are described
    assert "described once, on the overview" in text
    assert "Quarantine at a glance" in summary_page and "example_kafka_offset" in summary_page
    reasons = (PROJECT / "seeds" / "cdc_quarantine_reasons.csv").read_text(encoding="utf-8")
    for reason in [line.split(",", 1)[0] for line in reasons.splitlines()[1:]]:
        assert reason in summary_page, reason
    assert "what to do" in summary_page


def _signature(macro: dict[str, Any]) -> list[str]:
    if re.match(r"\{%-?\s*materialization\s", macro["macro_sql"]):
        return []  # a materialization takes no arguments
    found = re.search(r"(?:macro|test)\s+\w+\(([^)]*)\)", macro["macro_sql"])
    assert found is not None, macro["name"]
    return [part.split("=")[0].strip() for part in found.group(1).split(",") if part.strip()]


def test_every_macro_is_documented_with_typed_arguments(site: str) -> None:
    """Every public macro (not `_*`, not a `default__*` dispatch
    implementation) has a description, and documents exactly the arguments
    of its signature, each with a type and a description."""
    manifest = json.loads((PROJECT / "target" / "manifest.json").read_text(encoding="utf-8"))
    public = [
        macro
        for macro in manifest["macros"].values()
        if macro["package_name"] == "cdc" and not macro["name"].startswith(("_", "default__"))
    ]
    assert len(public) > 40
    for macro in public:
        assert macro["description"].strip(), macro["name"]
        documented = [argument["name"] for argument in macro["arguments"]]
        assert documented == _signature(macro), macro["name"]
        for argument in macro["arguments"]:
            assert argument["type"] and argument["description"], (macro["name"], argument)
