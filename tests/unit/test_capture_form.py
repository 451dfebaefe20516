"""`capture` writes records as `kcat -J` prints them, and the landing
reads them back as such (python_helpers/capture/kafka_form.py)."""

from __future__ import annotations

import json
from pathlib import Path

from python_helpers.capture.kafka_form import OFFSETS_FILE, KafkaRecord, KcatWriter
from python_helpers.land.landing import KCAT_KEYS, is_kcat_file, landing_paths, topic_dirs


def test_offsets_continue_per_topic_and_partition_across_captures(tmp_path: Path) -> None:
    value = '{"schema":null,"payload":{"op":"c"}}'
    first = KcatWriter(tmp_path)
    first.write(KafkaRecord("a", 0, 1, '{"id":1}', value, (("__debezium.oldkey", '{"id":0}'),)))
    first.write(KafkaRecord("a", 0, 2, '{"id":1}', None))  # a tombstone
    first.write(KafkaRecord("b", 1, 3, None, value))
    first.close()
    second = KcatWriter(tmp_path)
    second.write(KafkaRecord("a", 0, 4, '{"id":2}', value))
    second.close()
    lines = [json.loads(line) for line in (tmp_path / "a" / "capture.jsonl").open()]
    assert [line["offset"] for line in lines] == [0, 1, 2]
    assert lines[0].keys() >= KCAT_KEYS
    assert lines[0]["headers"] == ["__debezium.oldkey", '{"id":0}']
    assert lines[1]["payload"] is None and "headers" not in lines[1]
    (b_line,) = [json.loads(line) for line in (tmp_path / "b" / "capture.jsonl").open()]
    assert (b_line["partition"], b_line["offset"], b_line["key"]) == (1, 0, None)
    assert first.written == {"a": 2, "b": 1} and second.written == {"a": 1}
    # the offsets note is a dot file: never read as a topic or a landing file
    assert (tmp_path / OFFSETS_FILE).exists()
    assert [folder.name for folder in topic_dirs(tmp_path)] == ["a", "b"]
    assert landing_paths(tmp_path / "a") == [tmp_path / "a" / "capture.jsonl"]
    assert is_kcat_file(tmp_path / "a" / "capture.jsonl")
