"""Which files of a topic folder a landing reads, and from which line: an
unchanged file not at all, a grown one from its last landed line, anything
else whole (compressed files Spark cannot read get a decompressed copy)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from python_helpers.digest import file_digest, text_md5
from python_helpers.land.landing import LandingFile, count_lines, open_binary
from python_helpers.land.manifest import ManifestEntry


@dataclass(frozen=True)
class FilePlan:
    """How one file is read in this batch."""

    file: LandingFile
    start_line: int
    first_offset: int  # plain files: offset of line 0
    size: int
    mtime_ns: int
    # what Spark reads: the file itself, or its decompressed copy
    # (``spark_readable``); likewise the sink's keys and headers files
    read: Path | None = None
    keys_read: Path | None = None
    headers_read: Path | None = None

    @property
    def spark_path(self) -> Path:
        return self.read or self.file.path


def _numbered_by_folder(item: LandingFile) -> bool:
    """Whether a file's offsets are its lines' places across the folder's
    such files (plain form without a sink's name)."""
    return not item.is_kcat and item.sink is None


def spark_readable(path: Path | None, scratch: Path) -> Path | None:
    """``path``, or a decompressed copy of it under ``scratch`` where Spark
    cannot read it as it is: Spark reads ``.gz`` itself, not ``.zst`` (its
    codec needs Hadoop's native library)."""
    if path is None or not path.name.endswith(".zst"):
        return path
    scratch.mkdir(parents=True, exist_ok=True)
    # named by the file's path (the landing hashes its bytes once, for the
    # manifest), decompressed afresh each time: the file may have changed
    copy = scratch / f"{text_md5(str(path.resolve()))[:16]}-{path.name[: -len('.zst')]}"
    partial = copy.with_name(copy.name + ".partial")
    with open_binary(path) as source, partial.open("wb") as target:
        shutil.copyfileobj(source, target, 1 << 20)
    partial.replace(copy)
    return copy


def plan_files(
    files: list[LandingFile], manifest: dict[str, ManifestEntry], scratch: Path | None = None
) -> tuple[list[FilePlan], int]:
    """Which files to read and from which line; returns (plans, unchanged).
    A compressed file that changed is read whole (a compressed stream cannot
    be read from a byte on): the records it had already landed are found
    again and dropped by the duplicate check. Files Spark cannot read as
    they are get a decompressed copy under ``scratch``."""
    plans: list[FilePlan] = []
    unchanged = 0
    plain_offset = 0
    for item in files:
        stat = item.path.stat()
        entry = manifest.get(item.relative)
        start = 0
        if entry is not None and (entry.size, entry.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            unchanged += 1
            plain_offset += entry.lines if _numbered_by_folder(item) else 0
            continue
        grown = entry is not None and stat.st_size > entry.size and not item.compressed
        if grown and entry is not None and file_digest(item.path, entry.size) == entry.sha256:
            # the lines after those landed; the last one again when it had no
            # newline yet (a writer was mid-line: it lands whole now, and its
            # partial copy, if readable, is a duplicate the repair drops).
            # Re-reading a whole last line made every append a duplicate
            # repair (a merge on the raw table: seconds a cycle, issue 43)
            start = entry.lines if _ends_a_line(item.path, entry.size) else max(entry.lines - 1, 0)
        where = scratch or Path(tempfile.gettempdir()) / "cdc-landing-decompressed"
        plans.append(
            FilePlan(
                item,
                start,
                plain_offset,
                stat.st_size,
                stat.st_mtime_ns,
                spark_readable(item.path, where),
                spark_readable(item.keys, where),
                spark_readable(item.headers, where),
            )
        )
        if _numbered_by_folder(item):
            plain_offset += count_lines(item.path)
    return plans, unchanged


def _ends_a_line(path: Path, size: int) -> bool:
    """Whether the first ``size`` bytes of ``path`` end with a newline."""
    if size <= 0:
        return False
    with path.open("rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"
