"""A topic's columns, built once (topic/topics.py `Topic.columns`): the
row columns in the row image's order with the person's words about each,
then the other columns the declaration describes."""

from __future__ import annotations

import shutil
from pathlib import Path

from project_paths import ORDERS_TOPIC, SAMPLE_LANDING

from python_helpers.project.sync import sync
from python_helpers.topic import spec_files
from python_helpers.topic.settings import Declaration
from python_helpers.topic.topics import Topic

TESTS = [{"accepted_values": {"arguments": {"values": ["new", "paid", "shipped"]}}}]


def test_columns_carry_the_declarations_words(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(SAMPLE_LANDING / ORDERS_TOPIC, landing / ORDERS_TOPIC)
    sync(tmp_path, landing)
    spec = spec_files.load_specs(tmp_path)[ORDERS_TOPIC]
    settings = {
        "columns": {
            "status": {"description": "  Where the order is.\n", "data_tests": TESTS},
            "order_id": {"description": "   "},  # blank: nothing said
            "note": {"description": "Not a row column."},
        }
    }
    topic = Topic(spec, Declaration.parse(settings, tmp_path / "topics" / "x.yml"))
    columns = topic.columns
    rows = [column for column in columns if column.decoded is not None]
    # the row columns, decoded as the spec decodes them, in its order
    assert [(c.source, c.name, c.decoded) for c in rows] == [
        (r.source, r.name, r.decoded) for r in spec.row_columns
    ]
    by_source = {column.source: column for column in columns}
    assert by_source["status"].description == "Where the order is."
    assert by_source["status"].data_tests == tuple(TESTS)
    assert by_source["order_id"].description is None
    assert by_source["order_id"].data_tests == ()
    # a described column the row image lacks comes last, undecoded
    assert columns[-1].source == "note" and columns[-1].decoded is None
    assert columns[-1].description == "Not a row column."
    # built once
    assert topic.columns is columns
