"""The model files ``sync`` writes, from template files.

Each model's shape is one file under ``python_helpers/templates/``
(``<name>.sql.j2``), rendered with Jinja. The templates hold dbt's own
Jinja (``{{ ref(...) }}``, ``{#- ... -#}``) as text, so their own
placeholders use other delimiters: ``[[ name ]]`` and ``[% ... %]``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
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


def render(name: str, **fields: Any) -> str:
    """The text of template ``<name>.sql.j2`` with ``fields`` filled in."""
    return _environment().get_template(f"{name}.sql.j2").render(**fields)
