"""A SparkSession configured exactly like the dbt profile's local target.

Reads ``profiles/profiles.yml`` (the ``local`` output's
``server_side_parameters``), so tests and the CLI see the same warehouse and
metastore as ``dbt`` does. Only one Spark process may hold the embedded
Derby metastore at a time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROFILE = Path("profiles") / "profiles.yml"
_ENV_VAR = re.compile(r"""\{\{\s*env_var\(\s*'([^']+)'\s*(?:,\s*'([^']*)'\s*)?\)\s*\}\}""")


def _render(value: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name, default)
        if found is None:
            raise KeyError(f"profile needs environment variable {name}")
        return found

    return _ENV_VAR.sub(replace, value)


def local_spark_conf(
    project: Path = Path("."), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The Spark settings of the profile's ``local`` target, rendered with
    ``environ`` (default: this process's environment)."""
    loaded: dict[str, Any] = yaml.safe_load((project / PROFILE).read_text(encoding="utf-8"))
    params = loaded["cdc"]["outputs"]["local"]["server_side_parameters"]
    values = os.environ if environ is None else environ
    return {str(k): _render(str(v), values) for k, v in params.items()}


def local_spark(project: Path = Path(".")) -> SparkSession:
    """Start (or reuse) the embedded Spark session of the local target."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in local_spark_conf(project).items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
