"""Module builds that either of the suite's two threads may run.

The shared end-to-end runs are built on a thread of their own while the
tests that do not need them run (tests/conftest.py). A test module whose
fixture builds a project of its own (its own processes and state folder:
nothing shared with another thread) names that build ``BACKGROUND_BUILD``,
a function of pytest's ``tmp_path_factory``. The runs' thread, once the
runs (and the docs site) are built, takes the builds no test has reached yet, the last one
first. The main thread, when it reaches the tests on the shared runs
before they are built, takes the builds no thread has taken yet, in order
(``Backlog.take_while``). A module's fixture asks for its build's result
(``Backlog.result``), running it at once if no thread has started it, or,
while the other thread runs it, running the builds no thread has taken.
Both cores stay busy to the end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Build:
    """One module's build: run once, by whichever thread comes first."""

    def __init__(self, name: str, build: Callable[[], Any]) -> None:
        self.name = name
        self._build = build
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
    """The modules' builds, in the order the tests reach them."""

    def __init__(self, builds: list[Build]) -> None:
        self._builds = {build.name: build for build in builds}

    def take_from_the_end(self) -> None:
        """Run every build no test has reached yet, the last one first."""
        for build in reversed(list(self._builds.values())):
            build.run_unless_taken()

    def take_while(self, waiting: Callable[[], bool]) -> None:
        """Run the builds no thread has taken yet, in order, while
        ``waiting`` (a thread with nothing else to do stays busy)."""
        for build in self._builds.values():
            if not waiting():
                return
            build.run_unless_taken()

    def result(self, name: str) -> Any:
        """A build's result: run here if no thread has taken it; taken by
        the other thread, the builds no thread has taken run here meanwhile."""
        wanted = self._builds[name]
        if not wanted.run_unless_taken():
            self.take_while(lambda: not wanted.done())
        return wanted.result()
