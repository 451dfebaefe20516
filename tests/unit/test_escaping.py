"""Text from the data written into generated code (python_helpers.escaping):
every escape is checked against the real parser of its language, on names
drawn from the whole of Unicode and every metacharacter of SQL, YAML,
Jinja, Markdown and HTML."""

from __future__ import annotations

import functools
import html.parser
import json
import re
from types import SimpleNamespace
from typing import Any

import jinja2
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from project_paths import PROJECT

from python_helpers.escaping import (
    dbt_code,
    html_text,
    jinja_comment,
    jinja_literal,
    jinja_string,
    jinja_text,
    markdown_code,
    raw_json,
    spark_identifier,
    spark_string,
)
from python_helpers.project.code_check import file_problem, properties_problem

METACHARACTERS = "{}%#'\"`\\<>&*[]()|:-!$;,.=@?/ \t\n\r\x00"
# the text a Jinja, SQL, YAML, Markdown or HTML injection is made of
TEXT = st.text(
    alphabet=st.one_of(st.sampled_from(METACHARACTERS), st.characters(codec="utf-8")),
    max_size=40,
)
CANARIES = [
    "{{ canary() }}",
    "{% do canary() %}",
    "{# c",
    "{% endraw %}{{ canary() }}",
    "{%- endraw -%}{{ canary() }}",
    "x')) ; drop table t --",
    "`) ; drop table t --",
    "<script>canary()</script>",
]


