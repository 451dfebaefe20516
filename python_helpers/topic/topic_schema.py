"""Collect what a topic's events say about themselves, cheaply.

Every event repeats its schema block, so the scan never parses events: it
cuts the schema block's text out of each line (``{"schema":`` up to
``,"payload":``, escaped or not, inside a kcat line or a plain value),
keeps the distinct texts, and parses only the first event of each distinct
text (for the block itself and the connector / source table). A line the
cut does not fit is parsed whole. Files are read in binary chunks, so memory
stays bounded, and a scan can resume at a byte offset (``sync`` keeps one per
file: a sync with nothing new reads nothing).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from python_helpers import connectors
from python_helpers.land.landing import open_binary
from python_helpers.schema.connect_schema import (
    ConnectSchema,
    SchemaError,
    merge_schemas,
    parse_schema,
)
from python_helpers.schema.extended_json import DocType
from python_helpers.schema.metadata_topics import CHANGES, SOURCELESS, kind_of
from python_helpers.schema.schema_evolution import QUARANTINE, IncompatibleColumn, evolve

_PLAIN = (b'{"schema":', b',"payload":')
_ESCAPED = (b'{\\"schema\\":', b',\\"payload\\":')
# the same marks with any whitespace a JSON writer may put around them
_LOOSE = {
    _PLAIN: (re.compile(rb'\{\s*"schema"\s*:'), re.compile(rb',\s*"payload"\s*:')),
    _ESCAPED: (re.compile(rb'\{\s*\\"schema\\"\s*:'), re.compile(rb',\s*\\"payload\\"\s*:')),
}


def text_digest(text: bytes) -> str:
    """A short stable name for a schema block's text."""
    return hashlib.sha1(text).hexdigest()


def block_text(cut: bytes, escaped: bool) -> str | None:
    """A value's schema block as landed (``escaped``: the cut was taken
    inside a kcat line, where the value is a JSON string), or None when it
    is not text a landed value can hold."""
    try:
        text = json.loads(b'"' + cut + b'"') if escaped else cut.decode("utf-8")
        text.encode("utf-8")  # a lone surrogate from an escape
    except ValueError:
        return None
    return str(text)


def schema_fingerprint(text: str) -> str:
    """The fingerprint the base models compute for a value's schema block
    (cdc_schema_fingerprint): md5 of its exact text as landed (block_text),
    i.e. between ``{"schema":`` and ``,"payload":`` of the value."""
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def recognisable(text: str) -> bool:
    """Whether a value that starts with ``{"schema":<text>,"payload":`` has
    ``text`` as the block the base model cuts (at the first ``,"payload":``)
    and holds no key of the envelope: then the value's first bytes tell its
    fingerprint, and its envelope's keys are all after them
    (cdc_schema_fingerprint, _cdc_after_known_block)."""
    if (text + ',"payload":').find(',"payload":') != len(text):
        return False
    return isinstance(_loads(text), dict)  # one whole JSON object


