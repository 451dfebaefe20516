"""A SparkSession configured exactly like the dbt profile's local target.

Reads ``profiles/profiles.yml`` (the ``local`` output's
``server_side_parameters``), so tests and the CLI see the same warehouse and
metastore as ``dbt`` does; ``profile_output`` renders any output (the Thrift
engine reads the ``cluster`` one). Only one Spark process may hold the
embedded Derby metastore at a time.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROFILE = Path("profiles") / "profiles.yml"
# {{ env_var('NAME') }}, {{ env_var('NAME', 'default') }}, optionally `| as_number`
_ENV_VAR = re.compile(
    r"""\{\{\s*env_var\(\s*'([^']+)'\s*(?:,\s*'([^']*)'\s*)?\)\s*(?:\|\s*as_number\s*)?\}\}"""
)


def _render(value: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name, default)
        if found is None:
            raise KeyError(f"profile needs environment variable {name}")
        return found

    return _ENV_VAR.sub(replace, value)


def _rendered(value: Any, environ: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        return {str(k): _rendered(v, environ) for k, v in value.items()}
    return _render(value, environ) if isinstance(value, str) else value


def profile_output(
    project: Path, name: str, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The profile's output ``name`` (``local``, ``cluster``) with its
    ``env_var()`` calls rendered from ``environ`` (default: this process's
    environment), as dbt would."""
    loaded: dict[str, Any] = yaml.safe_load((project / PROFILE).read_text(encoding="utf-8"))
    rendered: dict[str, Any] = _rendered(
        loaded["cdc"]["outputs"][name], os.environ if environ is None else environ
    )
    return rendered


def local_spark_conf(
    project: Path = Path("."), environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The Spark settings of the profile's ``local`` target."""
    params = profile_output(project, "local", environ)["server_side_parameters"]
    return {str(k): str(v) for k, v in params.items()}


# A process that runs all day (the watch) runs thousands of statements:
# Spark's status store keeps up to 1,000 SQL executions, jobs and stages
# and 100,000 tasks even with the UI off (nothing here reads them).
LONG_RUNNING_RETENTION = {
    "spark.sql.ui.retainedExecutions": "50",
    "spark.ui.retainedJobs": "50",
    "spark.ui.retainedStages": "50",
    "spark.ui.retainedTasks": "5000",
    "spark.ui.retainedDeadExecutors": "10",
}


def long_running_conf(profile_conf: Mapping[str, str]) -> dict[str, str]:
    """Settings for a Spark that stays up (on top of the profile's): a
    bounded status store, and the driver's whole heap (its
    ``spark.driver.memory``) reserved and touched at start (``-Xms`` =
    ``-Xmx``, pre-touched), so the process's footprint is known from its
    first minute instead of following the collector's growing and
    shrinking of the heap (which swung the watch's RSS between 1.4 and
    2.9 GiB every few minutes in ``make soak-watch``)."""
    conf = dict(LONG_RUNNING_RETENTION)
    memory = profile_conf.get("spark.driver.memory")
    if memory:
        options = profile_conf.get("spark.driver.extraJavaOptions", "")
        conf["spark.driver.extraJavaOptions"] = (
            f"{options} -Xms{memory} -XX:+AlwaysPreTouch".strip()
        )
    return conf


# A short run (a small batch, then the models of the topics it touched)
# spends more of its seconds compiling than running: the JVM's optimising
# compiler (C2) takes a core for seconds on methods the run calls a few
# times more. Compiled by C1 only, a 1 % batch of the 300 k benchmark ran
# in 17.5–20.9 s instead of 28.3–29.0 s; the first build of the same
# events took 76.8–79.0 s instead of 66.7–72.5 s, so long runs keep both.
SHORT_RUN_JVM = "-XX:TieredStopAtLevel=1"


def short_run_conf(profile_conf: Mapping[str, str]) -> dict[str, str]:
    """Settings for a Spark that lives for one short run (on top of the
    profile's): its JVM compiles with C1 only, unless the profile's
    options already choose the compilers."""
    options = profile_conf.get("spark.driver.extraJavaOptions", "")
    if "TieredStopAtLevel" in options or "TieredCompilation" in options:
        return {}
    return {"spark.driver.extraJavaOptions": f"{options} {SHORT_RUN_JVM}".strip()}


def local_spark(project: Path = Path("."), extra: Mapping[str, str] | None = None) -> SparkSession:
    """Start (or reuse) the embedded Spark session of the local target
    (``extra``: settings on top of the profile's, for a session that is
    not yet started)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in (local_spark_conf(project) | dict(extra or {})).items():
        builder = builder.config(key, value)
    with _jvm_ignores_sigterm():
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


@contextmanager
def _jvm_ignores_sigterm() -> Iterator[None]:
    """The JVM started meanwhile ignores SIGTERM (an ignored signal stays
    ignored across exec, and the JVM then installs no handler of its own).

    A scheduler stops a service by sending SIGTERM to its whole process
    group (systemd's default, ``kill -- -PGID``): the JVM died at once, in
    the middle of the step the watch was finishing, and the cycle failed
    with Py4J errors. The JVM still ends with this process: pyspark's
    gateway exits when its stdin, a pipe from this process, closes
    (pyspark already starts it ignoring SIGINT, for Ctrl-C)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
