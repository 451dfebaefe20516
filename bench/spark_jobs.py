"""The Spark jobs the benchmark compares with the project's own path.

* ``ceiling``: one pyspark process doing only what the job needs — read the
  kcat lines, ``from_json`` the value with the known schema, decode the
  logical types, keep the newest event per key, write parquet.
* ``decode``: staging decode rates on the same landed values, in one
  session: the project's compiled base-model SQL, the ceiling's decode, one
  ``get_json_object`` per column, and schema inference
  (``spark.read.json`` without a schema).

* ``plan``: the Iceberg scan of the last incremental base-model run.

* ``checks``: what each of the base model's per-record checks costs (issue
  54): every check alone over the same landed values, next to the base
  model's own ``from_json`` and the whole compiled base model, in one warm
  session, ``noop`` writes, each twice in turn (the faster run counts).
  The checks are the project's macros, compiled by dbt in this process
  (``compile --inline``), never copied here.

* ``topics-ceiling``: the same for a whole database of topics
  (``bench.topics_generate``), one topic after the other.

Run as ``python -m bench.spark_jobs ceiling LANDING OUT``,
``python -m bench.spark_jobs topics-ceiling LANDING TOPICS OUT``,
``python -m bench.spark_jobs decode PROJECT_COPY RAW_TABLE EVENTS OUT.json``
``python -m bench.spark_jobs plan PROJECT_COPY RAW_TABLE OUT.json`` or
``python -m bench.spark_jobs checks PROJECT_COPY RAW_TABLE TOPIC OUT.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROW = (
    "account_id bigint, owner_name string, email string, balance string, opened_on int,"
    " updated_at bigint, synced_at string, profile string, is_active boolean, notes string"
)


def _row_type() -> str:
    return (
        "struct<"
        + ", ".join(
            f"{name}: {kind}" for name, kind in (c.strip().split(" ") for c in ROW.split(","))
        )
        + ">"
    )


def envelope_type() -> str:
    row = _row_type()
    return (
        f"struct<payload: struct<before: {row}, after: {row},"
        " source: struct<lsn: bigint, ts_ms: bigint>, op: string>>"
    )


def _decimal(column: str, precision: int = 14) -> str:
    """Decimal(precision, 2) from base64 two's complement (fits 64 bits here)."""
    hex_text = f"hex(unbase64({column}))"
    return (
        f"cast((cast(conv({hex_text}, 16, 10) as decimal(38, 0))"
        f" - if(substr({hex_text}, 1, 1) >= '8',"
        f" cast(pow(2, 4 * length({hex_text})) as decimal(38, 0)), 0))"
        f" / 100 as decimal({precision}, 2))"
    )


def decoded_columns(row: str) -> str:
    return ", ".join(
        [
            f"{row}.account_id",
            f"{row}.owner_name",
            f"{row}.email",
            f"{_decimal(row + '.balance')} as balance",
            f"date_from_unix_date({row}.opened_on) as opened_on",
            f"timestamp_micros({row}.updated_at) as updated_at",
            f"cast({row}.synced_at as timestamp) as synced_at",
            f"{row}.profile",
            f"{row}.is_active",
            f"{row}.notes",
        ]
    )


def _session() -> Any:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "3g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def ceiling(landing: Path, out: Path, plain: bool = False) -> None:
    spark = _session()
    spark.read.text(str(landing / "*" / "*.jsonl")).createOrReplaceTempView("lines")
    # a plain-form line is the value itself; its place in the file orders it
    kcat_select = (
        "select named_struct('offset', monotonically_increasing_id(), 'payload', value) as k"
        " from lines"
        if plain
        else "select from_json(value, 'struct<offset: bigint, payload: string>') as k from lines"
    )
    spark.sql(
        f"""
        with kcat as (
            {kcat_select}
        ),
        events as (
            select k.offset, from_json(k.payload, '{envelope_type()}').payload as e from kcat
        ),
        rows as (
            select
                e.op,
                struct(e.source.lsn, offset) as position,
                if(e.op = 'd', e.before, e.after) as r
            from events
        ),
        newest as (
            select max_by(struct(op, r), position) as n from rows group by r.account_id
        )
        select {decoded_columns("n.r")} from newest where n.op != 'd'
        """
    ).write.mode("overwrite").parquet(str(out))


