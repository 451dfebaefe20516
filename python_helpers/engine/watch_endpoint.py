"""A watch serves its tables to other processes over Thrift.

The embedded Derby metastore admits one Spark process at a time: while a
watch holds it, a second process that starts its own Spark is locked out.
So a watch on the local target starts Spark's Thrift server *inside its
own Spark* (``HiveThriftServer2.startWithContext``: the same warehouse,
catalog and metastore, nothing copied) on 127.0.0.1, and notes its port
and process id in the state folder. Every tool of this project that would
open the embedded Spark looks there first (``serving_port``) and, when a
live watch serves the same state folder, goes through its endpoint
instead: ``export``, ``show``, ``report``, ``maintain``, and dbt through
``python -m python_helpers dbt`` (the ``cluster`` target aimed at it).
"""

from __future__ import annotations

import ipaddress
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from python_helpers.engine.thrift import HOST, listening

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_STATE = Path(".state")
# Iceberg's catalog caches a table's metadata per session: a reader's
# long-lived session would not see the watch's newer commits. The serving
# Spark starts with the cache off (each statement reads the table's
# current metadata: milliseconds here).
SERVING_CONF = {"spark.sql.catalog.spark_catalog.cache-enabled": "false"}


def serving_conf(profile_conf: dict[str, str]) -> dict[str, str]:
    """Settings of the serving Spark on top of the profile's: the catalog
    cache off, and the profile's jars (Iceberg) on the driver's class
    path too: with them in `spark.jars` only, the watch's own next
    statement failed to find the `iceberg` data source once a reader's
    Thrift session had opened (seen in `test_watch.py`; the separate server
    of ``thrift.start`` needs the same)."""
    jars = profile_conf.get("spark.jars")
    return SERVING_CONF | ({"spark.driver.extraClassPath": jars} if jars else {})


SERVING_FILE = Path("watch") / "serving.json"


def state_dir() -> Path:
    """The state folder: ``CDC_STATE_DIR``, else ``.state``."""
    return Path(os.environ.get("CDC_STATE_DIR") or DEFAULT_STATE)


# HiveServer2's authentication modes that check who connects
AUTHENTICATED = frozenset({"LDAP", "KERBEROS", "CUSTOM", "PAM"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, conf: dict[str, str]) -> None:
    """Refuse to serve on an address other machines reach without
    authentication: ``conf`` (the profile's Spark settings) must set
    ``hive.server2.authentication`` to one of AUTHENTICATED
    (docs/watch-and-maintenance.md says how)."""
    if is_loopback(host):
        return
    mode = str(conf.get("hive.server2.authentication", "NONE")).upper()
    if mode not in AUTHENTICATED:
        raise RuntimeError(
            f"refusing to serve the tables on {host}, an address other machines reach, without"
            f" authentication (hive.server2.authentication is {mode}): set it to LDAP, KERBEROS,"
            " CUSTOM or PAM with its settings in the profile's server_side_parameters"
            " (docs/watch-and-maintenance.md), or serve on 127.0.0.1"
        )


# the loggers of the serving Thrift server that report its clients' errors
QUIET_LOGGERS = (
    "org.apache.spark.sql.hive.thriftserver.SparkExecuteStatementOperation",
    "org.apache.hive.service.cli.operation",
    "org.apache.hive.service.cli.thrift.ThriftCLIService",
)


def serve(spark: SparkSession, state: Path, port: int, host: str = HOST) -> None:
    """Start the Thrift endpoint in ``spark`` on ``host:port`` (loopback
    unless told otherwise, see check_bind) and note it."""
    mode = spark.conf.get("hive.server2.authentication", "NONE") or "NONE"
    check_bind(host, {"hive.server2.authentication": mode})
    if listening(port):
        raise RuntimeError(f"{HOST}:{port} is taken by another process: pick --serve-port")
    spark.conf.set("hive.server2.thrift.bind.host", host)
    spark.conf.set("hive.server2.thrift.port", str(port))
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    server = jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2
    server.startWithContext(spark._jsparkSession.sqlContext())
    # a reader's failed statement is the reader's: its error goes back to it
    # over Thrift; the server's own log of it (a 60-line stack trace a
    # statement, e.g. a view not built yet) stays out of the watch's output
    for logger in QUIET_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
            logger, jvm.org.apache.logging.log4j.Level.OFF
        )
    path = state / SERVING_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "port": port}), encoding="utf-8")


def stop_serving(state: Path) -> None:
    """Forget the note (the endpoint ends with its process)."""
    (state / SERVING_FILE).unlink(missing_ok=True)


def serving_port(state: Path) -> int | None:
    """The port of a live watch serving ``state`` from another process."""
    path = state / SERVING_FILE
    if not path.exists():
        return None
    noted = json.loads(path.read_text(encoding="utf-8"))
    pid, port = int(noted["pid"]), int(noted["port"])
    if pid == os.getpid():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return port if listening(port) else None
