"""Statements per dbt node, read from dbt's debug log (``logs/dbt.log``).

dbt logs every statement it sends as ``On <node id>: <sql>`` (the SQL on
the lines after its ``/* {...} */`` query comment); connection chatter
(``ROLLBACK``, ``Close``...) is not a statement. ``python -m bench.statements
LOG [FIRST_LINE]`` prints, per node, the count and the first words of each
statement: how issue 54's "statements per model per incremental run" was
counted (docs/performance.md).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

_SENT = re.compile(r"\]:? On ((?:model|test|seed|snapshot)\.[^:]+): (.*)$")
_COMMENT = re.compile(r"^/\*.*?\*/\s*")
_CHATTER = {"ROLLBACK", "Close", "COMMIT", "BEGIN"}
# a line of its own in the log (not the rest of a statement's SQL)
_STAMPED = re.compile(r"^\x1b?\[?\S*\d\d:\d\d:\d\d")


def statements_per_node(lines: Iterable[str]) -> dict[str, list[str]]:
    """node id -> the statements it sent (whitespace folded), in order."""
    found: dict[str, list[str]] = defaultdict(list)
    pending: tuple[str, list[str]] | None = None
    for line in lines:
        sent = _SENT.search(line)
        if sent is None and pending is not None and not _STAMPED.match(line):
            pending[1].append(line.strip())
            continue
        if pending is not None:
            found[pending[0]].append(" ".join(" ".join(pending[1]).split()))
            pending = None
        if sent is None or sent.group(2).strip() in _CHATTER:
            continue
        pending = (sent.group(1), [_COMMENT.sub("", sent.group(2))])
    if pending is not None:
        found[pending[0]].append(" ".join(" ".join(pending[1]).split()))
    return dict(found)


def _layer(node: str) -> str:
    name = node.split(".")[-1]
    if name.startswith("base_"):
        return "base"
    if name.startswith("stg_"):
        return "quarantine view" if name.endswith("__quarantine") else "staging view"
    for suffix in ("state", "history", "changes"):
        if name.endswith(f"__{suffix}"):
            return suffix
    return "other"


def per_model_by_layer(statements: dict[str, list[str]]) -> dict[str, tuple[int, float]]:
    """layer -> (models, mean statements per model), for the models of
    ``statements`` (a topic's layers by their generated names)."""
    layers: dict[str, list[int]] = defaultdict(list)
    for node, sent in statements.items():
        if node.startswith("model."):
            layers[_layer(node)].append(len(sent))
    return {layer: (len(n), sum(n) / len(n)) for layer, n in sorted(layers.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("first_line", type=int, nargs="?", default=0)
    args = parser.parse_args()
    lines = args.log.read_text(encoding="utf-8").splitlines()[args.first_line :]
    for node, sent in sorted(statements_per_node(lines).items()):
        print(f"{len(sent):3d}  {node}")
        for statement in sent:
            print(f"       {statement[:72]}")


if __name__ == "__main__":
    main()