def topics_ceiling(landing: Path, topics: int, out: Path) -> None:
    """The ceiling of a whole database: each topic read, decoded with its
    known schema, newest event per key kept, written as parquet."""
    from bench.topics_generate import extra_columns, row_type, topic_name

    spark = _session()
    for number in range(1, topics + 1):
        topic = topic_name(number)
        row = row_type(number)
        envelope = (
            f"struct<payload: struct<before: {row}, after: {row},"
            " source: struct<lsn: bigint>, op: string>>"
        )
        extra = "".join(f", n.r.{c}" for c in extra_columns(number))
        spark.read.text(str(landing / topic / "*.jsonl")).createOrReplaceTempView("lines")
        spark.sql(
            f"""
            with kcat as (
                select from_json(value, 'struct<offset: bigint, payload: string>') as k
                from lines
            ),
            events as (
                select k.offset, from_json(k.payload, '{envelope}').payload as e from kcat
            ),
            newest as (
                select max_by(
                    struct(e.op, if(e.op = 'd', e.before, e.after) as r),
                    struct(e.source.lsn, offset)
                ) as n
                from events
                group by coalesce(e.after.id, e.before.id)
            )
            select
                n.r.id, n.r.name, {_decimal("n.r.amount", 12)} as amount,
                timestamp_micros(n.r.updated_at) as updated_at{extra}
            from newest where n.op != 'd'
            """
        ).write.mode("overwrite").parquet(str(out / topic))


def _noop_writer(spark: Any) -> Any:
    """A job that runs ``sql`` to the end and writes nothing (``noop``)."""

    def noop(sql: str) -> Any:
        return lambda: spark.sql(sql).write.format("noop").mode("overwrite").save()

    return noop


def _time(action: Any) -> float:
    started = time.monotonic()
    action()
    return time.monotonic() - started


def decode(project: Path, raw_table: str, events: int, out: Path) -> None:
    import os

    os.chdir(project)
    sys.path.insert(0, str(project))
    from python_helpers.engine.spark_session import local_spark

    spark = local_spark(project)
    spark.sparkContext.setLogLevel("ERROR")
    values = spark.table(raw_table).select("kafka_value", "kafka_offset")
    values.createOrReplaceTempView("values_landed")
    compiled = next((project / "target" / "compiled").rglob("base_*accounts.sql"))
    ours = compiled.read_text(encoding="utf-8")

    noop = _noop_writer(spark)

    def inferred() -> None:
        frame = spark.read.json(spark.table("values_landed").rdd.map(lambda r: r.kafka_value))
        frame.createOrReplaceTempView("inferred")
        spark.sql(
            "select payload.op, payload.source.lsn,"
            f" {decoded_columns('payload.after')} from inferred"
        ).write.format("noop").mode("overwrite").save()

    per_column = (
        "named_struct("
        + ", ".join(
            f"'{name}', cast(get_json_object(kafka_value, '$.payload.after.{name}') as {kind})"
            for name, kind in (c.strip().split(" ") for c in ROW.split(","))
        )
        + ") as c"
    )
    _time(noop(ours))  # warms the JVM up; every measured job runs warm
    results = {
        "ours (compiled base model)": _time(noop(ours)),
        "ceiling decode (from_json, known schema)": _time(
            noop(
                f"select e.op, e.source.lsn, {decoded_columns('e.after')} from ("
                f"select from_json(kafka_value, '{envelope_type()}').payload as e"
                " from values_landed)"
            )
        ),
        "get_json_object per column": _time(
            noop(
                f"select op, lsn, {decoded_columns('c')} from ("
                "select get_json_object(kafka_value, '$.payload.op') as op,"
                " get_json_object(kafka_value, '$.payload.source.lsn') as lsn,"
                f" {per_column} from values_landed)"
            )
        ),
        "schema inference (read.json, no schema)": _time(inferred),
    }
    out.write_text(
        json.dumps(
            {name: {"seconds": s, "events_per_s": events / s} for name, s in results.items()}
        ),
        encoding="utf-8",
    )


