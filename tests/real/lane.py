"""The real-producer lane's build (tests/real/): one PostgreSQL cluster, the
lane's workload captured once per configuration users run (each its own
slot and topic prefix, all into one landing), one `make run` of a project
made by `init`, then the source tables read at the end."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from postgres_cluster import running_cluster
from project_paths import PROJECT
from real_producer import build_landing, capture_many, connector_properties
from real_workloads import LANE_SCHEMA, SCHEMA, lane_workload

PUBLICATION = "cdc_lane"
UNWRAP = {
    "transforms": "unwrap",
    "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "transforms.unwrap.add.fields": "op,lsn,source.ts_ms",
}
# prefix -> the connector's settings beyond the defaults (schemas on,
# decimal.handling.mode=precise, time.precision.mode=adaptive, tombstones
# on delete)
CONFIGURATIONS: dict[str, dict[str, str]] = {
    "plain": {},
    "unwrap": UNWRAP,
    "unwraprw": UNWRAP | {"transforms.unwrap.delete.tombstone.handling.mode": "rewrite"},
    "strings": {
        "decimal.handling.mode": "string",
        "binary.handling.mode": "hex",
        "time.precision.mode": "connect",
        "tombstones.on.delete": "false",
    },
    "doubles": {"decimal.handling.mode": "double"},
    "txmeta": {"provide.transaction.metadata": "true"},
    "noschema": {
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
    },
}
# the compared tables: name -> key columns (the keyless table by all columns)
TABLES = {
    "customers": ["id"],
    "order_lines": ["order_id", "line"],
    "kinds": ["id"],
    "full_identity": ["id"],
    "measures": ["id", "at"],
}


def view(prefix: str, table: str) -> str:
    connector = "flattened" if prefix.startswith("unwrap") else "postgres"
    return f"cdc_current.{connector}__{prefix}_public_{table}"


def _declare(landing: Path) -> None:
    """What a person declares: the schemaless topics' schema (the plain
    configuration's topic of the same table) and key; the keyless table's
    key (its rows are told apart by `a`; REPLICA IDENTITY FULL)."""
    for table, key in (TABLES | {"keyless": ["a"]}).items():
        for prefix in CONFIGURATIONS:
            folder = landing / f"{prefix}.public.{table}"
            lines = []
            if prefix == "noschema":
                lines.append(f"schema_from: plain.public.{table}")
            if prefix == "noschema" or table == "keyless":
                lines.append(f"primary_key: [{', '.join(key)}]")
            if folder.is_dir() and lines:
                (folder / "topic.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def build(root: Path) -> dict[str, Any]:
    landing = root / "landing"
    seconds: dict[str, float] = {}
    started = time.monotonic()
    with running_cluster(PROJECT / ".state" / "pytest-real-lane" / "postgres") as cluster:
        cluster.sql(SCHEMA + LANE_SCHEMA)
        cluster.sql(
            f"create publication {PUBLICATION} for all tables"
            " with (publish_via_partition_root = true);"
        )
        configurations = [
            connector_properties(
                cluster,
                prefix,
                f"lane_{prefix}",
                root / f"offsets-{prefix}.dat",
                {
                    "publication.name": PUBLICATION,
                    "publication.autocreate.mode": "disabled",
                    # Debezium skips truncates unless told (its default: t)
                    "skipped.operations": "none",
                }
                | extra,
            )
            for prefix, extra in CONFIGURATIONS.items()
        ]
        outputs = capture_many(cluster, landing, configurations, lane_workload)
        seconds["capture"] = time.monotonic() - started
        expected = {
            table: cluster.rows(f"select * from {table} order by {', '.join(key)}")
            for table, key in TABLES.items()
        }
        expected["keyless"] = cluster.rows("select * from keyless order by a")
        expected["kinds_text"] = cluster.rows(
            "select id, "
            + ", ".join(
                f"{name}::text as {name}"
                for name in cluster.value(
                    "select string_agg(column_name, ',' order by ordinal_position)"
                    " from information_schema.columns where table_name = 'kinds'"
                    " and column_name != 'id'"
                ).split(",")
            )
            + " from kinds order by id"
        )
    _declare(landing)
    started = time.monotonic()
    views = [view(prefix, table) for prefix in CONFIGURATIONS for table in [*TABLES, "keyless"]]
    project_dir = PROJECT / ".state" / "pytest-real-lane" / "project"
    project, run, exported = build_landing(project_dir, landing, views)
    seconds["make run"] = time.monotonic() - started
    per_configuration = {
        prefix: sum(
            len(path.read_text(encoding="utf-8").splitlines())
            for path in landing.glob(f"{prefix}.*/*.jsonl")
        )
        for prefix in CONFIGURATIONS
    }
    records = sum(per_configuration.values())
    return {
        "landing": landing,
        "captures": outputs,
        "expected": expected,
        "run": run,
        "exported": exported,
        "seconds": seconds,
        "records": records,
        "per_configuration": per_configuration,
        "project": project,
    }
