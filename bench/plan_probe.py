"""One select planned three times in a new JVM (bench/plan.py).

``python -m bench.plan_probe FILE``: the project's embedded Spark (the
profile's settings, ``CDC_STATE_DIR``'s warehouse), the select in FILE
read by ``spark.sql`` and planned (``executedPlan``) three times, each
time with the phases of Spark's ``QueryPlanningTracker``; the last one is
also executed into a ``noop`` sink. Before it, the session's start and
the catalogs' (the first statement naming a table starts the metastore and
the Iceberg catalog: seconds, whatever the statement). Prints one JSON
line: a list of {phase: seconds}, the start first.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from python_helpers.engine.spark_session import local_spark

TIMES = 3


def planning_phases(frame: Any) -> dict[str, float]:
    execution = frame._jdf.queryExecution()
    execution.executedPlan()
    found: dict[str, float] = {}
    iterator = execution.tracker().phases().iterator()
    while iterator.hasNext():
        entry = iterator.next()
        found[str(entry._1())] = entry._2().durationMs() / 1000
    return found


def main() -> None:
    select = Path(sys.argv[1]).read_text(encoding="utf-8")
    started = time.monotonic()
    spark = local_spark(Path("."))
    start = {"session": time.monotonic() - started}
    # the metastore and the catalogs start at the first statement that
    # names a table, whatever its size: apart from the select's own cost
    started = time.monotonic()
    spark.sql("show tables in cdc_landing").collect()
    spark.sql("select * from cdc_landing.postgresql_server_public_customers limit 0").collect()
    start["catalogs"] = time.monotonic() - started
    runs: list[dict[str, float]] = [start]
    for time_ in range(TIMES):
        started = time.monotonic()
        frame = spark.sql(select)
        phases = planning_phases(frame)
        phases["sql and plan (wall)"] = time.monotonic() - started
        if time_ == TIMES - 1:
            started = time.monotonic()
            frame.write.format("noop").mode("overwrite").save()
            phases["execution"] = time.monotonic() - started
        runs.append(phases)
    spark.stop()
    print(json.dumps(runs))


if __name__ == "__main__":
    main()
