"""Test hooks: die at a named point, as a crash would.

``CDC_TEST_CRASH_AT=<point>`` makes the process SIGKILL itself when it
reaches that point (its Spark JVM exits with it: pyspark's gateway ends when
its parent's pipe closes). The crash test uses it to reach, every time, a
window a timed kill would hit only by chance. Unset, a point costs one
environment look-up.
"""

from __future__ import annotations

import os
import signal

CRASH_AT = "CDC_TEST_CRASH_AT"
# a topic's raw rows are committed, its manifest rows (the batch's commit)
# are not written yet
AFTER_RAW_APPEND = "after_raw_append"


def crash_point(name: str) -> None:
    """SIGKILL this process if ``CDC_TEST_CRASH_AT`` names ``name``."""
    if os.environ.get(CRASH_AT) == name:
        os.kill(os.getpid(), signal.SIGKILL)
