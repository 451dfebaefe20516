"""Print where the results are and a few rows of the current-state tables."""

from __future__ import annotations

from pathlib import Path

from python_helpers.spark_session import local_spark, local_spark_conf

CURRENT_SCHEMA = "cdc_current"


def show_results(project: Path, rows: int = 5) -> str:
    """A readable summary of the local warehouse after a run: the
    current-state tables and views (not the `__state` tables behind them)."""
    conf = local_spark_conf(project)
    spark = local_spark(project)
    lines = [
        f"warehouse: {Path(conf['spark.sql.warehouse.dir']).resolve()}",
        "query it: source .venv/bin/activate && export DBT_PROFILES_DIR=profiles"
        " && dbt show --select <model>",
    ]
    tables = sorted(
        row.tableName
        for row in spark.sql(f"show tables in {CURRENT_SCHEMA}").collect()
        if not row.isTemporary and not row.tableName.endswith("__state")
    )
    for table in tables:
        name = f"{CURRENT_SCHEMA}.{table}"
        frame = spark.table(name)
        lines.append(f"\n{name}: {frame.count()} rows")
        visible = [c for c in frame.columns if not c.startswith("_")][:8]
        visible += [c for c in ("_cdc_op", "_cdc_source_committed_at") if c in frame.columns]
        ordered = frame.select(*visible).orderBy(*visible[:1])
        lines.append(ordered._jdf.showString(rows, 40, False))
    return "\n".join(lines)
