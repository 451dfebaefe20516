"""The kept dbt parse (run/dbt_session.py): a real dbt parse of a tiny
project (no Spark: parsing opens no connection)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from python_helpers.run.dbt_session import DbtSession, parse_flags

PROFILE = """\
tiny:
  target: local
  outputs:
    local:
      type: spark
      method: session
      host: localhost
      schema: tiny
"""


def test_the_flags_that_shape_a_parse_are_kept_with_their_values() -> None:
    args = ["build", "--select", "a+", "--vars", "{x: 1}", "--full-refresh", "--target=cluster"]
    assert parse_flags(args) == ("--vars", "{x: 1}", "--target=cluster")
    assert parse_flags(["run", "-t", "local", "--threads", "4"]) == ("-t", "local")
    assert parse_flags(["build"]) == ()


def _spec_text(manifest: object) -> str:
    macros = manifest.macros  # type: ignore[attr-defined]
    return str(macros["macro.tiny.spec_value"].macro_sql)


def test_a_background_parse_is_used_and_a_changed_spec_or_vars_parse_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dbt_project.yml").write_text(
        "name: tiny\nversion: '1.0'\nconfig-version: 2\nprofile: tiny\n", encoding="utf-8"
    )
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.sql").write_text(
        'select {{ spec_value() }} as v, \'{{ var("x", "none") }}\' as x\n', encoding="utf-8"
    )
    spec = tmp_path / "macros" / "generated" / "topics" / "t.sql"
    spec.parent.mkdir(parents=True)
    spec.write_text("{% macro spec_value() %}1{% endmacro %}\n", encoding="utf-8")
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "profiles.yml").write_text(PROFILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DBT_PROFILES_DIR", str(tmp_path / "profiles"))

    session = DbtSession(keep_parsed=True, quiet=True)
    session.prepare(["ls"])
    session.settle()
    first = session.manifest
    assert first is not None and "1" in _spec_text(first)
    assert session.invoke(["ls"]).success
    assert session.manifest is first  # the background parse served the command

    # sync regenerated the spec (a generated macro, not a model): parsed again
    spec.write_text("{% macro spec_value() %}2{% endmacro %}\n", encoding="utf-8")
    os.utime(spec, ns=(1, 1))
    assert session.invoke(["ls"]).success
    assert session.manifest is not first and "2" in _spec_text(session.manifest)

    # other vars make another manifest
    second = session.manifest
    assert session.invoke(["ls", "--vars", "{x: 7}"]).success
    assert session.manifest is not second
    assert session.parsed_as is not None and session.parsed_as[1] == ("--vars", "{x: 7}")
