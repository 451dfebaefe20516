"""Issue 44's landings, end to end: in a project made by `init`, one `make
run` of a landing holding

- `shop.public.orders` as the S3 sink writes it: its records spread over
  two partitions (`partition=<p>/` folders), files of at most three records
  named `<topic>+<partition>+<startOffset>.json.gz`, each with its gzipped
  keys and headers files;
- `shop.public.coupons` as gzipped kcat dumps (one of them with updates
  whose TOASTed column is Debezium's unavailable-value placeholder);
- `postgres.tpcch.district` (plain values) gzipped;
- `dbserver1.inventory.customers` (plain values with schema blocks) as a
  zstd-compressed file;

builds each topic's current state equal to the plain-Python reference
model, accounts for every landed record (the base models' `cdc_checks`
pass, and raw = staged + quarantined, counted here), and exposes the sink's
headers on the staging view."""

from __future__ import annotations

import gzip
import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import zstandard
from backlog import Backlog
from project_paths import PROJECT, SAMPLE_LANDING, copy_sample_topic
from project_runs import run_in
from reference_model import current_state, decode_decimal, events

from python_helpers.project.init_project import fresh_project

pytestmark = pytest.mark.spark

ORDERS = "shop.public.orders"
COUPONS = "shop.public.coupons"
DISTRICT = "postgres.tpcch.district"
CUSTOMERS = "dbserver1.inventory.customers"
ORDERS_SOURCE = SAMPLE_LANDING / ORDERS / "orders-kcat.jsonl"
COUPONS_SOURCES = sorted((SAMPLE_LANDING / COUPONS).glob("*.jsonl"))
DISTRICT_SOURCE = SAMPLE_LANDING / DISTRICT / "district.jsonl"
CUSTOMERS_SOURCE = SAMPLE_LANDING / CUSTOMERS / "rw-mysql-customers-schema.jsonl"
VIEWS = {
    ORDERS: "cdc_current.postgres__shop_public_orders",
    COUPONS: "cdc_current.postgres__shop_public_coupons",
    DISTRICT: "cdc_current.postgres__postgres_tpcch_district",
    CUSTOMERS: "cdc_current.mysql__dbserver1_inventory_customers",
}
STAGING_ORDERS = "cdc_staging.stg_postgres__shop_public_orders"
QUARANTINE_ORDERS = "cdc_staging.stg_postgres__shop_public_orders__quarantine"
RAW_ORDERS = "cdc_landing.shop_public_orders"
FILE_RECORDS = 3


def _gzip_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress("".join(line + "\n" for line in lines).encode("utf-8")))


def _as_s3_sink(topic_dir: Path, source: Path) -> list[dict[str, Any]]:
    """The kcat dump ``source`` rewritten as the S3 sink writes a topic of
    two partitions (a key always in the same one); returns each record with
    the coordinates the files' names give it."""
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    by_partition: dict[int, list[dict[str, Any]]] = {0: [], 1: []}
    for record in records:
        key = json.loads(record["key"])["payload"]["order_id"] if record["key"] else 0
        by_partition[key % 2].append(record)
    landed = []
    for partition, items in by_partition.items():
        for start in range(0, len(items), FILE_RECORDS):
            chunk = items[start : start + FILE_RECORDS]
            stem = topic_dir / f"partition={partition}" / f"{ORDERS}+{partition}+{start:010d}"
            # a tombstone is an empty line, a record without a key `null`
            values = [r["payload"] or "" for r in chunk]
            _gzip_lines(stem.with_name(stem.name + ".json.gz"), values)
            keys = [r["key"] or "null" for r in chunk]
            _gzip_lines(stem.with_name(stem.name + ".keys.json.gz"), keys)
            headers = [
                json.dumps(
                    [
                        {"key": "__debezium.context.connectorName", "value": "shop"},
                        {"key": "source.offset", "value": str(r["offset"])},
                    ]
                )
                for r in chunk
            ]
            _gzip_lines(stem.with_name(stem.name + ".headers.json.gz"), headers)
            for line, record in enumerate(chunk):
                landed.append(
                    record
                    | {
                        "partition": partition,
                        "offset": start + line,
                        "dumped_at": record["offset"],
                    }
                )
    return landed


def _landing(root: Path) -> dict[str, Any]:
    landing = root / "landing"
    orders = copy_sample_topic(ORDERS, landing)
    for path in orders.glob("*.jsonl"):
        path.unlink()  # the sample's bad-input file is another test's business
    sink_records = _as_s3_sink(orders, ORDERS_SOURCE)
    coupons = copy_sample_topic(COUPONS, landing)
    for source in COUPONS_SOURCES:
        (coupons / source.name).unlink()
        _gzip_lines(coupons / (source.name + ".gz"), source.read_text().splitlines())
    district = copy_sample_topic(DISTRICT, landing)
    (district / "district.jsonl").unlink()
    _gzip_lines(district / "district.jsonl.gz", DISTRICT_SOURCE.read_text().splitlines())
    customers = copy_sample_topic(CUSTOMERS, landing)
    (customers / CUSTOMERS_SOURCE.name).unlink()
    compressed = zstandard.ZstdCompressor().compress(CUSTOMERS_SOURCE.read_bytes())
    (customers / (CUSTOMERS_SOURCE.name + ".zst")).write_bytes(compressed)
    return {"landing": landing, "sink_records": sink_records}


