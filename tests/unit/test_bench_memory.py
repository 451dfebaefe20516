"""The benchmarks' memory column: a process tree's resident memory, an
address space counted once (bench/run.py)."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

from bench.run import _tree_rss

# a child that allocates ~200 MB and keeps it, then forks a copy of itself
# that sleeps without running another program (the copy shares the pages)
HOLDER = """
import os, sys, time
block = bytearray(200 * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
if os.fork() == 0:
    time.sleep(30)
    os._exit(0)
sys.stdout.write("ready\\n"); sys.stdout.flush()
time.sleep(30)
"""


def test_a_copy_of_its_parent_is_not_counted_again() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        watched = psutil.Process(child.pid)
        deadline = time.monotonic() + 10
        while not watched.children() and time.monotonic() < deadline:
            time.sleep(0.05)
        (copy,) = watched.children()
        holder = watched.memory_info().rss
        copied = copy.memory_info().rss
        assert copied > 150 * 2**20  # the copy alone reads as large as the holder
        # the holder, the copy left out (its pages are the holder's)
        assert abs(_tree_rss(watched) - holder) < 20 * 2**20
    finally:
        child.kill()
        child.wait()
