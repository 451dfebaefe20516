"""dbt invoked in this process, its parsed project kept between invocations.

``run`` invokes dbt once or twice; a watch invokes it every cycle. Each
invocation would parse the project again (partial parsing still reads
every file's state: seconds at a hundred topics). With ``keep_parsed``,
the parsed manifest is kept and handed to the next invocation while the
project's files (``build_plan.project_digest``) are unchanged; a change
(sync wrote a model, an analyst edited one) parses again. The commands
that use the kept manifest do not write it again (``--no-write-json``:
12.7 MB, 1.2 s a cycle at a hundred topics, and every reader of
``target/manifest.json`` parsing it again): the parse wrote it, and it is
what they ran with. Nor ``run_results.json``: the watch's log has them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from python_helpers.run import build_plan

# the commands that run nodes, and write the manifest and run results after
NODE_COMMANDS = ("build", "run", "test", "seed", "snapshot")


class DbtSession:
    """dbt's programmatic runner for one process."""

    def __init__(self, keep_parsed: bool = False, quiet: bool = False) -> None:
        self.keep_parsed = keep_parsed
        self.quiet = quiet
        self.manifest: Any = None
        self.digest: str | None = None
        # the project's own profiles, as `make` exports them
        if Path("profiles", "profiles.yml").exists():
            os.environ.setdefault("DBT_PROFILES_DIR", "profiles")

    def invoke(self, args: list[str]) -> Any:
        """Run dbt with ``args``: dbt's result (``success``, ``result``,
        ``exception``)."""
        from dbt.cli.main import dbtRunner  # seconds to import: only when dbt runs

        flags = ["--quiet"] if self.quiet and "--quiet" not in args else []
        if not self.keep_parsed:
            return dbtRunner().invoke([*flags, *args])
        digest = build_plan.project_digest(Path("."))
        if self.manifest is None or digest != self.digest:
            parsed = dbtRunner().invoke([*flags, "parse"])
            if not parsed.success:
                return parsed
            self.manifest, self.digest = parsed.result, digest
        quiet_artifacts = ["--no-write-json"] if args and args[0] in NODE_COMMANDS else []
        return dbtRunner(manifest=self.manifest).invoke([*flags, *args, *quiet_artifacts])
