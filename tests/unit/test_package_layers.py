"""The helpers' packages depend one way: reading, then the spec, then
generation, then running (docs/contributing.md). A module imports only from
its own package and the layers below it; no connector is named outside its
own home (the names come from the connectors' registry)."""

from __future__ import annotations

import ast
import pkgutil
import re
from pathlib import Path

from project_paths import PROJECT

from python_helpers import connectors

PACKAGE = PROJECT / "python_helpers"
# lowest first: a package may import from its own layer and those below
LAYERS = [
    {"escaping", "digest", "naming", "sequences", "engine"},  # text, names, runs, Spark
    # reading: schema blocks, connectors, landings; the producer (capture)
    {"schema", "connectors", "land", "capture"},
    {"topic"},  # a topic resolved: declaration + schema versions
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


def _connector_words() -> set[str]:
    """What names a connector: each registered connector's name, models'
    folder and envelope layouts, and its module's name."""
    words = {module.name for module in pkgutil.iter_modules(connectors.__path__)}
    for connector in connectors.registered():
        words |= {connector.name, connector.folder, *connector.layouts()}
    return words


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module and its definitions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _named_connectors(path: Path, words: set[str]) -> list[str]:
    """Where the module at ``path`` names a connector: imports one's module,
    holds one's name as a string, or has an identifier made of one's name
    (``is_mongodb``, ``MONGODB``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    modules = {f"python_helpers.connectors.{word}" for word in words}
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and node.module:
            imported = {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
            if imported & modules:
                found.append(f"{line}: imports {sorted(imported & modules)}")
        elif isinstance(node, ast.Import):
            if {alias.name for alias in node.names} & modules:
                found.append(f"{line}: imports a connector")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and node.value.lower() in words:
                found.append(f"{line}: the string {node.value!r}")
        else:
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else node.name
                if isinstance(node, ast.FunctionDef | ast.ClassDef)
                else None
            )
            if name is not None and set(name.lower().split("_")) & words:
                found.append(f"{line}: the name {name}")
    return found


def test_no_module_outside_connectors_names_a_connector() -> None:
    """A connector's particulars live in python_helpers/connectors/ (its
    module, its templates) and macros/connectors/<name>/: code elsewhere
    asks the connector (``connectors.lookup(name)`` and its fields and
    methods), it never names one. The names are the registry's, so a new
    connector is checked as soon as it is added."""
    words = _connector_words()
    assert {"mongodb", "flattened", "cdl", "cdl_json", "postgres"} <= words  # the check reads them
    found = [
        f"{path.relative_to(PROJECT)}:{where}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "connectors" not in path.relative_to(PACKAGE).parts
        for where in _named_connectors(path, words)
    ]
    assert found == []


def test_the_guard_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The check above fails on each way of naming a connector."""
    module = tmp_path / "branchy.py"
    module.write_text(
        "from python_helpers.connectors import mongodb\n"
        "from python_helpers.connectors.flattened import as_envelope\n"
        "def f(kind: str) -> bool:\n"
        "    MONGODB = 1\n"
        "    return kind == 'cdl_json'\n",
        encoding="utf-8",
    )
    found = _named_connectors(module, _connector_words())
    assert [entry.split(":")[0] for entry in found].count("1") == 1
    assert any("flattened" in entry for entry in found)
    assert any("MONGODB" in entry for entry in found)
    assert any("'cdl_json'" in entry for entry in found)


def test_no_macro_outside_its_connector_folder_names_a_connector() -> None:
    """The macros shared by every connector (macros/ but macros/connectors/
    and the generated topic specs) hold no connector's name or layout as a
    literal: a layout's macro is found by its name
    (``cdc_normalize__<envelope>``), never tested for."""
    words = "|".join(sorted(_connector_words()))
    literal = re.compile(rf"""['"]({words})['"]""", re.IGNORECASE)
    macros = PROJECT / "macros"
    found = [
        f"{path.relative_to(PROJECT)}:{number}"
        for path in sorted(macros.rglob("*.sql"))
        if path.relative_to(macros).parts[0] not in {"connectors", "generated"}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []
