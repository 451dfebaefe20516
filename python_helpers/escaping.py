"""Text from the data, written into generated code as data: one function
per language a generated file speaks.

Column and field names, topic, table and schema names, Connect schema
names, ``doc`` and ``parameters`` come from whoever can alter a captured
table. Every generated file takes them through these functions, never by
pasting (docs/guarantees.md, "Text from the data"):

- ``spark_identifier``: a Spark SQL identifier, backquoted, its backquotes
  doubled (any text is a valid name this way);
- ``spark_string``: a Spark SQL string literal (quotes and backslashes
  escaped: Spark's parser reads backslash escapes in literals);
- ``jinja_string`` / ``jinja_literal``: a Jinja expression literal (a
  string, or a list / dict / bool / None of them) inside ``{{ }}`` or
  ``{% %}``: Jinja's lexer reads a quoted string whole, delimiters in it
  included;
- ``jinja_text``: text that dbt renders as Jinja (descriptions, test
  arguments) and must show as itself: every ``{`` becomes an expression
  printing ``{``, so no block, expression or comment can open;
- ``jinja_comment``: text inside a ``{# #}`` comment (a ``#}`` in it
  would close the comment);
- ``raw_json``: JSON for a ``{% raw %}`` block: a ``{`` that could open a
  Jinja tag inside a JSON string is written ``\\u007b`` (the JSON decodes
  to the same text; ``{% endraw %}`` cannot appear);
- ``markdown_code``: a Markdown code span (shown as text on the docs site,
  ``<script>`` included);
- ``html_text``: HTML text and attribute values.

YAML is written by PyYAML's emitter (``yaml.dump``), which quotes what
needs quoting; no generated YAML is assembled from strings.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any


def spark_identifier(name: str) -> str:
    """``name`` as a Spark SQL identifier: backquoted, backquotes doubled."""
    return "`" + name.replace("`", "``") + "`"


# what a literal never holds as itself: every character Python's
# ``str.splitlines`` breaks a line at (a filter or tool that splits lines
# must never cut a name in two: VT, FF, FS, GS, RS, NEL, U+2028, U+2029)
# and every other C0 and C1 control character
UNSAFE_IN_LITERALS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped_character(match: re.Match[str]) -> str:
    char = match.group(0)
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _single_quoted(text: str) -> str:
    """``text`` in single quotes, backslash and quote escaped with
    backslashes, and every line break or control character (UNSAFE_IN_LITERALS)
    written as an escape (``\\n``, ``\\u2028``): a literal to Spark SQL and to
    Jinja alike, on one line whatever splits it."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    return "'" + UNSAFE_IN_LITERALS.sub(_escaped_character, escaped) + "'"


def spark_string(text: str) -> str:
    """``text`` as a Spark SQL string literal (Spark's parser reads
    backslash escapes in literals)."""
    return _single_quoted(text)


def jinja_string(text: str) -> str:
    """``text`` as a Jinja string literal (Jinja decodes Python's
    backslash escapes in it)."""
    return _single_quoted(text)


def jinja_literal(value: Any) -> str:
    """A Jinja expression evaluating to ``value`` (str, int, bool, None, or
    lists / dicts of them)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return jinja_string(value)
    if isinstance(value, dict):
        items = ", ".join(f"{jinja_string(str(k))}: {jinja_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(jinja_literal(v) for v in value) + "]"
    raise TypeError(f"no Jinja literal for {type(value).__name__}")


def jinja_text(text: str) -> str:
    """``text`` for a place dbt renders as Jinja (a description): rendered,
    it is ``text`` again; nothing in it opens a tag. Jinja also rewrites
    carriage returns and drops a last line break of its template text:
    those are written as expressions too."""
    escaped = text.replace("{", "{{ '{' }}").replace("\r", "{{ '\\r' }}")
    if escaped.endswith("\n"):
        escaped = escaped[:-1] + "{{ '\\n' }}"
    return escaped


def jinja_comment(text: str) -> str:
    """``text`` inside a Jinja comment: a ``#}`` cannot close it (a space is
    put between the two characters; the comment is for people)."""
    return text.replace("#}", "# }").replace("\n", " ")


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_TAG_OPENER = re.compile(r"\{(?=[{%#])")


def raw_json(value: Any) -> str:
    """``value`` as indented JSON that a ``{% raw %}`` block can hold: in its
    strings, a ``{`` before ``{``, ``%`` or ``#`` is written ``\\u007b``."""
    text = json.dumps(value, indent=1, ensure_ascii=False)
    return _JSON_STRING.sub(lambda m: _TAG_OPENER.sub(r"\\u007b", m.group(0)), text)


def markdown_code(text: str) -> str:
    """``text`` as a Markdown code span (a fence of backquotes longer than
    any run in it; spaced when it starts or ends with one)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def dbt_code(text: str) -> str:
    """Text from the data inside a dbt description: a Markdown code span
    that dbt's Jinja rendering leaves as it is."""
    return jinja_text(markdown_code(text))


def html_text(text: object) -> str:
    """``text`` escaped for HTML (element content and quoted attributes)."""
    return html.escape(str(text), quote=True)
