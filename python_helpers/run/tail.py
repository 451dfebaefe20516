"""What a watch cycle leaves until the landing is quiet: tests and maintenance.

A watch cycle makes the changes visible first (``dbt run`` of the changed
topics, ``checks``). What follows a build and does not change what
readers see, the topics' tests and the tables' maintenance (seconds of
work), runs at the end of a cycle once no cycle landed anything for
``QUIET_SECONDS`` and no landing file of a known topic waits, or when
``every`` seconds passed since it last ran: a steady stream delays it,
never starves it, and an event arriving just after a cycle does not wait
behind it. ``every`` 0: after every cycle, the tests inside the build as
``make run`` does (a failing test stops its topic's merge).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

QUIET_SECONDS = 5.0


class Tail:
    """The deferred part of a watch's cycles."""

    def __init__(self, every: float, waiting: Callable[[], bool]) -> None:
        self.every = every
        self.waiting = waiting
        self.touched: dict[str, Any] = {}
        self.last = self.busy = time.monotonic()

    @property
    def defers(self) -> bool:
        """Whether cycles build without their tests (``dbt run``)."""
        return self.every > 0

    def due(self, touched: dict[str, Any]) -> bool:
        """Add what a cycle touched; whether the tail runs now."""
        now = time.monotonic()
        if touched:
            self.touched.update(touched)
            self.busy = now
        if not self.defers or now - self.last >= self.every:
            self.last = now
            return True
        if now - self.busy < QUIET_SECONDS or self.waiting():
            return False
        self.last = now
        return True

    def take(self) -> dict[str, Any]:
        """What the cycles touched since the tail last ran (then forgotten)."""
        touched, self.touched = self.touched, {}
        return touched
