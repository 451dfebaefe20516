"""Which files of a topic folder land and how (issue 44), without Spark:
sink layouts and their names' coordinates, keys and headers files beside
their values, compressed files read as their twins, what is not read."""

from __future__ import annotations

import gzip
from pathlib import Path

import zstandard

from python_helpers.connectors import flattened
from python_helpers.land.landing import (
    SinkCoordinates,
    count_lines,
    is_kcat_file,
    landing_paths,
    topic_files,
)

TOPIC = "shop.public.orders"


def _put(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_sink_layout_is_found_below_the_topic_folder_with_its_coordinates(
    tmp_path: Path,
) -> None:
    folder = tmp_path / TOPIC
    stem = folder / "partition=3" / f"{TOPIC}+3+0000000042"
    _put(stem.with_name(stem.name + ".json.gz"), gzip.compress(b'{"a":1}\n'))
    _put(stem.with_name(stem.name + ".keys.json.gz"), gzip.compress(b'{"id":1}\n'))
    _put(stem.with_name(stem.name + ".headers.json.gz"), gzip.compress(b"[]\n"))
    _put(folder / "year=2026" / "month=11" / f"{TOPIC}+0+0000000007.json", b"{}\n")
    _put(folder / "dump.jsonl.zst", zstandard.ZstdCompressor().compress(b"{}\n"))
    for ignored in ("+tmp/x.json", ".part.jsonl", "partition=3/_SUCCESS", "notes.txt"):
        _put(folder / ignored, b"{}\n")
    files = {f.below: f for f in topic_files(folder)}
    assert sorted(files) == [
        "dump.jsonl.zst",
        f"partition=3/{TOPIC}+3+0000000042.json.gz",
        f"year=2026/month=11/{TOPIC}+0+0000000007.json",
    ]
    sink = files[f"partition=3/{TOPIC}+3+0000000042.json.gz"]
    assert sink.sink == SinkCoordinates(3, 42)
    assert sink.keys is not None and sink.keys.name.endswith(".keys.json.gz")
    assert sink.headers is not None and sink.headers.name.endswith(".headers.json.gz")
    assert sink.relative == f"{TOPIC}/partition=3/{TOPIC}+3+0000000042.json.gz"
    assert files["dump.jsonl.zst"].sink is None and files["dump.jsonl.zst"].compressed
    time_based = files[f"year=2026/month=11/{TOPIC}+0+0000000007.json"]
    assert time_based.sink == SinkCoordinates(0, 7) and time_based.keys is None


def test_compressed_files_are_read_as_their_uncompressed_twins(tmp_path: Path) -> None:
    kcat = b'{"topic":"t","partition":0,"offset":0,"key":null,"payload":"{}"}\n'
    text = kcat * 2 + b"{}"
    # several gzip members and zstd frames read as their concatenation
    gz = _put(tmp_path / "a.jsonl.gz", gzip.compress(kcat) + gzip.compress(kcat + b"{}"))
    frames = zstandard.ZstdCompressor()
    zst = _put(tmp_path / "b.jsonl.zst", frames.compress(kcat) + frames.compress(kcat + b"{}"))
    plain = _put(tmp_path / "c.jsonl", text)
    for path in (gz, zst, plain):
        assert count_lines(path) == 3, path
        assert is_kcat_file(path), path


def test_a_kcat_dump_named_like_a_sink_file_keeps_its_own_coordinates(tmp_path: Path) -> None:
    line = b'{"topic":"t","partition":5,"offset":9,"key":null,"payload":"{}"}\n'
    _put(tmp_path / "t" / "t+0+0000000000.jsonl", line)
    (only,) = topic_files(tmp_path / "t")
    assert only.is_kcat and only.sink is None


def test_landing_paths_leave_out_hidden_names_anywhere(tmp_path: Path) -> None:
    """...and the topic's own value-schema.json (a schemaless topic's
    schema, a setting: landed, its lines were quarantined as records)."""
    _put(tmp_path / "t" / "value-schema.json", b'{\n"type": "struct"\n}\n')
    _put(tmp_path / "t" / "sub" / "value-schema.json", b"{}\n")
    _put(tmp_path / "t" / ".staging" / "a.jsonl", b"{}\n")
    _put(tmp_path / "t" / "_tmp" / "b.jsonl", b"{}\n")
    _put(tmp_path / "t" / "ok" / "c.json", b"{}\n")
    found = [p.relative_to(tmp_path / "t").as_posix() for p in landing_paths(tmp_path / "t")]
    assert found == ["ok/c.json", "sub/value-schema.json"]


def test_flattened_rows_are_recognised_by_the_smt_metadata_fields() -> None:
    assert flattened.recognises({"id": 1, "__op": "c"})
    assert flattened.recognises({"id": 1, "status": "x", "__deleted": "false"})
    # no metadata: not recognised (declared instead); an envelope never
    assert not flattened.recognises({"id": 1, "status": "paid"})
    assert not flattened.recognises({"op": "c", "after": {"__x": 1}, "__op": "c"})


def test_a_flattened_schema_block_becomes_an_envelope_of_its_row() -> None:
    block = {
        "type": "struct",
        "name": "t.Value",
        "optional": False,
        "fields": [
            {"type": "int32", "optional": False, "field": "id"},
            {"type": "string", "optional": True, "field": "__op"},
            {"type": "string", "optional": True, "field": "__deleted"},
        ],
    }
    envelope = flattened.as_envelope(block)
    assert [f["field"] for f in envelope["fields"]] == ["before", "after"]
    for image in envelope["fields"]:
        assert [f["field"] for f in image["fields"]] == ["id"]
        assert image["optional"] is True
