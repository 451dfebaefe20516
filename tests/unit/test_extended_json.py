"""MongoDB documents: extended-JSON type inference, merge rules, and what
sync generates for a MongoDB topic (no Spark)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from project_paths import FIXTURES, SAMPLE_LANDING

from python_helpers.connectors.mongodb import document_columns, observe, tagged_parse_type
from python_helpers.project.sync import sync
from python_helpers.schema.extended_json import DocType, infer, merge, set_path

MONGODB = FIXTURES / "mongodb"


def test_every_bson_type_of_the_paimon_document() -> None:
    document = json.loads((MONGODB / "paimon-all-bson-types.json").read_text())
    expected = json.loads((MONGODB / "paimon-all-bson-types.types.json").read_text())
    expected.pop("_provenance")
    inferred = infer(document)
    assert {name: kind.spark_type() for name, kind in inferred.fields} == expected


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([1, {"$numberLong": "5"}], "long"),
        ([1, 2.5], "double"),
        ([{"$numberInt": "1"}, {"$numberDouble": "2.5"}], "double"),
        ([1, "1"], "json"),
        ([{"a": 1}, [1]], "json"),
        ([None, "x"], "string"),
        ([None], "null"),
        (
            [{"$date": 1}, {"$date": "2020-01-01T00:00:00Z"}, {"$date": {"$numberLong": "1"}}],
            "date",
        ),
        ([{"$binary": "AA==", "$type": "00"}], "binary"),
        ([{"$binary": {"base64": "AA==", "subType": "04"}}, {"$uuid": "x"}], "uuid"),
        ([{"$oid": "596e275826f08b2730779e1f"}], "oid"),
        ([{"$timestamp": {"t": 1, "i": 2}}], "json"),
        ([2**31], "long"),
    ],
)
def test_merge_rules(values: list[Any], kind: str) -> None:
    merged = DocType("null")
    for value in values:
        merged = merge(merged, infer(value))
    assert merged.kind == kind


def test_documents_merge_field_by_field_and_decimals_keep_the_larger_scale() -> None:
    left = infer({"a": {"$numberDecimal": "1.5"}, "b": {"x": 1}})
    right = infer({"b": {"y": "s"}, "a": {"$numberDecimal": "2.125"}, "c": [1]})
    merged = merge(left, right)
    assert merged.spark_type() == (
        "struct<`a`: decimal(38,3), `b`: struct<`x`: int, `y`: string>, `c`: array<int>>"
    )
    assert DocType.from_json(merged.to_json()) == merged


def test_update_paths_type_nested_fields_and_array_items() -> None:
    base = infer({"_id": 1, "tags": ["a"], "address": {"city": "x"}})
    updated = set_path(base, ["address", "geo", "lat"], infer(1.5))
    updated = set_path(updated, ["tags", "3"], infer("d"))
    assert updated.spark_type() == (
        "struct<`_id`: int, `tags`: array<string>,"
        " `address`: struct<`city`: string, `geo`: struct<`lat`: double>>>"
    )


def test_observe_reads_patches_and_skips_positional_paths() -> None:
    document = observe(None, {"after": '{"_id": 1, "qty": 1}', "source": {}})
    document = observe(
        document,
        {"patch": '{"$set": {"dims.h": 2, "items.$.qty": "x"}, "$unset": {"qty": true}}'},
    )
    document = observe(
        document,
        {"updateDescription": {"updatedFields": '{"score": {"$numberLong": "3"}}'}},
    )
    document = observe(document, {"patch": '{"_id": 1, "sku": "a"}'})  # replacement
    assert [c["name"] for c in document_columns(document)] == ["qty", "dims", "score", "sku"]
    assert tagged_parse_type(document) == (
        "struct<`S_id`: string, `Sqty`: string, `Sdims`: struct<`Sh`: string>,"
        " `Sscore`: string, `Ssku`: string>"
    )


def test_sync_scaffolds_mongodb_topics_with_or_without_schema_blocks(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    for topic in (
        "rw_mongo.inventory.customers",
        "mongodb_bigdata_test.bigdata_test.sync_test_table",
    ):
        shutil.copytree(SAMPLE_LANDING / topic, landing / topic)
    result = sync(tmp_path, landing)
    assert not result.skipped
    specs = result.specs
    assert {s.connector for s in specs.values()} == {"mongodb"}
    assert all(s.primary_key == ("_id",) for s in specs.values())
    rw = specs["rw_mongo.inventory.customers"].document
    assert rw is not None and [n for n, _ in rw.fields] == [
        "_id",
        "first_name",
        "last_name",
        "email",
    ]
    names = sorted(p.name for p in (tmp_path / "models" / "current" / "mongodb").iterdir())
    assert "mongodb__rw_mongo_inventory_customers.sql" in names
    current = (
        tmp_path / "models" / "current" / "mongodb" / "mongodb__rw_mongo_inventory_customers.sql"
    )
    assert (
        "cdc_mongodb_current_state('events', 'rw_mongo.inventory.customers')" in current.read_text()
    )
    again = sync(tmp_path, landing, state_dir=tmp_path / "state")
    assert not again.scaffolded and not again.generated_changed


def _change_stream_line(ord_: int, after: dict[str, Any] | None, updated: dict[str, Any]) -> str:
    value = {
        "after": json.dumps(after) if after else None,
        "updateDescription": None if after else {"updatedFields": json.dumps(updated)},
        "source": {"connector": "mongodb", "db": "d", "collection": "c", "ord": ord_, "ts_ms": 1},
        "op": "r" if after else "u",
    }
    return json.dumps(value)


def test_incremental_sync_reads_item_paths_against_the_known_type(tmp_path: Path) -> None:
    """A later batch of `tags.0` updates alone must not turn a known array
    into JSON text (found by the benchmark's 1 % batch)."""
    topic = tmp_path / "landing" / "m.d.c"
    topic.mkdir(parents=True)
    first = [_change_stream_line(1, {"_id": 1, "tags": ["a"], "n": {"x": 1}}, {})]
    (topic / "a.jsonl").write_text("\n".join(first) + "\n")
    state = tmp_path / "state"
    before = sync(tmp_path, tmp_path / "landing", state_dir=state).specs["m.d.c"].document
    later = [_change_stream_line(2, None, {"tags.0": "b", "n.x": 2})]
    (topic / "b.jsonl").write_text("\n".join(later) + "\n")
    after = sync(tmp_path, tmp_path / "landing", state_dir=state).specs["m.d.c"].document
    assert before is not None and after is not None
    assert after.to_json() == before.to_json()
    assert dict(after.fields)["tags"].spark_type() == "array<string>"
