"""The other doors of text from the data (docs/guarantees.md): landing
folders that are not Kafka topic names or lead out of the landing, a
landing's topic.yml, and the watch's endpoint off loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from python_helpers.engine.watch_endpoint import check_bind, is_loopback
from python_helpers.land.landing import jsonl_paths, refused_dirs, topic_dirs, topic_name_problem
from python_helpers.spec.declarations import DeclarationError, declared


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
    assert [p.name for p in jsonl_paths(landing / "shop.public.orders")] == ["a.jsonl"]
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