def plan(project: Path, raw_table: str, out: Path) -> None:
    """The scan of the last incremental base-model run: the batch filter
    Spark pushed into Iceberg, and how many data files it leaves to read."""
    import os
    import re

    os.chdir(project)
    from python_helpers.engine.spark_session import local_spark

    spark = local_spark(project)
    compiled = next((project / "target" / "compiled").rglob("base_*accounts.sql"))
    sql = compiled.read_text(encoding="utf-8")
    found = re.search(r"landing_batch > (\d+)", sql)
    assert found, "the compiled base model has no batch filter: run it incrementally first"
    bound = int(found.group(1))
    explained = spark.sql(f"explain {sql}").first()
    assert explained is not None
    scans = [line.strip() for line in explained[0].splitlines() if "BatchScan" in line]
    metrics = "readable_metrics.landing_batch"
    files = spark.sql(
        f"select count(*) as files, count_if({metrics}.upper_bound > {bound}) as to_read"
        f" from {raw_table}.files"
    ).first()
    assert files is not None
    out.write_text(
        json.dumps({"scan": scans, "files": files.files, "to_read": files.to_read, "bound": bound}),
        encoding="utf-8",
    )


# the base model's per-record checks, each as its macro is called there
# (macros/connectors/relational/): name -> Jinja of one expression over the
# landed record `v` (`spec`: the topic's generated spec)
SCAN = "scan only (octet_length)"
PARSE = "from_json (the base model's parse)"
CHECKS = {
    SCAN: "octet_length(v.kafka_value)",
    PARSE: "{{ _cdc_parse_value('v.kafka_value', spec.value_type) }}",
    "UTF-8 check (value and key)": "{{ cdc_not_utf8('v.kafka_value') }}"
    " or {{ cdc_not_utf8('v.kafka_key') }}",
    "JSON text null (trim)": "trim(v.kafka_value) = 'null'",
    # the text after a known schema block inlined (the base model computes
    # it once, in a select below: this is the dearer form)
    "repeated envelope fields": "{{ _cdc_repeated_envelope_fields('v.kafka_value',"
    " _cdc_after_known_block('v.kafka_value', spec)) }}",
    "schema-block fingerprint": "{{ cdc_schema_fingerprint('v.kafka_value', spec) }}",
}
_MARK = "/*cdc-check*/"


def _compiled_checks(project: Path, topic: str) -> dict[str, str]:
    """CHECKS compiled by dbt in this process (its Spark session is the
    one the job already started)."""
    from dbt.cli.main import dbtRunner

    spec = f"{{% set spec = cdc_topic_spec({json.dumps(topic)}) %}}"
    query = spec + f" {_MARK} ".join(CHECKS.values())
    done = dbtRunner().invoke(
        ["compile", "--quiet", "--inline", query, "--project-dir", str(project)]
    )
    result: Any = done.result
    assert done.success and result is not None, done.exception
    compiled = str(result.results[0].node.compiled_code)
    return dict(zip(CHECKS, (part.strip() for part in compiled.split(_MARK)), strict=True))


def checks(project: Path, raw_table: str, topic: str, out: Path) -> None:
    import os

    os.chdir(project)
    sys.path.insert(0, str(project))
    os.environ.setdefault("DBT_PROFILES_DIR", "profiles")
    from python_helpers.engine.spark_session import local_spark

    spark = local_spark(project)
    spark.sparkContext.setLogLevel("ERROR")
    spark.table(raw_table).createOrReplaceTempView("values_landed")
    events = spark.table(raw_table).count()
    expressions = _compiled_checks(project, topic)
    compiled = next((project / "target" / "compiled").rglob("base_*accounts.sql"))
    model = compiled.read_text(encoding="utf-8")

    noop = _noop_writer(spark)

    _time(noop(model))  # warms the JVM up; every measured job runs warm
    jobs = {
        name: noop(f"select {expression} as checked from values_landed as v")
        for name, expression in expressions.items()
    } | {"the whole base model": noop(model)}
    rounds: dict[str, list[float]] = {}
    for _ in range(2):  # each job twice, in turn: the faster of its two runs
        for name, job in jobs.items():
            rounds.setdefault(name, []).append(_time(job))
    results = {name: min(seconds) for name, seconds in rounds.items()}
    out.write_text(
        json.dumps(
            {
                "events": events,
                "seconds": results,
                "sql": expressions,
            }
        ),
        encoding="utf-8",
    )


if __name__ == "__main__":
    if sys.argv[1] == "checks":
        checks(Path(sys.argv[2]), sys.argv[3], sys.argv[4], Path(sys.argv[5]))
    elif sys.argv[1] == "plan":
        plan(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
    elif sys.argv[1] == "topics-ceiling":
        topics_ceiling(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
    elif sys.argv[1] == "ceiling":
        ceiling(Path(sys.argv[2]), Path(sys.argv[3]), plain=sys.argv[4:] == ["plain"])
    else:
        decode(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), Path(sys.argv[5]))
