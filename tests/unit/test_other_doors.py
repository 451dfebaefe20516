"""The other doors of text from the data (docs/guarantees.md): landing
folders that are not Kafka topic names or lead out of the landing, a
landing's topic.yml, and the watch's endpoint off loopback."""

from __future__ import annotations

from pathlib import Path

import kcat
import pytest
from fixtures.samples_snapshots import _stock_event
from hostile_names import hostile_topic
from kcat import field

from python_helpers.engine.watch_endpoint import check_bind, is_loopback
from python_helpers.land.landing import landing_paths, refused_dirs, topic_dirs, topic_name_problem
from python_helpers.project.sync import sync
from python_helpers.topic.declarations import DeclarationError, declared


def test_only_kafka_topic_names_inside_the_landing_are_landed(tmp_path: Path) -> None:
    landing, outside = tmp_path / "landing", tmp_path / "outside"
    for name in ("shop.public.orders", "bad topic", "x" * 250, "ünï", "a;b"):
        (landing / name).mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.jsonl").write_text("{}\n")
    (landing / "escape").symlink_to(outside, target_is_directory=True)
    (landing / "shop.public.orders" / "a.jsonl").write_text("{}\n")
    (landing / "shop.public.orders" / "b.jsonl").symlink_to(outside / "secret.jsonl")
    assert [p.name for p in topic_dirs(landing)] == ["shop.public.orders"]
    refused = refused_dirs(landing)
    assert sorted(refused) == sorted(["bad topic", "x" * 250, "ünï", "a;b", "escape"])
    assert "symbolic link out of the landing" in refused["escape"]
    assert [p.name for p in landing_paths(landing / "shop.public.orders")] == ["a.jsonl"]
    for name in (".", "..", "", "a/b"):
        assert topic_name_problem(name) is not None
    assert topic_name_problem("x" * 249) is None


def test_a_landing_topic_yml_is_loaded_safely_with_known_settings_only(tmp_path: Path) -> None:
    topic = tmp_path / "landing" / "shop.public.orders"
    topic.mkdir(parents=True)
    for text, message in (
        ("!!python/object/apply:os.system ['touch pwned']\n", "not YAML"),
        ("primary_key: id\nrun: rm -rf /\n", "unknown setting"),
    ):
        (topic / "topic.yml").write_text(text)
        with pytest.raises(DeclarationError, match=message):
            declared(tmp_path, topic)
    assert not (tmp_path / "pwned").exists()


def test_the_endpoint_leaves_loopback_only_with_authentication() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    check_bind("127.0.0.1", {})
    for host in ("0.0.0.0", "10.1.2.3", "example.org"):
        with pytest.raises(RuntimeError, match="without authentication"):
            check_bind(host, {})
        with pytest.raises(RuntimeError, match="NOSASL"):
            check_bind(host, {"hive.server2.authentication": "nosasl"})
        check_bind(host, {"hive.server2.authentication": "LDAP"})


def _landed(landing: Path, topic: str, dump: str) -> None:
    (landing / topic).mkdir(parents=True)
    (landing / topic / "dump.jsonl").write_text(dump, encoding="utf-8")


def test_a_schema_block_that_breaks_sync_leaves_only_its_topic_out(tmp_path: Path) -> None:
    """A Decimal whose `scale` parameter is no number (any text a schema
    block carries is data): its topic is left out with the error, the
    topic beside it is synced, and the next sync reads it again."""
    landing, project = tmp_path / "landing", tmp_path / "project"
    project.mkdir()
    amount = field(
        "bytes",
        "amount",
        True,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters={"scale": "x"},
    )
    fields = [field("int32", "item_id"), amount]
    key, value, ts = _stock_event(
        "postgresql",
        "dec",
        "c",
        1,
        None,
        100,
        prefix="bad",
        fields=fields,
        row={"item_id": 1, "amount": "AQ=="},
    )
    record = kcat.record("bad.public.dec", 0, 0, ts, kcat.compact(key), kcat.compact(value))
    dump = kcat.lines([record])
    _landed(landing, "bad.public.dec", dump)
    _landed(landing, *hostile_topic("postgresql", "control", ["note"], "good"))
    for _ in range(2):
        result = sync(project, landing, state_dir=tmp_path / "state")
        assert sorted(result.specs) == ["good.public.control"]
        assert "ValueError" in result.failed["bad.public.dec"], result.failed
