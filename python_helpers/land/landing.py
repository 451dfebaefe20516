"""The landing directory: which topic folders and files there are, and how
each file is to be read.

Contract (docs/landing.md): one sub-folder per topic; its files are found
anywhere below it (a sink's ``partition=<p>/`` or ``year=/month=/`` folders),
named ``*.jsonl`` or ``*.json``, each possibly compressed (``.gz``, ``.zst``);
names and folders starting with ``.``, ``_`` or ``+`` (temporary files, a
sink's ``+tmp``, ``_SUCCESS``) are not read, nor the folder's own
``value-schema.json`` (a schemaless topic's schema). A file is either

* **kcat form**: every line is the JSON object ``kcat -C -J`` prints, with
  ``topic``, ``partition``, ``offset``, ``ts`` (ms), ``key`` and ``payload``
  (the message value string, ``null`` for a tombstone); or
* **plain form**: every line is one message value as a Kafka Connect
  file/S3 sink writes it; an empty line is a tombstone. The topic is the
  folder name; such a record has no Kafka coordinates (the partition is
  null, so it is never taken for a duplicate of a record that has them) and
  its offset column holds the line's position across the folder's plain
  files taken in name order (the ordering's last tie-break); or
* **sink form**: plain form in a file named as Kafka Connect's storage sinks
  name theirs, ``<topic>+<partition>+<startOffset>.<ext>``: its records have
  that partition, and offset = start offset + the line's place in the file.
  The keys and headers files the S3 sink writes beside it
  (``….keys.json``, ``….headers.json``, ``store.kafka.keys``/``headers``)
  are read with it, line by line.

The form of a file is judged by the first of its first lines that is JSON
(a byte-order mark ignored): a kcat object makes it a kcat file. A first
line that is cut short or garbled does not decide it. Reading the
records themselves is Spark's job (``raw_store``); this module only looks at
file names, sizes and first lines, so it costs nothing on large dumps.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

import zstandard

KCAT_KEYS = frozenset({"topic", "partition", "offset", "payload"})
COMPRESSIONS = (".gz", ".zst")
VALUE_SUFFIXES = (".jsonl", ".json")
# every ending a landing file's name can have (``.jsonl``, ``.json.gz``...)
ENDINGS = tuple(suffix + packed for packed in ("", *COMPRESSIONS) for suffix in VALUE_SUFFIXES)
# the files a sink writes beside a value file (``<stem>.keys.json[.gz]``)
COMPANIONS = (".keys", ".headers")
_SINK_NAME = re.compile(r"(?P<topic>.+)\+(?P<partition>[0-9]{1,9})\+(?P<offset>[0-9]{1,19})\Z")
TOPIC_CONFIG_FILE = "topic.yml"
# a schemaless topic's value schema, beside its dumps: a setting, never data
VALUE_SCHEMA_FILE = "value-schema.json"
BOM = "\ufeff"
# how many non-empty lines may fail to parse before a file's form is judged
# plain: every line of a kcat file is a kcat object, so the first that
# parses decides
_FORM_LINES = 100
_CHUNK = 1 << 20


@dataclass(frozen=True)
class SinkCoordinates:
    """What a storage sink's file name says of its records."""

    partition: int
    start_offset: int


@dataclass(frozen=True)
class LandingFile:
    """One dump file of a topic folder."""

    path: Path
    topic: str
    is_kcat: bool
    # its path below the topic folder (``partition=0/t+0+0.json.gz``)
    below: str = ""
    sink: SinkCoordinates | None = None
    keys: Path | None = None  # a sink's keys file for it
    headers: Path | None = None  # a sink's headers file for it

    @property
    def relative(self) -> str:
        """``<topic>/<path below the topic folder>``: how the raw tables and
        the manifest name the file."""
        return f"{self.topic}/{self.below or self.path.name}"

    @property
    def compressed(self) -> bool:
        return self.path.name.endswith(COMPRESSIONS)


# Kafka's rule for topic names (its Topic.validate): 1-249 of these, not "." or ".."
_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}\Z")


