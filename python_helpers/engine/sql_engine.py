"""Where the CLI's own SQL runs: the embedded Spark or a Spark Thrift Server.

The landing, `export` and `show` only send Spark SQL and read rows back,
so the same code serves the profile's two targets:

- ``local`` (the default): the embedded SparkSession of the profile's
  ``local`` output (``spark_session.local_spark``);
- ``cluster``: a connection to the Thrift server of the profile's
  ``cluster`` output (host, port, user and connection retries as dbt renders
  them, from ``CDC_SPARK_HOST``, ``CDC_SPARK_PORT``, ``CDC_SPARK_USER``).
  Landing files are then read *by the server*: their paths must be
  readable there (here the same machine; on a cluster, shared storage).

The target is ``CDC_DBT_TARGET`` (as for dbt) unless given. While a watch
serves the state folder (``watch_endpoint``), ``local`` reaches the
watch's own Spark through its Thrift endpoint.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Row = dict[str, Any]
_T = TypeVar("_T")
_R = TypeVar("_R")


class SqlEngine(Protocol):
    """Runs one Spark SQL statement; returns its rows (none for DDL/DML).
    ``statements_at_once``: how many ``sql`` calls may run at the same time
    from different threads (1: one after the other)."""

    statements_at_once: int

    def sql(self, query: str) -> list[Row]: ...

    def where(self) -> str:
        """Where the tables are, for people: a warehouse folder or a server."""
        ...


class SessionEngine:
    """The embedded SparkSession of the ``local`` target. A SparkSession
    takes statements from several threads at once: a small statement waits
    mostly on its job's scheduling and its Iceberg commit, not on the cores
    (40 small topics landed in 22.8 s one at a time, 8.5-9.8 s three or four
    at a time, on 2 cores: docs/performance.md)."""

    statements_at_once = 4

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def sql(self, query: str) -> list[Row]:
        return [row.asDict() for row in self.spark.sql(query).collect()]

    def where(self) -> str:
        return f"warehouse: {self.spark.conf.get('spark.sql.warehouse.dir')}"


class ThriftEngine:
    """One session on the Thrift server of the ``cluster`` target (temporary
    views and SET live in it): one statement at a time (a PyHive connection
    is not shared between threads)."""

    statements_at_once = 1

    def __init__(
        self, host: str, port: int, user: str, retries: int = 0, wait_seconds: float = 0.0
    ) -> None:
        self.connection = _connect(host, port, user, retries, wait_seconds)
        self.address = f"{host}:{port}"

    def sql(self, query: str) -> list[Row]:
        cursor = self.connection.cursor()
        try:
            cursor.execute(query)
            if not cursor.description:
                return []
            names = [column[0].split(".")[-1] for column in cursor.description]
            try:
                rows = cursor.fetchall()
            except TypeError:  # PyHive on a statement that returns no row set (DDL)
                return []
            return [dict(zip(names, values, strict=True)) for values in rows]
        finally:
            cursor.close()

    def where(self) -> str:
        return f"server: {self.address} (target cluster)"


def _connect(host: str, port: int, user: str, retries: int, wait_seconds: float) -> Any:
    """A PyHive connection; a failed opening (refused, or the server closing
    the socket mid-handshake) is tried again ``retries`` times, as dbt-spark
    does with the profile's ``retry_all``."""
    from pyhive import hive  # type: ignore[import-untyped]
    from thrift.transport.TTransport import TTransportException  # type: ignore[import-untyped]

    for _ in range(retries):
        try:
            return hive.connect(host=host, port=port, username=user)
        except TTransportException:
            time.sleep(wait_seconds)
    return hive.connect(host=host, port=port, username=user)


def target_name(target: str | None = None) -> str:
    return target or os.environ.get("CDC_DBT_TARGET") or "local"


def open_engine(project: Path, target: str | None = None, short_run: bool = False) -> SqlEngine:
    """The engine of ``target`` (default: ``CDC_DBT_TARGET``, else local);
    ``short_run``: a local Spark started now lives for one short run
    (``spark_session.short_run_conf``)."""
    name = target_name(target)
    if name == "local":
        from python_helpers.engine.spark_session import (
            local_spark,
            local_spark_conf,
            short_run_conf,
        )
        from python_helpers.engine.thrift import HOST
        from python_helpers.engine.watch_endpoint import serving_port, state_dir

        if target is None and (port := serving_port(state_dir())) is not None:
            return ThriftEngine(HOST, port, "cdc")  # a watch holds the metastore

        extra = short_run_conf(local_spark_conf(project)) if short_run else None
        return SessionEngine(local_spark(project, extra))
    if name == "cluster":
        from python_helpers.engine.spark_session import profile_output

        output = profile_output(project, "cluster")
        if output["method"] != "thrift":
            raise ValueError(
                "the CLI reaches a cluster through Thrift only (CDC_SPARK_METHOD=thrift):"
                " land with your Kafka sink instead (docs/cluster.md)"
            )
        retry = bool(output.get("retry_all"))
        return ThriftEngine(
            str(output["host"]),
            int(output["port"]),
            str(output["user"]),
            retries=int(output.get("connect_retries", 0)) if retry else 0,
            wait_seconds=float(output.get("connect_timeout", 0)),
        )
    raise ValueError(f"unknown target {name!r}: local or cluster")


def each_at_once(engine: SqlEngine, function: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
    """``function`` of every item, in order, ``engine.statements_at_once``
    items at a time (a small statement waits on Spark more than on the
    cores); the first error raised, once every call has ended."""
    with ThreadPoolExecutor(max_workers=max(engine.statements_at_once, 1)) as pool:
        return list(pool.map(function, items))


def first_value(engine: SqlEngine, query: str) -> Any:
    """The first column of the first row of ``query`` (None if no row)."""
    rows = engine.sql(query)
    return next(iter(rows[0].values())) if rows else None
