"""Flattened topics (ExtractNewRecordState, issue 44) in the shared run:
`pgflat.public.orders` (PostgreSQL; `add.fields=op,lsn,source.ts_ms`,
deletes rewritten as `__deleted` rows) and `myflat.inventory.customers`
(MySQL; the metadata in headers only, deletes as tombstones, declared
`connector: flattened`), each landed in two builds (tests/support/
flattened_smt.py). Their current state equals the plain-Python reference
(reference_model.flattened_changes), after the first build and the second."""

from __future__ import annotations

from typing import Any

import flattened_smt
import pytest
from e2e_harness import FLATTENED, FLATTENED_FILES, QUARANTINE_FLATTENED, STG_FLATTENED
from reference_model import current_state, decode_micros, flattened_changes

pytestmark = pytest.mark.spark

COLUMNS = {
    flattened_smt.PG_TOPIC: ("status", "qty"),
    flattened_smt.MYSQL_TOPIC: ("first_name", "last_name", "email"),
    flattened_smt.PLAIN_TOPIC: ("first_name", "last_name", "email"),
}


def _expected(topic: str, lines: int | None = None) -> dict[Any, dict[str, Any]]:
    changes = flattened_changes(FLATTENED_FILES[topic])
    if lines is not None:
        changes = changes[:lines]
    return current_state(changes, "id")


@pytest.mark.parametrize("topic", sorted(FLATTENED_FILES))
def test_flattened_topics_build_the_reference_state(runs: dict[str, Any], topic: str) -> None:
    for run, lines in (("first", flattened_smt.FIRST_LINES[topic]), ("second", None)):
        expected = _expected(topic, lines)
        actual = {row["id"]: row for row in runs[run][FLATTENED[topic]]["rows"]}
        assert sorted(actual) == sorted(expected), (run, topic)
        for key, source in expected.items():
            for column in COLUMNS[topic]:
                assert actual[key][column] == source[column], (run, topic, key, column)


def test_the_rewritten_delete_and_the_re_sent_create_keep_their_source_order(
    runs: dict[str, Any],
) -> None:
    """Key 2 deleted (a `__deleted` row) then created again; key 3's create
    re-sent after its update: the update stays (lsn, not arrival, orders)."""
    rows = {row["id"]: row for row in runs["second"][FLATTENED[flattened_smt.PG_TOPIC]]["rows"]}
    assert (rows[2]["status"], rows[3]["status"], rows[3]["qty"]) == ("again", "paid", 8)
    assert rows[1]["updated_at"] == decode_micros(1767225600000000 + 7000).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ"
    )


def test_tombstones_delete_their_key_in_its_batch_and_across_batches(
    runs: dict[str, Any],
) -> None:
    """1006 created and deleted in the second build; 1007 created, deleted
    and created again; 1002 created by the first build, its tombstone in
    the second. The staged tombstones are deletes ordered right after their
    key's previous record."""
    customers = FLATTENED[flattened_smt.MYSQL_TOPIC]
    first = {row["id"] for row in runs["first"][customers]["rows"]}
    second = {row["id"]: row for row in runs["second"][customers]["rows"]}
    assert 1002 in first and 1002 not in second and 1006 not in second
    assert second[1007]["email"] == "marie.curie@curie.org"
    staged = runs["second"][STG_FLATTENED[flattened_smt.MYSQL_TOPIC]]["rows"]
    deletes = sorted((row["id"], row["_cdc_op"]) for row in staged if row["_cdc_op"] == "d")
    # 1008's delete twice: the converter's {"schema": ..., "payload": null}, then the tombstone
    assert deletes == [(1002, "d"), (1006, "d"), (1007, "d"), (1008, "d"), (1008, "d")]
    assert 1008 not in second  # created and deleted in the second build
    positions = {row["_kafka_offset"]: row["_cdc_position"] for row in staged}
    # the tombstone of 1007 (offset 11) sorts after its create (10), before
    # the create again (12)
    assert positions[10] < positions[11] < positions[12]
    assert all(row["_cdc_source_file"] == "mysql-bin.000003" for row in staged)


def test_every_form_of_a_flattened_delete_deletes_its_key(runs: dict[str, Any]) -> None:
    """Without schema blocks, the key declared (`primary_key: id`, no key
    schema): a delete as the JSON text `null` (with and without the
    tombstone after it) deletes its key, read from the Kafka key; 2002 is
    created again after its delete. Nothing of the three flattened topics
    is quarantined: every delete form is a delete."""
    topic = flattened_smt.PLAIN_TOPIC
    current = {row["id"]: row for row in runs["second"][FLATTENED[topic]]["rows"]}
    assert sorted(current) == [2001, 2002]
    assert current[2002]["email"] == "turing@manchester.uk"
    assert current[2001]["email"] == "grace.hopper@navy.mil"
    staged = runs["second"][STG_FLATTENED[topic]]["rows"]
    deletes = sorted(row["id"] for row in staged if row["_cdc_op"] == "d")
    assert deletes == [2002, 2002, 2003]
    lines = FLATTENED_FILES[topic].read_text(encoding="utf-8").splitlines()
    assert len(staged) == len(lines)
    for name in FLATTENED_FILES:
        quarantine = runs["second"].get(QUARANTINE_FLATTENED[name], {"rows": []})["rows"]
        assert quarantine == [], (name, quarantine)
