"""A topic landed from a Kafka-source table, without Spark: its declaration
(`landing: {table:, topic:}`, checked), the offsets a landing reads from,
the manifest rows it commits, and its sync from the records its landing
read (tests/e2e/test_kafka_table_landing.py lands and builds for real)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from project_paths import ORDERS_TOPIC, SAMPLE_LANDING

from python_helpers.land.kafka_tables import (
    TableLanding,
    manifest_rows,
    next_offsets,
    records_select,
)
from python_helpers.land.manifest import ManifestEntry
from python_helpers.project.sync import sync
from python_helpers.schema.envelope import SpecError
from python_helpers.topic import declarations
from python_helpers.topic.settings import Declaration

ORIGIN = Path("topics/shop.public.orders.yml")


def test_a_landing_declaration_names_a_table_and_a_kafka_topic() -> None:
    parsed = Declaration.parse({"landing": {"table": "kafka.events", "topic": "a.b-c"}}, ORIGIN)
    assert (parsed.landing_table, parsed.landing_topic) == ("kafka.events", "a.b-c")
    defaulted = Declaration.parse({"landing": {"table": "cat.kafka.events"}}, ORIGIN)
    assert (defaulted.landing_table, defaulted.landing_topic) == ("cat.kafka.events", None)
    assert Declaration.parse({}, ORIGIN).landing_table is None


@pytest.mark.parametrize(
    "landing",
    [
        "kafka.events",  # not a mapping
        {"topic": "x"},  # no table
        {"table": "kafka.events", "partition": 0},  # unknown key
        {"table": "kafka.events; drop table x"},  # text a statement would run
        {"table": "`kafka`.events"},
        {"table": "a.b.c.d"},
        {"table": "kafka.events", "topic": "${env:HOME}"},
        {"table": "kafka.events", "topic": "x" * 250},
    ],
)
def test_a_wrong_landing_is_refused_naming_its_file(landing: object) -> None:
    with pytest.raises(SpecError, match=re.escape(str(ORIGIN)) + ": landing"):
        Declaration.parse({"landing": landing}, ORIGIN)


def test_the_project_lists_its_table_landed_topics(tmp_path: Path) -> None:
    topics = tmp_path / "topics"
    topics.mkdir()
    (topics / "a.yml").write_text("landing: {table: kafka.events, topic: raw.a}\n")
    (topics / "b.yml").write_text("primary_key: id\n")
    (topics / "c.yml").write_text("landing: {table: kafka.events}\n")
    (topics / "d.yml").write_text("landing: {table: 'bad name'}\n")  # sync names it
    assert declarations.table_landings(tmp_path) == {
        "a": ("kafka.events", "raw.a"),
        "c": ("kafka.events", "c"),
    }


def test_a_landing_reads_each_partition_past_its_landed_offsets() -> None:
    source = TableLanding("shop.public.orders", "kafka.events", "shop.public.orders")
    entries = {
        "kafka.events#0": ManifestEntry(0, 0, "", 42, 1),
        "kafka.events#3": ManifestEntry(0, 0, "", 7, 2),
        "kafka.events#0 (copy 2)": ManifestEntry(0, 0, "", 99, 1),  # not a partition's
        "other.file.jsonl": ManifestEntry(10, 1, "x", 5, 1),
    }
    assert next_offsets(source, entries) == {0: 42, 3: 7}
    select = " ".join(records_select(source, {0: 42, 3: 7}, 5).split())
    assert "case partition when 0 then offset >= 42L when 3 then offset >= 7L else true end" in (
        select
    )
    assert "where topic = 'shop.public.orders'" in select
    assert manifest_rows("orders", {"kafka.events#0": 50, "kafka.events#0 (copy 2)": 50}, 9) == [
        "('orders', 'kafka.events#0', 0L, 0L, '', 50L, 9L)"
    ]


def test_a_table_landed_topic_is_synced_from_the_records_its_landing_read(
    tmp_path: Path,
) -> None:
    """No folder, no file: sync learns the topic's schema versions from the
    records (one per schema text, with its count) and generates its models;
    a plain sync leaves the topic alone."""
    (tmp_path / "topics").mkdir()
    declaration = tmp_path / "topics" / f"{ORDERS_TOPIC}.yml"
    declaration.write_text("landing: {table: kafka.events}\n", encoding="utf-8")
    lines = (SAMPLE_LANDING / ORDERS_TOPIC / "orders-kcat.jsonl").read_text().splitlines()
    records = [(json.loads(line)["payload"], json.loads(line)["key"], 1) for line in lines]
    landing = tmp_path / "landing"
    landing.mkdir()
    assert sync(tmp_path, landing).specs == {}
    result = sync(tmp_path, landing, records={ORDERS_TOPIC: records})
    assert set(result.specs) == {ORDERS_TOPIC}
    assert result.specs[ORDERS_TOPIC].primary_key == ("order_id",)
    assert any(p.name == "base_postgres__shop_public_orders.sql" for p in result.models)
    # the declaration stays the person's
    assert declaration.read_text(encoding="utf-8") == "landing: {table: kafka.events}\n"
    shutil.rmtree(landing)
