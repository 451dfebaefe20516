"""Put the Iceberg Spark runtime jar where the dbt profile expects it.

The jar ships inside the PyPI wheel ``snowpark-connect-deps-iceberg==1.0.2``
(installed by ``requirements-jars.txt`` with a pinned hash). It is copied to
``<state>/jars/`` and its SHA-256 is checked, so a different or damaged jar
is refused rather than half-working.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from python_helpers.digest import file_digest

ICEBERG_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
ICEBERG_JAR_SHA256 = "c562d482dcd16b666e808b755469fbc4b2604284b41622c9d87e2c02b7cc6c5f"
WHEEL_PACKAGE = "snowpark_connect_deps_iceberg"


def install_iceberg_jar(state: Path) -> Path:
    """Copy (if needed) and verify the jar; returns its path."""
    target = state / "jars" / ICEBERG_JAR
    if target.exists() and file_digest(target) == ICEBERG_JAR_SHA256:
        return target
    source = Path(str(resources.files(WHEEL_PACKAGE) / "jars" / ICEBERG_JAR))
    if not source.exists():
        raise FileNotFoundError(
            f"{ICEBERG_JAR} not found: install requirements-jars.txt (make setup)"
        )
    found = file_digest(source)
    if found != ICEBERG_JAR_SHA256:
        raise ValueError(f"{source} has SHA-256 {found}, expected {ICEBERG_JAR_SHA256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target
