"""SHA-256 of files, read in chunks (memory stays bounded)."""

from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20


def file_digest(path: Path, limit: int | None = None) -> str:
    """SHA-256 of a file's first ``limit`` bytes (all of it by default)."""
    digest = hashlib.sha256()
    left = path.stat().st_size if limit is None else limit
    with path.open("rb") as handle:
        while left > 0:
            chunk = handle.read(min(_CHUNK, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def text_md5(text: str) -> str:
    """MD5 of a text's UTF-8 bytes (names a version of a small file)."""
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()
