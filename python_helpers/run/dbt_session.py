"""dbt invoked in this process, its parsed project kept between invocations.

``run`` invokes dbt once or more (seeds, a rebuild, the build, the tests);
a watch invokes it every cycle. Each invocation would parse the project
again (partial parsing still reads every file's state: seconds at a
hundred topics). With ``keep_parsed``, the parsed manifest is kept and
handed to the next invocation while the project's files
(``build_plan.project_digest``, the generated specs included) and the
flags that shape a parse (``--vars``, the target, …) are unchanged; a
change (sync wrote a spec or a model, an analyst edited one) parses
again.

``prepare`` parses in a background thread: a run calls it when its
landing has started Spark, so importing dbt (3–5 s) and parsing the
project overlap the landing's statements, which wait mostly on Spark's
metastore, scheduling and commits, not on this process. (Called before
the JVM's start, the import slowed that start by 2–3 s on two cores.)
The next ``invoke`` waits for that parse and uses it if nothing changed
meanwhile; a parse that failed there is done again in the foreground,
which reports the error the usual way.

A watch's commands do not write the kept manifest again
(``artifacts=False``: ``--no-write-json``, 12.7 MB and 1.2 s a cycle at a
hundred topics, and every reader of ``target/manifest.json`` parsing it
again): the parse wrote it, and it is what they ran with. Nor
``run_results.json``: the watch's log has them. A one-shot run writes
both, as dbt does.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from python_helpers.run import build_plan

# the commands that run nodes, and write the manifest and run results after
NODE_COMMANDS = ("build", "run", "test", "seed", "snapshot")
# flags (each with a value) that change what a parse makes
PARSE_FLAGS = ("--vars", "--target", "-t", "--profile", "--profiles-dir", "--project-dir")


def parse_flags(args: Sequence[str]) -> tuple[str, ...]:
    """The flags of ``args`` that shape a parse, with their values."""
    found: list[str] = []
    for index, arg in enumerate(args):
        name = arg.split("=", 1)[0]
        if name in PARSE_FLAGS:
            has_value = "=" not in arg and index + 1 < len(args)
            found += [arg, args[index + 1]] if has_value else [arg]
    return tuple(found)


class DbtSession:
    """dbt's programmatic runner for one process."""

    def __init__(
        self, keep_parsed: bool = False, quiet: bool = False, artifacts: bool = True
    ) -> None:
        self.keep_parsed = keep_parsed
        self.quiet = quiet
        self.artifacts = artifacts
        self.manifest: Any = None
        self.parsed_as: tuple[str, tuple[str, ...]] | None = None  # (digest, parse flags)
        self._preparing: threading.Thread | None = None
        # the project's own profiles, as `make` exports them
        if Path("profiles", "profiles.yml").exists():
            os.environ.setdefault("DBT_PROFILES_DIR", "profiles")

    def prepare(self, args: Sequence[str] = ()) -> None:
        """Parse the project in a background thread for a coming
        ``invoke(args)`` (a kept session only; once at a time)."""
        if not self.keep_parsed or self._preparing is not None:
            return
        key = self._parse_key(args)
        if self.parsed_as == key:
            return
        self._preparing = threading.Thread(
            target=self._parse, args=(key, True), name="dbt-parse", daemon=False
        )
        self._preparing.start()

    def invoke(self, args: list[str]) -> Any:
        """Run dbt with ``args``: dbt's result (``success``, ``result``,
        ``exception``)."""
        from dbt.cli.main import dbtRunner  # seconds to import: only when dbt runs

        flags = ["--quiet"] if self.quiet and "--quiet" not in args else []
        if not self.keep_parsed:
            return dbtRunner().invoke([*flags, *args])
        self.settle()
        key = self._parse_key(args)
        if self.parsed_as != key:
            parsed = self._parse(key, self.quiet)
            if not parsed.success:
                return parsed
        quiet_artifacts = (
            ["--no-write-json"] if not self.artifacts and args and args[0] in NODE_COMMANDS else []
        )
        return dbtRunner(manifest=self.manifest).invoke([*flags, *args, *quiet_artifacts])

    def settle(self) -> None:
        """Wait for a background parse (``prepare``) to end."""
        if self._preparing is not None:
            self._preparing.join()
            self._preparing = None

    def _parse(self, key: tuple[str, tuple[str, ...]], quiet: bool) -> Any:
        """Parse with the flags of ``key`` (``_parse_key``) and keep the
        manifest under ``key`` when it succeeded."""
        from dbt.cli.main import dbtRunner

        self.manifest, self.parsed_as = None, None
        parsed = dbtRunner().invoke([*(["--quiet"] if quiet else []), "parse", *key[1]])
        if parsed.success:
            self.manifest, self.parsed_as = parsed.result, key
        return parsed

    @staticmethod
    def _parse_key(args: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        """What a parse for ``args`` depends on: (the project's digest, the
        specs included; the parse flags)."""
        return build_plan.project_digest(Path("."), with_specs=True), parse_flags(args)
