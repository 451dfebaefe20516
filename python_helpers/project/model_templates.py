"""The model files ``sync`` writes, from template files.

Each model's shape is one file under ``python_helpers/project/templates/``
(``<name>.sql.j2``; a connector's own under ``python_helpers/connectors/
templates/``), rendered with Jinja. The templates hold dbt's own
Jinja (``{{ ref(...) }}``, ``{#- ... -#}``) as text, so their own
placeholders use other delimiters: ``[[ name ]]`` and ``[% ... %]``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from python_helpers import connectors
from python_helpers.escaping import jinja_comment, jinja_literal

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
# the templates of a connector's own models (``Connector.current_template``)
CONNECTOR_TEMPLATE_DIR = Path(connectors.__file__).resolve().parent / "templates"


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader([TEMPLATE_DIR, CONNECTOR_TEMPLATE_DIR]),
        variable_start_string="[[",
        variable_end_string="]]",
        block_start_string="[%",
        block_end_string="%]",
        comment_start_string="[#",
        comment_end_string="#]",
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    # text from the data reaches dbt's Jinja only as a literal or inside a
    # comment it cannot close (python_helpers/escaping.py)
    environment.filters["literal"] = jinja_literal
    environment.filters["comment"] = jinja_comment
    return environment


def render(name: str, **fields: Any) -> str:
    """The text of template ``<name>.sql.j2`` with ``fields`` filled in,
    its lines fitted to the line length (``fit_lines``)."""
    return fit_lines(_environment().get_template(f"{name}.sql.j2").render(**fields))


MAX_LINE = 100  # .sqlfluff max_line_length
_CALL = re.compile(
    r"^(?P<indent> *)(?P<head>.*)\{\{ (?P<name>\w+)\((?P<args>.*)\) \}\}(?P<tail>.*)$"
)


def fit_lines(text: str) -> str:
    """Lines of a scaffolded model within the line length: a Jinja call
    too long for one line gets one argument per line (long topic names)."""
    out = []
    for line in text.splitlines():
        found = _CALL.match(line)
        if len(line) <= MAX_LINE or not found:
            out.append(line)
            continue
        indent = found["indent"]
        args = [a.strip() for a in found["args"].split(", ")]
        out.append(f"{indent}{found['head']}{{{{ {found['name']}(")
        out += [f"{indent}    {a}{',' if i < len(args) - 1 else ''}" for i, a in enumerate(args)]
        out.append(f"{indent}) }}}}{found['tail']}")
    return "\n".join(out) + "\n"


def write_sql(path: Path, text: str) -> None:
    """Write a model file, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
