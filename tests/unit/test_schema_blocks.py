"""The schema blocks a topic's spec keeps whole (issue 54, item 3): a base
model recognises a value of a known version by its first bytes instead of
hashing its block, and looks for repeated envelope keys only after it. Both
hold only when the value's first bytes are exactly ``{"schema":<block>,
"payload":`` and the block is one whole JSON object: checked here against
the sample landings' own values, with a plain-Python cut independent of the
scanner."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from project_paths import SAMPLE_LANDING

from python_helpers.land.landing import topic_files
from python_helpers.schema.connect_schema import ConnectSchema, parse_schema
from python_helpers.topic.generate import BLOCKS_KEPT_CHARS, TopicSpec, render_spec
from python_helpers.topic.topic_schema import TopicSchemas, scan_file

BLOCK = {"type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}]}
PAYLOAD = '{"before":null,"after":{"id":1},"op":"c"}'


def _scanned(tmp_path: Path, lines: list[str], kcat: bool = False) -> TopicSchemas:
    path = tmp_path / ("values-kcat.jsonl" if kcat else "values.jsonl")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    collected = TopicSchemas("t")
    scan_file(path, kcat, collected)
    return collected


def _md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def _model_fingerprint(value: str) -> str | None:
    """What the base model's hash path computes (compact form): md5 of the
    bytes between the first 10 and the first ``,"payload":``."""
    raw = value.encode("utf-8")
    if not raw.startswith(b'{"schema":') or b',"payload":' not in raw:
        return None
    return hashlib.md5(raw[10 : raw.index(b',"payload":')]).hexdigest()


def test_a_compact_block_is_kept_with_its_fingerprint(tmp_path: Path) -> None:
    block = json.dumps(BLOCK, separators=(",", ":"))
    value = '{"schema":' + block + ',"payload":' + PAYLOAD + "}"
    collected = _scanned(tmp_path, [value])
    assert collected.schema_blocks == {_md5(block): block}
    assert _model_fingerprint(value) == _md5(block)


def test_a_kcat_value_keeps_its_block_as_landed(tmp_path: Path) -> None:
    """A kcat line holds the value as a JSON string: the block kept is the
    decoded text, the bytes the landed value starts with."""
    block = json.dumps(BLOCK | {"doc": 'naïve "quoted"'}, separators=(",", ":"))
    value = '{"schema":' + block + ',"payload":' + PAYLOAD + "}"
    line = json.dumps({"topic": "t", "offset": 0, "key": None, "payload": value})
    collected = _scanned(tmp_path, [line], kcat=True)
    assert collected.schema_blocks == {_md5(block): block}
    assert collected.schema_fingerprints == {_md5(block)}


@pytest.mark.parametrize(
    "value",
    [
        # spaced marks: the value does not start with the compact prefix
        '{"schema": ' + json.dumps(BLOCK) + ', "payload": ' + PAYLOAD + "}",
        # a key of the envelope between the block and the payload: the cut
        # is not one whole JSON object (a duplicate `op` would hide in it)
        '{"schema":'
        + json.dumps(BLOCK, separators=(",", ":"))
        + ',"op":"d","payload":'
        + PAYLOAD
        + "}",
        # a block holding the payload mark: the model cuts it shorter
        '{"schema":{"type":"struct","doc":"x","fields":[],"name":"a","parameters":'
        '{"k":"v","payload":"p"}},"payload":' + PAYLOAD + "}",
    ],
)
def test_a_block_the_first_bytes_cannot_tell_is_not_kept(tmp_path: Path, value: str) -> None:
    collected = _scanned(tmp_path, [value])
    assert collected.schema_blocks == {}
    assert collected.schema_fingerprints  # still fingerprinted (hashed by the model)


def test_the_newest_blocks_are_kept_up_to_the_limit() -> None:
    blocks = {f"{n:032x}": "x" * (BLOCKS_KEPT_CHARS // 3) for n in range(5)}
    spec = TopicSpec(
        topic="t",
        connector="postgresql",
        source_table=None,
        primary_key=(),
        value_schema=_value_schema(),
        key_schema=None,
        schema_blocks=blocks,
    )
    kept = render_spec(spec)["schema_blocks"]
    assert list(kept) == list(blocks)[-3:]  # the newest three, oldest first


def _value_schema() -> ConnectSchema:
    after = BLOCK | {"field": "after", "optional": True}
    return parse_schema({"type": "struct", "fields": [after, {"type": "string", "field": "op"}]})


@pytest.mark.parametrize("topic", sorted(p.name for p in SAMPLE_LANDING.iterdir() if p.is_dir()))
def test_every_sample_value_starting_with_a_kept_block_has_its_fingerprint(topic: str) -> None:
    """The base model's shortcut and its hash agree on every landed value of
    the samples (their bad-input files included)."""
    collected = TopicSchemas(topic)
    values: list[str] = []
    for item in topic_files(SAMPLE_LANDING / topic):
        scan_file(item.path, item.is_kcat, collected)
        for line in item.path.read_text(encoding="utf-8", errors="replace").splitlines():
            if item.is_kcat:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                value = record.get("payload") if isinstance(record, dict) else None
            else:
                value = line.strip()
            if isinstance(value, str):
                values.append(value)
    for fingerprint, block in collected.schema_blocks.items():
        assert _md5(block) == fingerprint
        assert isinstance(json.loads(block), dict)
        prefix = '{"schema":' + block + ',"payload":'
        starting = [v for v in values if v.startswith(prefix)]
        assert starting, f"no value starts with the kept block {fingerprint}"
        assert {_model_fingerprint(v) for v in starting} == {fingerprint}
