"""`python -m python_helpers lint`: sqlfluff on what analysts write.

The linter checks the SQL typed in the models, not what the macros expand
to (`ignore_templated_areas`; macros/ is not linted). So it renders each
model with sqlfluff's jinja templater and dbt's builtins (`ref`, `source`,
`config`, `var`, `is_incremental`), and with a stand-in for every project
macro the linted files call: the stand-in reads its first argument (the
CTE the macro selects from, so the CTE counts as used) and is otherwise a
subquery. No dbt compile and no Spark, so a lint of 260 files takes
seconds, not the minutes of the dbt templater (which compiles each model
and parses its whole expansion). The stand-ins are written under the
state folder, made anew on each run from macros/ and the files linted.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

DEFINED = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\(")
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
CALLED = re.compile(r"\b(\w+)\s*\(")
# the stand-in's subquery gets an alias no model uses: a model that joins
# the CTE it passes keeps a unique alias
STAND_IN = (
    "{{% macro {name}() %}}"
    "(select * from {{{{ (varargs or [kwargs.get('relation', '{name}')])[0] }}}}"
    " as cdc_templated)"
    "{{% endmacro %}}"
)


def defined_macros(macros: Path) -> set[str]:
    """The names of the macros defined under ``macros``."""
    names: set[str] = set()
    for path in macros.rglob("*.sql"):
        names.update(DEFINED.findall(path.read_text(encoding="utf-8")))
    return names


def called_macros(files: Iterable[Path], defined: set[str]) -> list[str]:
    """The project macros that ``files`` call from their Jinja."""
    called: set[str] = set()
    for path in files:
        for tag in JINJA.findall(path.read_text(encoding="utf-8")):
            called.update(name for name in CALLED.findall(tag) if name in defined)
    return sorted(called)


def sql_files(paths: Sequence[str]) -> list[Path]:
    """The .sql files of ``paths`` (files, or folders searched)."""
    found: list[Path] = []
    for given in map(Path, paths):
        found.extend(sorted(given.rglob("*.sql")) if given.is_dir() else [given])
    return found


def write_stand_ins(project: Path, files: Iterable[Path], target: Path) -> Path:
    """The stand-ins for the macros ``files`` call, and a sqlfluff config
    that loads them; returns the config's path."""
    names = called_macros(files, defined_macros(project / "macros"))
    (target / "macros").mkdir(parents=True, exist_ok=True)
    (target / "macros" / "stand_ins.sql").write_text(
        "".join(STAND_IN.format(name=name) + "\n" for name in names), encoding="utf-8"
    )
    config = target / "sqlfluff.cfg"
    config.write_text(
        "[sqlfluff]\ntemplater = jinja\n\n[sqlfluff:templater:jinja]\n"
        f"apply_dbt_builtins = True\nload_macros_from_path = {(target / 'macros').resolve()}\n",
        encoding="utf-8",
    )
    return config


def lint(project: Path, paths: Sequence[str], state: Path, processes: int) -> int:
    """sqlfluff lint of ``paths`` with the project's rules; its exit code."""
    config = write_stand_ins(project, sql_files(paths), state / "lint")
    command = [
        str(Path(sys.executable).parent / "sqlfluff"),
        "lint",
        "--config",
        str(config),
        "--processes",
        str(processes),
        *paths,
    ]
    return subprocess.run(command, cwd=project, check=False).returncode
