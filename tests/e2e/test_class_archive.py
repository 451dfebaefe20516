"""The embedded Spark maps the environment's class archive (issue 54,
starts): `make setup` wrote it for this JDK and pyspark, the profile
passes it, and the JVM the suite starts (as every run's) maps it on top of
the JDK's own, rather than setting it aside silently (another class path,
another JDK: docs/performance.md)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from python_helpers.engine.class_archive import NOTE_NAME, archive_path, fingerprint

pytestmark = pytest.mark.spark

_MAPPED = re.compile(r"CDS archive\(s\) mapped at: \[[^\]]*\), size (\d+)")


def _jdk_archive(spark: Any) -> Path:
    home = Path(str(spark._jvm.System.getProperty("java.home")))
    return home / "lib" / "server" / "classes.jsa"


def test_the_archive_was_made_for_this_jdk_and_pyspark() -> None:
    archive = archive_path()
    note = json.loads(archive.with_name(NOTE_NAME).read_text(encoding="utf-8"))
    assert note["problem"] is None
    assert note["made_for"] == fingerprint()
    assert archive.stat().st_size > 50 << 20  # Spark's classes, not only the JDK's


def test_the_embedded_spark_maps_the_archive(spark: Any) -> None:
    pid = int(spark._jvm.ProcessHandle.current().pid())
    info = subprocess.run(
        ["jcmd", str(pid), "VM.info"], capture_output=True, text=True, check=True
    ).stdout
    found = _MAPPED.search(info)
    assert found is not None, info[:2000]
    # the JDK's own archive alone is what a JVM that set ours aside maps
    assert int(found.group(1)) > _jdk_archive(spark).stat().st_size + (50 << 20)
