"""What decides that a run's Spark starts for a short life: the bytes a
landing reads that the last one did not (land/landing_memory.py), and
the JVM options it then adds (engine/spark_session.py)."""

from __future__ import annotations

import os
from pathlib import Path

from python_helpers.engine.spark_session import SHORT_RUN_JVM, short_run_conf
from python_helpers.land import landing_memory


def _dump(landing: Path, name: str, text: str) -> Path:
    path = landing / "shop.public.orders" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_new_bytes_counts_growth_new_files_and_rewrites(tmp_path: Path) -> None:
    landing, state = tmp_path / "landing", tmp_path / "state"
    first = _dump(landing, "a.jsonl", "x" * 100 + "\n")
    topics = ["shop.public.orders"]
    fingerprint = landing_memory.landing_fingerprint(landing, topics)
    assert landing_memory.new_bytes(fingerprint, state) is None  # nothing remembered
    landing_memory.remember_landing(fingerprint, state)
    assert landing_memory.new_bytes(fingerprint, state) == 0
    with first.open("a", encoding="utf-8") as grown:
        grown.write("y" * 49 + "\n")
    _dump(landing, "b.jsonl", "z" * 9 + "\n")
    later = landing_memory.landing_fingerprint(landing, topics)
    assert landing_memory.new_bytes(later, state) == 50 + 10
    first.write_text("short\n", encoding="utf-8")  # rewritten, smaller: read again
    rewritten = landing_memory.landing_fingerprint(landing, topics)
    assert landing_memory.new_bytes(rewritten, state) == 6 + 10
    landing_memory.remember_landing(rewritten, state)
    again = _dump(landing, "b.jsonl", "Z" * 9 + "\n")  # as large, another time: read again
    os.utime(again, ns=(1, 1))
    touched = landing_memory.landing_fingerprint(landing, topics)
    assert landing_memory.new_bytes(touched, state) == 10
    moved = dict(rewritten, landing=str(tmp_path / "elsewhere"))
    assert landing_memory.new_bytes(moved, state) is None


def test_a_short_run_adds_c1_only_unless_the_profile_chose_the_compilers() -> None:
    conf = short_run_conf({"spark.driver.extraJavaOptions": "-Dderby.system.home=x"})
    assert conf == {"spark.driver.extraJavaOptions": f"-Dderby.system.home=x {SHORT_RUN_JVM}"}
    assert short_run_conf({}) == {"spark.driver.extraJavaOptions": SHORT_RUN_JVM}
    chosen = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=4"}
    assert short_run_conf(chosen) == {}