@dataclass
class TopicSchemas:
    """Merged schemas and facts gathered from one topic's events."""

    topic: str
    value_schema: ConnectSchema | None = None
    key_schema: ConnectSchema | None = None
    connector: str | None = None
    source_table: str | None = None
    kind: str = CHANGES
    source_fields: list[str] = field(default_factory=list)
    events: int = 0
    events_with_schema: int = 0
    seen: set[str] = field(default_factory=set)
    # MongoDB topics: the merged type of the documents seen (every event is
    # read, since documents are data, not schema blocks)
    document: DocType | None = None
    # fingerprints of the distinct value schema blocks seen (schema_fingerprint)
    schema_fingerprints: set[str] = field(default_factory=set)
    # fingerprint -> the block's text as landed, for the recognisable ones
    schema_blocks: dict[str, str] = field(default_factory=dict)
    # the value schema of each fingerprint (per-version decoding)
    versions: dict[str, ConnectSchema] = field(default_factory=dict)
    # schema evolution (see schema_evolution): the topic's policy, the table
    # schema an earlier sync established, and the versions whose row
    # columns it cannot take in place
    policy: str = QUARANTINE
    established: ConnectSchema | None = None
    incompatible: dict[str, list[IncompatibleColumn]] = field(default_factory=dict)
    # versions whose block is not a readable Kafka Connect schema: why
    invalid: dict[str, str] = field(default_factory=dict)

    def _merged(self, current: ConnectSchema | None, block: dict[str, Any]) -> ConnectSchema:
        parsed = parse_schema(block)
        return parsed if current is None else merge_schemas(current, parsed)

    def add_value(self, value: dict[str, Any], fingerprint: str | None = None) -> None:
        """Merge the schema block and source facts of one parsed value
        (``fingerprint``: of its schema block's text, when known)."""
        schema = value.get("schema") if "payload" in value else None
        payload = value.get("payload") if "payload" in value else value
        # a layout only one connector writes (its source block, if any,
        # names none): never a metadata topic's event, whatever its columns
        # are called (a flattened row with `id` and `status`)
        recognised = connectors.recognising(payload) if isinstance(payload, dict) else None
        if recognised is not None:
            self.connector = self.connector or recognised.name
            if isinstance(schema, dict):
                schema = recognised.value_block(schema)
        if isinstance(schema, dict) and not self._add_version(schema, fingerprint):
            return
        if not isinstance(payload, dict):
            return
        kind = CHANGES if recognised is not None else kind_of(payload)
        if kind != CHANGES:
            self.kind = kind
            if isinstance(payload.get("source"), dict):
                for name in payload["source"]:
                    if name not in self.source_fields:
                        self.source_fields.append(name)
            if kind in SOURCELESS:
                self.connector = self.connector or connectors.metadata_connector().name
        documents = _documents_connector(payload)
        if isinstance(payload.get("source"), dict):
            source = payload["source"]
            self.connector = self.connector or source.get("connector")
            self.source_table = self.source_table or source_table_name(source)
            for name in source if documents else ():
                if name not in self.source_fields:
                    self.source_fields.append(name)
        if documents is not None:
            self.document = documents.observe(self.document, payload)
        elif recognised is not None:
            self.source_table = self.source_table or recognised.source_table(payload)

    def _add_version(self, block: dict[str, Any], fingerprint: str | None) -> bool:
        """Judge one schema version against the table; False when its
        block cannot be read (its records are quarantined, not merged)."""
        try:
            parsed = parse_schema(block)
        except (SchemaError, RecursionError) as error:
            reason = "nested too deep" if isinstance(error, RecursionError) else str(error)
            if fingerprint is not None:
                self.invalid[fingerprint] = reason[:300]
            return False
        if fingerprint is not None:
            self.versions[fingerprint] = parsed
        base = self.value_schema if self.value_schema is not None else self.established
        self.value_schema, found = evolve(base, parsed, self.policy)
        if found and fingerprint is not None:
            self.incompatible[fingerprint] = found
        return True

    def add_key(self, key: dict[str, Any]) -> None:
        """Merge the schema block of one parsed key."""
        schema = key.get("schema") if "payload" in key else None
        if isinstance(schema, dict):
            # an unreadable key block is skipped: the base model checks keys
            with contextlib.suppress(SchemaError, RecursionError):
                self.key_schema = self._merged(self.key_schema, schema)


def source_table_name(source: dict[str, Any]) -> str | None:
    """``schema_table`` (or ``db_table``) named by a Debezium source block."""
    table = source.get("table") or source.get("collection")
    if not table:
        return None
    owner = source.get("schema") or source.get("db")
    return f"{owner}_{table}" if owner else str(table)


def _cut(text: bytes, start: int, marks: tuple[bytes, bytes]) -> bytes | None:
    """The schema block's text in ``text`` at ``start``, or None."""
    if text.startswith(marks[0], start):
        end = text.find(marks[1], start)
        if end > 0:
            return text[start + len(marks[0]) : end]
    opening, closing = _LOOSE[marks]
    found = opening.match(text, start)
    ending = closing.search(text, found.end()) if found else None
    return text[found.end() : ending.start()] if found and ending else None


def _kcat_field(line: bytes, name: bytes) -> int:
    """Where the string value of a kcat field starts (after its quote), or
    -1. An escaped ``\\"payload\\":`` inside a value cannot match."""
    at = line.find(b'"' + name + b'":')
    if at < 0:
        return -1
    at += len(name) + 3
    while at < len(line) and line[at : at + 1] == b" ":
        at += 1
    return at + 1 if line[at : at + 1] == b'"' else -1


