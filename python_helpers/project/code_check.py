"""A topic's generated files checked before they are written: each one must
parse as Jinja, and each text of a properties file (dbt renders every one
as Jinja) may call nothing but ``doc`` and ``var``. A topic whose files
fail is left out of the project, by name, with the reason
(docs/guarantees.md, "One topic never stops another"); its text is never
written where dbt would read it.

With the escaping in ``python_helpers.escaping`` no name can fail this:
it is the second line of defence, and what keeps a mistake in a template
to the topic that shows it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import jinja2
import yaml
from jinja2 import nodes

# what a properties text may call: doc blocks and project variables
_PROPERTY_CALLS = frozenset({"doc", "var"})
# the node types such a text may hold
_PROPERTY_NODES = (
    nodes.Template,
    nodes.Output,
    nodes.TemplateData,
    nodes.Const,
    nodes.Call,
    nodes.Name,
    nodes.CondExpr,
    nodes.Not,
)


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(extensions=["jinja2.ext.do"])


def sql_problem(text: str) -> str | None:
    """Why a generated model or macro file would not parse, or None."""
    try:
        _environment().parse(text)
    except jinja2.TemplateSyntaxError as error:
        return f"line {error.lineno}: {error.message}"
    return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@cache
def _property_problem(text: str) -> str | None:
    try:
        tree = _environment().parse(text)
    except jinja2.TemplateSyntaxError as error:
        return f"{text[:60]!r}: {error.message}"
    for node in tree.find_all(nodes.Node):
        if not isinstance(node, _PROPERTY_NODES):
            return f"{text[:60]!r}: Jinja {type(node).__name__} in a text"
        if isinstance(node, nodes.Name) and node.name not in _PROPERTY_CALLS:
            return f"{text[:60]!r}: names {node.name!r}"
    return None


def entries_problem(entries: Any) -> str | None:
    """Why properties entries (what a properties file declares, before
    PyYAML writes it) could run code when dbt renders them, or None.
    A text is checked once per process (the doc-block references repeat
    in every topic)."""
    for item in _strings(entries):
        if "{" in item and (problem := _property_problem(item)) is not None:
            return problem
    return None


def properties_problem(text: str) -> str | None:
    """Why a properties file's text could run code or not load, or None."""
    try:
        loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        return f"not YAML: {error}"
    return entries_problem(loaded)


def file_problem(name: str, text: str) -> str | None:
    """The check of one generated file, by its name's extension."""
    if name.endswith(".yml"):
        return properties_problem(text)
    return sql_problem(text)
