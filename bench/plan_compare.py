"""Selects planned side by side in one JVM: what a change to the generated
SQL does to Spark's planning, as a ratio measured in one run.

``python -m bench.plan_compare A.sql B.sql ...`` (``CDC_STATE_DIR``: the
warehouse the selects read, e.g. ``.state/bench-plan/state`` after ``make
bench-plan``): the project's embedded Spark, its catalogs started, then
ROUNDS rounds planning each select once in turn (interleaved, so that the
JVM's warming and the machine's noise fall on all of them alike; the
first round is left out). Prints, per select, its size and the minimum and
median of analysis + optimization + physical planning
(``QueryPlanningTracker``), with the phases of the minimum.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from bench.plan_probe import planning_phases
from python_helpers.engine.spark_session import local_spark

ROUNDS = 6
PLANNED = ("analysis", "optimization", "planning")


def main() -> None:
    files = [Path(name) for name in sys.argv[1:]]
    selects = {path: path.read_text(encoding="utf-8") for path in files}
    spark = local_spark(Path("."))
    spark.sql("show tables in cdc_landing").collect()
    timings: dict[Path, list[dict[str, float]]] = {path: [] for path in files}
    for round_ in range(ROUNDS):
        for path, select in selects.items():
            phases = planning_phases(spark.sql(select))
            if round_ > 0:
                timings[path].append(phases)
    spark.stop()
    print(f"| select | KB | min: {' + '.join(PLANNED)} | median | phases of the min |")
    print("|---|---:|---:|---:|---|")
    for path, runs in timings.items():
        totals = [sum(run.get(phase, 0.0) for phase in PLANNED) for run in runs]
        sums = sorted((total, i) for i, total in enumerate(totals))
        best = runs[sums[0][1]]
        shown = ", ".join(f"{phase} {best.get(phase, 0.0):.2f}" for phase in PLANNED)
        median = statistics.median(total for total, _ in sums)
        kilobytes = len(selects[path].encode("utf-8")) / 1024
        print(f"| {path.name} | {kilobytes:.1f} | {sums[0][0]:.2f} | {median:.2f} | {shown} |")


if __name__ == "__main__":
    main()