def topic_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a Kafka topic (and so no topic folder), or None."""
    if name in (".", "..") or not _TOPIC_NAME.match(name):
        return (
            "not a Kafka topic name (1 to 249 of the letters a-z, A-Z, the digits,"
            " '.', '_' and '-'; not '.' or '..')"
        )
    return None


def _outside(path: Path, landing: Path) -> bool:
    """Whether ``path`` (a symbolic link, or under one) leads out of ``landing``."""
    return not path.resolve().is_relative_to(landing.resolve())


def _candidates(landing: Path) -> list[Path]:
    if not landing.is_dir():
        raise FileNotFoundError(f"landing directory {landing} does not exist")
    return sorted(p for p in landing.iterdir() if p.is_dir() and not p.name.startswith("."))


def refused_dirs(landing: Path) -> dict[str, str]:
    """The folders of a landing that are not landed, by name, with the reason:
    a name Kafka does not allow, or a symbolic link out of the landing."""
    refused = {}
    for path in _candidates(landing):
        problem = topic_name_problem(path.name)
        if problem is None and _outside(path, landing):
            problem = "a symbolic link out of the landing folder: nothing outside it is read"
        if problem is not None:
            refused[path.name] = problem
    return refused


def topic_dirs(landing: Path) -> list[Path]:
    """The topic folders of a landing, sorted by name (the refused ones,
    ``refused_dirs``, left out)."""
    refused = refused_dirs(landing)
    return [p for p in _candidates(landing) if p.name not in refused]


def _parsed_line(line: str) -> object:
    """The JSON of one line (a byte-order mark ignored), or None."""
    try:
        return json.loads(line.lstrip(BOM))
    except (ValueError, RecursionError):
        return None


def open_binary(path: Path) -> BinaryIO:
    """A landing file's bytes, decompressed as its name says (``.gz``,
    ``.zst``: a stream of several members or frames reads as their
    concatenation, as ``zcat`` does)."""
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    if path.name.endswith(".zst"):
        reader = zstandard.ZstdDecompressor().stream_reader(
            path.open("rb"), read_across_frames=True, closefd=True
        )
        return io.BufferedReader(reader)
    return path.open("rb")


def is_kcat_file(path: Path) -> bool:
    """Whether a landing file is in kcat form: judged by the first of its
    first non-empty lines that is JSON (kcat form if that is a kcat object),
    so a first line cut short, garbled or behind a byte-order mark does not
    turn a kcat file into a plain one."""
    tried = 0
    with io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.strip(BOM + " \t\r\n"):
                continue
            parsed = _parsed_line(line)
            if parsed is not None:
                return isinstance(parsed, dict) and parsed.keys() >= KCAT_KEYS
            tried += 1
            if tried >= _FORM_LINES:
                break
    return False


def _stem(name: str) -> str | None:
    """A value file's name without its extensions (None: not a value file,
    or a sink's keys or headers file)."""
    for ending in ENDINGS:
        if name.endswith(ending) and len(name) > len(ending):
            stem = name[: -len(ending)]
            return None if stem.endswith(COMPANIONS) else stem
    return None


def _hidden(part: str) -> bool:
    return part.startswith((".", "_", "+"))


def landing_paths(topic_dir: Path) -> list[Path]:
    """The value files anywhere below one topic folder, sorted by their
    path below it (hidden names, sinks' keys and headers files, and
    symbolic links that lead out of the folder are not read)."""
    return [
        path
        for path in _visible(topic_dir)
        if _stem(path.name) is not None
        and path.relative_to(topic_dir).parts != (VALUE_SCHEMA_FILE,)
        and path.is_file()
        and not _outside(path, topic_dir)
    ]


def links_out(topic_dir: Path) -> list[Path]:
    """The files below one topic folder that are not read because they are
    symbolic links (or under one) leading out of it, sorted: what a run
    names instead of skipping them without a word."""
    return [
        path
        for path in _visible(topic_dir)
        if (path.is_symlink() or path.is_file()) and _outside(path, topic_dir)
    ]


def _visible(topic_dir: Path) -> list[Path]:
    """Everything below one topic folder but hidden names (and what is below
    them), sorted by its path below the folder."""
    found = [
        path
        for path in topic_dir.rglob("*")
        if not any(_hidden(part) for part in path.relative_to(topic_dir).parts)
    ]
    return sorted(found, key=lambda p: p.relative_to(topic_dir).as_posix())


def _companion(path: Path, stem: str, kind: str) -> Path | None:
    """The sink's ``kind`` file (``.keys``, ``.headers``) of a value file."""
    for ending in ENDINGS:
        candidate = path.with_name(stem + kind + ending)
        if candidate.is_file() and not _outside(candidate, path.parent):
            return candidate
    return None


def landing_file(topic_dir: Path, path: Path) -> LandingFile:
    """One value file of a topic folder: its form, and what its name says."""
    stem = _stem(path.name) or path.name
    kcat = is_kcat_file(path)
    named = None if kcat else _SINK_NAME.match(stem)
    sink = SinkCoordinates(int(named["partition"]), int(named["offset"])) if named else None
    return LandingFile(
        path,
        topic_dir.name,
        kcat,
        path.relative_to(topic_dir).as_posix(),
        sink,
        _companion(path, stem, ".keys") if sink else None,
        _companion(path, stem, ".headers") if sink else None,
    )


def topic_files(topic_dir: Path) -> list[LandingFile]:
    """The dump files of one topic folder, sorted by path, with their form."""
    return [landing_file(topic_dir, path) for path in landing_paths(topic_dir)]


def count_lines(path: Path) -> int:
    """Lines in a file as Spark's text reader (and Python) split them: a
    line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``; a last line without
    a terminator counts too. Reads in chunks: memory stays bounded."""
    lines = 0
    last = b""
    previous_cr = False
    with open_binary(path) as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
            if previous_cr and chunk.startswith(b"\n"):
                lines -= 1  # a \r\n split across two chunks
            previous_cr = chunk.endswith(b"\r")
            last = chunk[-1:]
    return lines + (1 if last and last not in (b"\n", b"\r") else 0)
