"""A local Spark Thrift Server: the kind of endpoint a cluster exposes.

``start`` runs pyspark's own ``HiveThriftServer2`` through ``spark-submit``,
bound to 127.0.0.1, with the Spark settings of the profile's ``local``
target (the same Iceberg catalog, warehouse layout and extensions), so the
``cluster`` target builds the same tables as the embedded default. Its
warehouse and Derby metastore are those of ``CDC_STATE_DIR`` (Derby admits
one process at a time: while the server runs, use the ``cluster`` target
on that state folder, not the embedded one). ``stop`` ends it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from python_helpers.engine.jars import install_iceberg_jar
from python_helpers.engine.spark_session import local_spark_conf, profile_output

SERVER_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"
HOST = "127.0.0.1"
# spark-submit options rather than --conf: they must be known before the JVM starts
_SUBMIT_OPTIONS = {"spark.master": "--master", "spark.driver.memory": "--driver-memory"}
# a cluster's master URL (spark://host:port): when set, the server is
# submitted to it instead of the profile's local master (standalone.py)
MASTER_VARIABLE = "CDC_SPARK_MASTER"
# what the executors of a cluster get: one core each, their own memory, the
# driver reachable on the loopback address only
EXECUTOR_CONF = {
    "spark.executor.cores": "1",
    "spark.cores.max": "2",
    "spark.executor.memory": "1g",
    "spark.driver.host": HOST,
    "spark.driver.bindAddress": HOST,
}


@dataclass(frozen=True)
class Server:
    state: Path
    port: int

    @property
    def pid_file(self) -> Path:
        return self.state / "thrift" / "server.pid"

    @property
    def log_file(self) -> Path:
        return self.state / "thrift" / "server.log"


def cluster_port(project: Path) -> int:
    """The port the profile's ``cluster`` target connects to (so a server
    started there is the one ``CDC_DBT_TARGET=cluster`` reaches)."""
    return int(profile_output(project, "cluster")["port"])


def submit_command(project: Path, server: Server) -> list[str]:
    """The spark-submit command line of the server (settings rendered for
    its state folder)."""
    command = [str(Path(spark_home()) / "bin" / "spark-submit"), "--class", SERVER_CLASS]
    for key, value in server_conf(project, server).items():
        if key in _SUBMIT_OPTIONS:
            command += [_SUBMIT_OPTIONS[key], value]
        elif key == "spark.jars":
            # the server's sessions resolve data sources (iceberg) with the
            # driver's class loader: the jar goes on its class path too
            command += ["--jars", value, "--driver-class-path", value]
        elif key != "spark.app.name":
            command += ["--conf", f"{key}={value}"]
    return command + [
        "--name",
        "cdc-thrift",
        "--hiveconf",
        f"hive.server2.thrift.bind.host={HOST}",
        "--hiveconf",
        f"hive.server2.thrift.port={server.port}",
        # Hive's own `${...}` substitution off too (Spark's is off in the profile)
        "--hiveconf",
        "hive.variable.substitute=false",
        "spark-internal",
    ]


def server_conf(project: Path, server: Server) -> dict[str, str]:
    """The server's Spark settings: the profile's local target's, submitted
    to the cluster named by ``CDC_SPARK_MASTER`` when it is set (its
    executors given ``EXECUTOR_CONF`` and the JVM flags of CDC_JVM_OPTIONS)."""
    conf = local_spark_conf(project, _environ(server))
    master = os.environ.get(MASTER_VARIABLE)
    if not master:
        return conf
    flags = os.environ.get("CDC_JVM_OPTIONS", "")
    return (
        conf
        | {"spark.master": master}
        | EXECUTOR_CONF
        | ({"spark.executor.extraJavaOptions": flags} if flags else {})
    )


def _environ(server: Server) -> dict[str, str]:
    """This process's environment with the server's state folder (the
    profile's paths follow ``CDC_STATE_DIR``)."""
    return dict(os.environ) | {"CDC_STATE_DIR": str(server.state)}


def spark_home() -> str:
    """pyspark's own distribution (spark-submit's script would look it up
    with whatever python3 is first on PATH)."""
    import pyspark

    return str(Path(pyspark.__file__).parent)


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((HOST, port)) == 0


def running_pid(server: Server) -> int | None:
    """The server's process id, if it is still running."""
    if not server.pid_file.exists():
        return None
    pid = int(server.pid_file.read_text().strip())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def start(project: Path, server: Server, timeout: float = 300) -> int:
    """Start the server in the background and wait until it accepts
    connections; returns its process id. Refuses if one already runs."""
    if running_pid(server) is not None:
        raise RuntimeError(f"a thrift server already runs (pid file {server.pid_file})")
    if listening(server.port):
        raise RuntimeError(f"{HOST}:{server.port} is taken by another process")
    install_iceberg_jar(server.state)
    server.log_file.parent.mkdir(parents=True, exist_ok=True)
    with server.log_file.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            submit_command(project, server),
            cwd=project,
            env=_environ(server) | {"SPARK_HOME": spark_home()},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop ends the JVM too
        )
    server.pid_file.write_text(str(process.pid))
    deadline = time.monotonic() + timeout
    while not listening(server.port):
        if process.poll() is not None:
            raise RuntimeError(
                f"the thrift server exited ({process.returncode}): see {server.log_file}"
            )
        if time.monotonic() > deadline:
            stop(server)
            raise RuntimeError(f"the thrift server did not listen within {timeout:.0f}s")
        time.sleep(1)
    return process.pid


def stop(server: Server, timeout: float = 60) -> bool:
    """Stop the server (its whole process group); False if none ran."""
    pid = running_pid(server)
    if pid is None:
        server.pid_file.unlink(missing_ok=True)
        return False
    os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while running_pid(server) is not None and time.monotonic() < deadline:
        time.sleep(0.5)
    if running_pid(server) is not None:
        os.killpg(pid, signal.SIGKILL)
    server.pid_file.unlink(missing_ok=True)
    return True