def _loads(text: bytes | str) -> Any:
    """The parsed JSON, or None for text that is not JSON or is nested
    deeper than Python's parser goes (such a record is quarantined by the
    base model; it must not stop the scan)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class _Scanner:
    def __init__(self, result: TopicSchemas) -> None:
        self.result = result
        self.fingerprint: str | None = None  # of the last new schema block

    def _new(self, kind: str, text: bytes) -> bool:
        digest = f"{kind}:{text_digest(text)}"
        if digest in self.result.seen:
            return False
        self.result.seen.add(digest)
        return True

    def _new_schema(
        self, cut: bytes | None, line: bytes, at: int, marks: tuple[bytes, bytes]
    ) -> bool:
        """Whether ``cut`` (of ``line`` at ``at``) is a value schema text
        not seen before (its fingerprint is then kept, and its text when
        the value has it between the compact ``marks``)."""
        if cut is None or not self._new("v", cut):
            return False
        text = block_text(cut, escaped=marks == _ESCAPED)
        self.fingerprint = None
        if text is not None:
            self.fingerprint = schema_fingerprint(text)
            self.result.schema_fingerprints.add(self.fingerprint)
            compact = line.startswith(marks[0] + cut + marks[1], at)
            if compact and recognisable(text):
                self.result.schema_blocks[self.fingerprint] = text
        return True

    def _documents(self) -> bool:
        """Whether every value must be read (a MongoDB topic's documents)."""
        return connectors.shape_of(self.result.connector or "") == connectors.DOCUMENTS

    def _value(self, value_text: bytes | str | None, key_text: bytes | str | None) -> None:
        value = _loads(value_text) if value_text else None
        if isinstance(value, dict):
            self.result.add_value(value, self.fingerprint)
        self.fingerprint = None
        key = _loads(key_text) if key_text else None
        if isinstance(key, dict):
            self.result.add_key(key)

    def kcat(self, line: bytes) -> None:
        at = _kcat_field(line, b"payload")
        cut = _cut(line, at, _ESCAPED) if at > 0 else None
        key_at = _kcat_field(line, b"key")
        key_cut = _cut(line, key_at, _ESCAPED) if key_at > 0 else None
        if cut is not None:
            self.result.events_with_schema += 1
        # a value the cut does not fit is parsed whole, a MongoDB one always
        new_value = at > 0 and (
            cut is None or self._new_schema(cut, line, at, _ESCAPED) or self._documents()
        )
        new_key = key_cut is not None and self._new("k", key_cut)
        if not (new_value or new_key):
            return
        record = _loads(line)
        if not isinstance(record, dict):
            return
        payload, key = record.get("payload"), record.get("key")
        self._value(
            payload if isinstance(payload, str) and new_value else None,
            key if isinstance(key, str) and new_key else None,
        )

    def plain(self, line: bytes) -> None:
        stripped = line.strip()
        if not stripped:
            return
        cut = _cut(stripped, 0, _PLAIN)
        if cut is not None:
            self.result.events_with_schema += 1
        if cut is None or self._new_schema(cut, stripped, 0, _PLAIN) or self._documents():
            self._value(stripped, None)

    def key(self, line: bytes) -> None:
        """One line of a sink's keys file: a key as the JsonConverter wrote it."""
        stripped = line.strip()
        cut = _cut(stripped, 0, _PLAIN) if stripped else None
        if cut is not None and self._new("k", cut):
            self._value(None, stripped)


def scan_records(records: list[tuple[str | None, str | None, int]], result: TopicSchemas) -> None:
    """Scan records read through Spark (a topic landed from a Kafka-source
    table): each a value and a key as the JsonConverter wrote them, and how
    many records of the batch it stands for (one per distinct schema text
    is enough, except for documents, which come one by one)."""
    scanner = _Scanner(result)
    for value, key, count in records:
        result.events += count
        with_schema = result.events_with_schema
        if value is not None:
            scanner.plain(value.encode("utf-8", "surrogatepass"))
        if result.events_with_schema > with_schema:
            result.events_with_schema += count - 1
        if key is not None:
            scanner.key(key.encode("utf-8", "surrogatepass"))


def scan_keys(path: Path, result: TopicSchemas) -> None:
    """Scan a sink's keys file for the key schema blocks it holds."""
    scanner = _Scanner(result)
    with open_binary(path) as handle:
        for line in handle:
            scanner.key(line)


def scan_file(path: Path, is_kcat: bool, result: TopicSchemas, start: int = 0) -> int:
    """Scan one file from byte ``start`` (of its decompressed bytes, if it
    is compressed); returns the offset after its last complete line (where
    a later scan resumes)."""
    scanner = _Scanner(result)
    handle_line = scanner.kcat if is_kcat else scanner.plain
    position = start
    with open_binary(path) as handle:
        if start:
            handle.seek(start)  # never for a compressed file (it is read whole)
        for line in handle:
            result.events += 1
            handle_line(line)
            if line.endswith(b"\n"):
                position += len(line)
            # else: a last line without its newline is scanned again next time
    return position


def _documents_connector(payload: dict[str, Any]) -> connectors.Connector | None:
    """The connector of a value payload when it stages documents: its
    documents' fields are observed."""
    source = payload.get("source")
    name = source.get("connector") if isinstance(source, dict) else None
    if not isinstance(name, str) or connectors.shape_of(name) != connectors.DOCUMENTS:
        return None
    return connectors.lookup(name)
