"""The helpers' packages depend one way: reading, then the spec, then
generation, then running (docs/contributing.md). A module imports only from
its own package and the layers below it; no connector is special-cased
outside its own home."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from project_paths import PROJECT

PACKAGE = PROJECT / "python_helpers"
# lowest first: a package may import from its own layer and those below
LAYERS = [
    {"escaping", "digest", "naming", "sequences", "engine"},  # text, names, runs, Spark
    {"schema", "connectors", "land"},  # reading: schema blocks, connectors, landings
    {"spec"},  # a topic resolved: declaration + schema versions
    {"project"},  # generation: sync, models, properties
    {"run", "cli", "__main__"},  # running
]


def _layer(part: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if part in layer)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "python_helpers":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("python_helpers."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {
                alias.name.split(".")[1]
                for alias in node.names
                if alias.name.startswith("python_helpers.")
            }
    return found


def test_every_module_imports_only_its_layer_and_below() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        own = relative.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for imported in _imports(path):
            if _layer(imported) > _layer(own):
                upward.append(f"{relative} imports python_helpers.{imported}")
    assert upward == []
    # every package and top-level module has a layer
    names = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if not p.name.startswith("_")}
    assert names - {"__pycache__"} <= set().union(*LAYERS)


def test_no_connector_is_a_branch_outside_its_home() -> None:
    """A connector's particulars live in python_helpers/connectors/<name>.py
    (and macros/connectors/<name>/): code elsewhere asks the connector, it
    does not test which one it is."""
    names = "mongodb|postgresql|mysql|sqlserver|cdl"
    branch = re.compile(rf"is_mongodb|stages_documents|[!=]= *['\"]({names})['\"]|\bMONGODB\b")
    found = [
        f"{path.relative_to(PROJECT)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "connectors" not in path.relative_to(PACKAGE).parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branch.search(line)
    ]
    assert found == []
