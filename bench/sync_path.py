"""Follow one topic's sync through the code: where it stays, module by module.

``python -m bench.sync_path --project . --topic <topic>`` syncs a landing
holding that sample topic alone (``check`` mode: nothing is written) under a
profiler that notes, at every call and return inside ``python_helpers``,
the module (or, with ``--package``, the package) execution is in. A *stay*
is a run of events in one module; a *return* is a stay in a module already
left once. For the topic's resolution (the call that turns the landing
folder and declaration into its spec: ``resolve_topic``, ``_sync_topic``
before issue 55) it also counts the stays in ``project/`` after the first:
the times resolution went back up into generation code.

Every call counts there, down to each helper's helpers. ``--handoffs``
follows the resolution as a person reads it instead: only the calls the
resolver's own module makes into another module (each a stay there, and
one back in the resolver), not what those modules do inside.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

RESOLVERS = ("resolve_topic", "_sync_topic")
PREFIX = "python_helpers."
RESOLVER_MODULE = "python_helpers.topic.resolve"


def _stays(sequence: list[str]) -> tuple[int, int, int]:
    """(stays, modules, returns) of a sequence of stays."""
    seen: set[str] = set()
    returns = 0
    for module in sequence:
        returns += module in seen
        seen.add(module)
    return len(sequence), len(seen), returns


def _profiled_sync(project: Path, topic: str, profiler: Any) -> None:
    """Sync a landing holding the sample ``topic`` alone (check mode:
    nothing written) under ``profiler``."""
    sys.path.insert(0, str(project))
    os.chdir(project)
    from python_helpers.project import sync as sync_module

    landing = Path(tempfile.mkdtemp())
    shutil.copytree(project / "sample_landing" / topic, landing / topic)
    sys.setprofile(profiler)
    try:
        sync_module.sync(project, landing, check=True)
    finally:
        sys.setprofile(None)
        shutil.rmtree(landing, ignore_errors=True)


def trace(project: Path, topic: str, depth: int) -> dict[str, list[str]]:
    """The stays of one topic's sync: its resolution's and the whole sync's
    (``depth``: the dotted parts of a module name kept, 2 for packages)."""
    found: dict[str, list[str]] = {"resolution": [], "sync": []}
    inside = [0]

    def note(sequence: list[str], module: str) -> None:
        if not sequence or sequence[-1] != module:
            sequence.append(module)

    def profiler(frame: FrameType, event: str, _: Any) -> None:
        if event not in ("call", "return"):
            return
        resolver = frame.f_code.co_name in RESOLVERS
        if resolver and event == "call":
            inside[0] += 1
        where = frame if event == "call" else frame.f_back
        name = str(where.f_globals.get("__name__", "")) if where is not None else ""
        if name.startswith(PREFIX):
            module = ".".join(name.removeprefix(PREFIX).split(".")[:depth])
            note(found["sync"], module)
            if inside[0] and not (resolver and event == "return"):
                note(found["resolution"], module)
        if resolver and event == "return":
            inside[0] -= 1

    _profiled_sync(project, topic, profiler)
    return found


def handoffs(project: Path, topic: str) -> list[str]:
    """The stays of one topic's resolution as a person follows it: the
    resolver's module, each module it calls into (a call made from one of
    its own functions), back, and so on."""
    sequence: list[str] = []
    inside = [False]

    def module_of(frame: FrameType | None) -> str:
        return str(frame.f_globals.get("__name__", "")) if frame is not None else ""

    def note(module: str) -> None:
        module = module.removeprefix(PREFIX)
        if not sequence or sequence[-1] != module:
            sequence.append(module)

    def profiler(frame: FrameType, event: str, _: Any) -> None:
        if event not in ("call", "return"):
            return
        module = module_of(frame)
        if frame.f_code.co_name == "resolve_topic" and module == RESOLVER_MODULE:
            inside[0] = event == "call"
            if inside[0]:
                note(module)
            return
        caller = module_of(frame.f_back)
        if (
            inside[0]
            and event == "call"
            and caller == RESOLVER_MODULE
            and module != RESOLVER_MODULE
            and module.startswith(PREFIX)
        ):
            note(module)
            note(RESOLVER_MODULE)

    _profiled_sync(project, topic, profiler)
    return sequence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--project", type=Path, default=Path("."))
    parser.add_argument("--topic", default="PostgreSQL_server.public.customers")
    parser.add_argument("--package", action="store_true", help="packages, not modules")
    parser.add_argument(
        "--handoffs", action="store_true", help="the resolver's own calls into other modules"
    )
    args = parser.parse_args()
    if args.handoffs:
        sequence = handoffs(args.project.resolve(), args.topic)
        stays, rooms, returns = _stays(sequence)
        print(f"Resolution of `{args.topic}` alone, the resolver's hand-offs:\n")
        print("| stays | modules | returns | hand-offs |\n|---:|---:|---:|---:|")
        print(f"| {stays} | {rooms} | {returns} | {(stays - 1) // 2} |\n")
        print(" > ".join(sequence))
        return
    found = trace(args.project.resolve(), args.topic, 1 if args.package else 2)
    unit = "package" if args.package else "module"
    print(f"Sync of `{args.topic}` alone (check mode), by {unit}:\n")
    print(f"| part | stays | {unit}s | returns | back into project/ |")
    print("|---|---:|---:|---:|---:|")
    for part, sequence in found.items():
        stays, rooms, returns = _stays(sequence)
        # the resolver's own module opens the sequence (project/ before issue 55)
        ups = (
            str(sum(m.startswith("project") for m in sequence[1:])) if part == "resolution" else "-"
        )
        print(f"| {part} | {stays} | {rooms} | {returns} | {ups} |")


if __name__ == "__main__":
    main()