def _layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("layouts")
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-layouts" / "project")
    state = project / ".state"
    built = _landing(root)
    venv = Path(sys.executable).parents[1]
    make_run = ["make", "--no-print-directory", "run", f"VENV={venv}"]
    built["run"] = run_in(project, state, *make_run, f"CDC_LANDING_DIR={built['landing']}")
    tables = [*VIEWS.values(), STAGING_ORDERS, QUARANTINE_ORDERS, RAW_ORDERS]
    helpers = [sys.executable, "-m", "python_helpers"]
    built["exported"] = json.loads(run_in(project, state, *helpers, "export", *tables))
    return built


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _layouts
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 91


@pytest.fixture(scope="module")
def layouts(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def _rows(layouts: dict[str, Any], table: str) -> list[dict[str, Any]]:
    return [json.loads(row) for row in layouts["exported"][table]["rows"]]


def test_the_run_builds_every_topic_and_accounts_for_every_record(
    layouts: dict[str, Any],
) -> None:
    """The run exits 0 (run_in checks it: every model built, every check
    passed); its summary counts each landed record staged, quarantined or a
    tombstone."""
    found = re.search(
        r"(\d+) topic\(s\), (\d+) landed, (\d+) staged, (\d+) quarantined, (\d+) tombstones",
        layouts["run"],
    )
    assert found is not None, layouts["run"][-3000:]
    topics, landed, staged, quarantined, tombstones = (int(n) for n in found.groups())
    assert topics == len(VIEWS) and landed == staged + quarantined + tombstones > 0


def test_the_sink_layout_builds_the_reference_state(layouts: dict[str, Any]) -> None:
    expected = current_state(events(ORDERS_SOURCE), "order_id")
    actual = {row["order_id"]: row for row in _rows(layouts, VIEWS[ORDERS])}
    assert sorted(actual) == sorted(expected) == [1, 3, 4, 5]
    for order_id, source in expected.items():
        row = actual[order_id]
        assert Decimal(str(row["amount"])) == decode_decimal(source["amount"], 2)
        assert (row["status"], row["attributes"]) == (source["status"], source["attributes"])


def test_the_sink_records_keep_the_coordinates_keys_and_headers_of_their_files(
    layouts: dict[str, Any],
) -> None:
    raw = _rows(layouts, RAW_ORDERS)
    staged = _rows(layouts, STAGING_ORDERS)
    quarantined = _rows(layouts, QUARANTINE_ORDERS)
    # every landed record accounted for: staged or quarantined, once
    assert len(raw) == len(layouts["sink_records"]) == len(staged) + len(quarantined)
    expected = {(r["partition"], r["offset"]): r for r in layouts["sink_records"]}
    assert {(r["kafka_partition"], r["kafka_offset"]) for r in raw} == set(expected)
    for row in raw:
        assert row["kafka_key"] == expected[(row["kafka_partition"], row["kafka_offset"])]["key"]
    for row in staged:
        record = expected[(row["_kafka_partition"], row["_kafka_offset"])]
        assert row["_kafka_headers"] == {
            "__debezium.context.connectorName": "shop",
            "source.offset": str(record["dumped_at"]),
        }
        assert row["_landing_file"].startswith(f"{ORDERS}/partition={row['_kafka_partition']}/")


def test_compressed_dumps_build_the_reference_state(layouts: dict[str, Any]) -> None:
    coupons = current_state([e for f in COUPONS_SOURCES for e in events(f)], "coupon_id")
    by_id = {row["coupon_id"]: row for row in _rows(layouts, VIEWS[COUPONS])}
    assert sorted(by_id) == sorted(coupons) and coupons
    for key, source in coupons.items():
        assert Decimal(str(by_id[key]["discount"])) == decode_decimal(source["discount"], 2)
        assert by_id[key]["code"] == source["code"]
    district = current_state(events(DISTRICT_SOURCE), "d_id", "d_w_id")
    rows = _rows(layouts, VIEWS[DISTRICT])
    assert {(r["d_id"], r["d_w_id"]) for r in rows} == set(district)
    for row in rows:
        source = district[(row["d_id"], row["d_w_id"])]
        assert (row["d_name"], row["d_next_o_id"]) == (source["d_name"], source["d_next_o_id"])
    customers = current_state(events(CUSTOMERS_SOURCE), "id")
    actual = {row["id"]: row for row in _rows(layouts, VIEWS[CUSTOMERS])}
    assert sorted(actual) == sorted(customers)
    for key, source in customers.items():
        assert actual[key]["email"] == source["email"]
