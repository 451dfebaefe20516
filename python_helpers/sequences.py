"""Small helpers on sequences, shared by modules that batch work."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

_T = TypeVar("_T")


def runs_of(items: list[_T], size: int) -> Iterator[list[_T]]:
    """``items`` in consecutive runs of ``size`` (the last may be shorter)."""
    for start in range(0, len(items), size):
        yield items[start : start + size]
