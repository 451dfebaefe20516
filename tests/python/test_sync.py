"""sync: generated schemas are deterministic, up to date, and scaffolding works."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import ORDERS_TOPIC, PRODUCTS_TOPIC, SAMPLE_LANDING

from python_helpers.connect_schema import ConnectSchema, merge_schemas, parse_schema
from python_helpers.generate import GENERATED_MACRO, read_macro, render_macro
from python_helpers.landing import topic_files
from python_helpers.sync import sync
from python_helpers.topic_schema import TopicSchemas, scan_file


def test_generated_schemas_are_up_to_date(project: Path) -> None:
    result = sync(project, SAMPLE_LANDING, check=True)
    assert not result.generated_changed, "run `python -m python_helpers sync`"
    topics = {p.name for p in SAMPLE_LANDING.iterdir() if p.is_dir()}
    assert set(result.specs) == topics and {PRODUCTS_TOPIC, ORDERS_TOPIC} <= topics


def test_render_is_deterministic_and_round_trips(project: Path) -> None:
    text = (project / GENERATED_MACRO).read_text(encoding="utf-8")
    specs = read_macro(text)
    assert render_macro(specs) == text
    assert text.startswith("{#-\n    GENERATED")


def test_orders_spec_merges_schema_versions(project: Path) -> None:
    specs = read_macro((project / GENERATED_MACRO).read_text(encoding="utf-8"))
    orders = specs[ORDERS_TOPIC]
    assert orders.primary_key == ("order_id",)  # from the key schema
    assert specs[PRODUCTS_TOPIC].primary_key == ("id",)  # from topic.yml
    after = orders.value_schema.field_named("after")
    assert after is not None
    coupon = after.schema.field_named("coupon")
    assert coupon is not None and coupon.schema.optional  # added by a later version


def test_sync_scaffolds_a_new_topic_once(tmp_path: Path, project: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / "shop.sales.orders")
    result = sync(tmp_path, landing)
    written = {p.relative_to(tmp_path).as_posix() for p in result.scaffolded}
    assert "models/staging/postgres/stg_postgres__public_orders.sql" in written
    assert "models/current/postgres/postgres__public_orders.sql" in written
    models = yaml.safe_load(
        (tmp_path / "models/staging/postgres/_postgres__models.yml").read_text()
    )["models"]
    metas = {m["name"]: m["config"]["meta"] for m in models}
    assert metas["stg_postgres__public_orders"] == {
        "cdc_topic": "shop.sales.orders",
        "cdc_layer": "staging",
    }
    current_sql = (tmp_path / "models/current/postgres/postgres__public_orders.sql").read_text()
    assert "unique_key=['order_id']" in current_sql
    again = sync(tmp_path, landing)
    assert again.scaffolded == [] and not again.generated_changed


def test_topic_without_schema_blocks_is_reported(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    (landing / "bare").mkdir(parents=True)
    (landing / "bare" / "a.jsonl").write_text('{"op": "c", "after": {"id": 1}}\n')
    result = sync(tmp_path, landing)
    assert "bare" in result.skipped and "schema block" in result.skipped["bare"]


def _full_parse(topic_dir: Path) -> tuple[ConnectSchema | None, ConnectSchema | None]:
    """Independent reference: parse every event whole, merge every block."""
    value = key = None
    for path in sorted(topic_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            texts = [(record, None)]
            if isinstance(record, dict) and "partition" in record and "offset" in record:
                texts = [(record.get("payload"), "v"), (record.get("key"), "k")]
            for text, kind in texts:
                try:
                    message = json.loads(text) if isinstance(text, str) else text
                except ValueError:
                    continue
                if not (isinstance(message, dict) and isinstance(message.get("schema"), dict)):
                    continue
                block = parse_schema(message["schema"])
                if kind == "k":
                    key = block if key is None else merge_schemas(key, block)
                else:
                    value = block if value is None else merge_schemas(value, block)
    return value, key


@pytest.mark.parametrize("topic", sorted(p.name for p in SAMPLE_LANDING.iterdir() if p.is_dir()))
def test_text_cut_scan_matches_a_full_parse(topic: str) -> None:
    collected = TopicSchemas(topic)
    for item in topic_files(SAMPLE_LANDING / topic):
        scan_file(item.path, item.is_kcat, collected)
    value, key = _full_parse(SAMPLE_LANDING / topic)
    assert value is not None and collected.value_schema == value
    assert collected.key_schema == key
    assert collected.connector == "postgresql"


def test_sync_scans_only_what_is_new(tmp_path: Path, project: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / ORDERS_TOPIC)
    state = tmp_path / "state"
    first = sync(tmp_path, landing, state_dir=state)
    assert first.bytes_scanned == (landing / ORDERS_TOPIC / "orders-kcat.jsonl").stat().st_size
    again = sync(tmp_path, landing, state_dir=state)
    assert (again.bytes_scanned, again.files_unchanged) == (0, 1)
    line = (SAMPLE_LANDING / ORDERS_TOPIC / "orders-kcat.jsonl").read_text().splitlines()[0]
    with (landing / ORDERS_TOPIC / "orders-kcat.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    grown = sync(tmp_path, landing, state_dir=state)
    assert grown.bytes_scanned == len(line.encode()) + 1
    assert grown.specs[ORDERS_TOPIC] == first.specs[ORDERS_TOPIC]