class Canary:
    """A Jinja global that notes a call: a rendered text that runs it was
    executed."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any) -> str:
        self.calls += 1
        return "RAN"


def _render(template: str) -> tuple[str, int]:
    environment = jinja2.Environment(extensions=["jinja2.ext.do"])
    canary = Canary()
    environment.globals["canary"] = canary
    return environment.from_string(template).render(), canary.calls


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, st.sampled_from(CANARIES)))
def test_jinja_text_renders_as_itself_and_runs_nothing(text: str) -> None:
    rendered, calls = _render(jinja_text(text))
    assert rendered == text and calls == 0


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, st.sampled_from(CANARIES)))
def test_jinja_literals_evaluate_to_the_value(text: str) -> None:
    rendered, calls = _render("{{ " + jinja_string(text) + " }}")
    assert rendered == text and calls == 0
    value = [text, {"k": text}, None, True, 3]
    environment = jinja2.Environment()
    assert environment.compile_expression(jinja_literal(value))() == value


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, st.sampled_from(CANARIES)))
def test_a_comment_cannot_be_closed_by_its_text(text: str) -> None:
    rendered, calls = _render("a{# " + jinja_comment(text) + " #}b")
    assert rendered == "ab" and calls == 0


@settings(max_examples=300, deadline=None)
@given(st.one_of(TEXT, st.sampled_from(CANARIES)))
def test_raw_json_stays_inside_its_raw_block(text: str) -> None:
    value = {"name": text, "nested": [text, {"deeper": text}]}
    rendered, calls = _render("{% raw %}" + raw_json(value) + "{% endraw %}")
    assert json.loads(rendered) == value and calls == 0


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_spark_quoting_round_trips_through_its_rules(text: str) -> None:
    """The quoting rules Spark's parser reads: a backquoted identifier with
    doubled backquotes; a literal with backslash escapes (a real parse is
    in the end-to-end hostile-names test)."""
    quoted = spark_identifier(text)
    assert quoted.startswith("`") and quoted.endswith("`")
    assert quoted[1:-1].replace("``", "").count("`") == 0
    assert quoted[1:-1].replace("``", "`") == text
    literal = spark_string(text)
    assert len(literal.splitlines()) == 1  # nothing that splits lines is left in it
    body = literal[1:-1]
    assert re.fullmatch(r"(?:[^'\\\n\r]|\\.)*", body, re.DOTALL)
    assert _unescaped(body) == text


def _unescaped(body: str) -> str:
    """A literal's text as Spark's parser reads it (its escapes: ``\\uXXXX``,
    ``\\n``, ``\\r``, ``\\t``, else the character itself)."""
    short = {"n": "\n", "r": "\r", "t": "\t"}
    return re.sub(
        r"\\(u[0-9a-f]{4}|.)",
        lambda m: chr(int(m[1][1:], 16)) if len(m[1]) == 5 else short.get(m[1], m[1]),
        body,
        flags=re.DOTALL,
    )


# every character a tool that splits lines breaks at, and the control
# characters: a name from the data may hold any of them (PostgreSQL allows
# all but NUL)
SEPARATORS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\t\x01\x1f\x7f\x9f"
SEPARATED = st.text(
    alphabet=st.one_of(st.sampled_from(SEPARATORS + "`'\\ "), st.characters(codec="utf-8")),
    max_size=30,
)


@functools.cache
def _quoting_macros() -> Any:
    """macros/quoting/cdc_quoting.sql rendered by Jinja with what dbt gives
    its macros here (``modules.re``, the ``do`` statement)."""
    environment = jinja2.Environment(extensions=["jinja2.ext.do"])
    environment.globals["modules"] = SimpleNamespace(re=re)
    source = (PROJECT / "macros" / "quoting" / "cdc_quoting.sql").read_text(encoding="utf-8")
    return environment.from_string(source).module


@settings(max_examples=300, deadline=None)
@given(SEPARATED)
def test_the_jinja_literal_macro_is_the_twin_of_spark_string(text: str) -> None:
    assert str(_quoting_macros().cdc_string(text)) == spark_string(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(SEPARATED, min_size=1, max_size=4))
def test_indenting_generated_sql_never_cuts_a_name(names: list[str]) -> None:
    """cdc_indent puts spaces after line feeds only: every backquoted name
    in the indented text is still the name (Jinja's `indent` cut names at
    VT, FF, NEL, U+2028, ...)."""
    sql = "\n".join(f"select {spark_identifier(name)} as x," for name in names if "\n" not in name)
    indented = str(_quoting_macros().cdc_indent(sql, 8))
    assert indented.replace("\n        ", "\n") == sql


def test_no_macro_indents_with_jinjas_indent_filter() -> None:
    found = [
        str(path.relative_to(PROJECT))
        for path in (PROJECT / "macros").rglob("*.sql")
        if re.search(r"\|\s*indent\b", path.read_text(encoding="utf-8"))
    ]
    assert found == [], "use cdc_indent: `indent` breaks lines inside names from the data"


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_markdown_code_spans_and_html_escape_hold_any_text(text: str) -> None:
    span = markdown_code(text)
    fence = re.match(r"`+", span)
    assert fence is not None and span.endswith(fence[0])
    inner = span[len(fence[0]) : -len(fence[0])]
    assert fence[0] not in inner  # no run as long as the fence inside
    parsed: list[str] = []

    class Text(html.parser.HTMLParser):
        def handle_starttag(self, tag: str, attrs: Any) -> None:
            parsed.append("<tag>")

        def handle_data(self, data: str) -> None:
            parsed.append(data)

    reader = Text(convert_charrefs=True)
    reader.feed(f"<p title={html_text(text)!r}>{html_text(text)}</p>".replace("'", '"', 2))
    reader.close()
    assert "<tag>" not in parsed[1:] and "".join(parsed[1:]) == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(TEXT, st.sampled_from(CANARIES)), min_size=1, max_size=5))
def test_escaped_properties_pass_the_code_check_and_render_as_themselves(names: list[str]) -> None:
    columns = [
        {"name": jinja_text(name), "description": f"Source column {dbt_code(name)}."}
        for name in names
    ]
    text = yaml.dump({"version": 2, "models": [{"name": "m", "columns": columns}]})
    assert properties_problem(text) is None
    for column, name in zip(yaml.safe_load(text)["models"][0]["columns"], names, strict=True):
        assert _render(column["name"]) == (name, 0)
        assert _render(column["description"])[1] == 0


def test_the_code_check_refuses_what_would_run() -> None:
    for canary in CANARIES[:2] + ["{{ env_var('SECRET') }}", "{{ x.y }}"]:
        text = yaml.dump({"models": [{"name": "m", "description": canary}]})
        assert properties_problem(text) is not None, canary
    assert file_problem("m.sql", "select {{ 1 }") is not None
    assert file_problem("m.sql", "select {{ ref('m') }}") is None
    allowed = "{{ doc(\"x\") }} {{ 'a' if var('v', false) else 'b' }}"
    assert properties_problem(yaml.dump({"d": allowed})) is None
