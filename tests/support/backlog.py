"""Module builds that either of the suite's two threads may run.

The shared end-to-end runs are built on a thread of their own while the
tests that do not need them run (tests/conftest.py). A test module whose
fixture builds a project of its own (its own processes and state folder:
nothing shared with another thread) names that build ``BACKGROUND_BUILD``,
a function of pytest's ``tmp_path_factory``, and what it about takes in
the suite, ``BUILD_SECONDS``. A thread with nothing else to do takes the
longest build no thread has taken yet (the shortest are left for the end,
where they even out the two threads' finish): the runs' thread once the
runs and the docs site are built (``Backlog.take_all``), the main thread
when it reaches the tests on the shared runs before they are built
(``Backlog.take_while``), and a module's fixture asking for its build's
result (``Backlog.result``) until that build is done — by this thread or
the other. Both cores stay busy to the end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Build:
    """One module's build: run once, by whichever thread comes first."""

    def __init__(self, name: str, build: Callable[[], Any], seconds: float = 0.0) -> None:
        self.name = name
        self._build = build
        self.seconds = seconds  # what it about takes in the suite
        self._lock = threading.Lock()
        self._taken = False
        self._done = threading.Event()
        self._result: Any = None
        self._error: BaseException | None = None

    def run_unless_taken(self) -> bool:
        """Run the build here unless a thread has taken it; whether it ran."""
        with self._lock:
            if self._taken:
                return False
            self._taken = True
        try:
            self._result = self._build()
        except BaseException as error:  # re-raised in the module's fixture
            self._error = error
        finally:
            self._done.set()
        return True

    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> Any:
        """The build's result (running it here, or waiting for it)."""
        self.run_unless_taken()
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result


class Backlog:
    """The modules' builds, the longest first."""

    def __init__(self, builds: list[Build]) -> None:
        self._builds = sorted(builds, key=lambda build: -build.seconds)
        self._by_name = {build.name: build for build in builds}

    def _take_one(self) -> bool:
        """Run the longest build no thread has taken; whether there was one."""
        return any(build.run_unless_taken() for build in self._builds)

    def take_all(self) -> None:
        """Run every build no thread has taken, the longest first."""
        self.take_while(lambda: True)

    def take_while(self, waiting: Callable[[], bool]) -> None:
        """Run the builds no thread has taken, the longest first, while
        ``waiting`` (a thread with nothing else to do stays busy)."""
        while waiting() and self._take_one():
            pass

    def result(self, name: str) -> Any:
        """A build's result, once done: until then this thread runs the
        builds no thread has taken, the longest first (this one among them)."""
        wanted = self._by_name[name]
        self.take_while(lambda: not wanted.done())
        return wanted.result()
