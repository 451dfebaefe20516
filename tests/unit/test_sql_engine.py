"""The CLI's SQL engine reads the profile as dbt renders it, and opens a
Thrift connection with the profile's retries (no Spark needed: a local
socket that closes every connection stands in for a server that drops a
handshake)."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from project_paths import PROJECT
from thrift.transport.TTransport import TTransportException  # type: ignore[import-untyped]

from python_helpers.engine.spark_session import local_spark_conf, profile_output
from python_helpers.engine.sql_engine import ThriftEngine, open_engine


def test_the_cluster_output_renders_like_dbt() -> None:
    environ = {"CDC_SPARK_HOST": "spark.example", "CDC_SPARK_PORT": "10123"}
    output = profile_output(PROJECT, "cluster", environ)
    assert output["method"] == "thrift"
    assert (output["host"], output["port"]) == ("spark.example", "10123")
    assert output["user"] == "dbt"  # the profile's default
    assert output["retry_all"] is True and output["connect_retries"] > 0


def test_local_spark_settings_follow_the_state_folder() -> None:
    conf = local_spark_conf(PROJECT, {"CDC_STATE_DIR": "/tmp/somewhere"})
    assert conf["spark.sql.warehouse.dir"].startswith("/tmp/somewhere")
    assert all(isinstance(v, str) and "{{" not in v for v in conf.values())


class _DroppingServer:
    """Accepts TCP connections and closes each at once, counting them."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self.sock.close()


def test_a_dropped_handshake_is_retried_then_reported() -> None:
    server = _DroppingServer()
    try:
        started = time.monotonic()
        with pytest.raises(TTransportException):
            ThriftEngine("127.0.0.1", server.port, "dbt", retries=2, wait_seconds=0.2)
        assert server.accepted == 3  # the first attempt and two retries
        assert time.monotonic() - started >= 0.4
    finally:
        server.close()


def test_the_cli_engine_refuses_a_non_thrift_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CDC_SPARK_METHOD", "http")
    with pytest.raises(ValueError, match="Thrift only"):
        open_engine(PROJECT, "cluster")


def test_a_local_server_listens_where_the_cluster_target_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from python_helpers.engine.thrift import cluster_port

    monkeypatch.setenv("CDC_SPARK_PORT", "10123")
    assert cluster_port(PROJECT) == 10123
    monkeypatch.delenv("CDC_SPARK_PORT")
    assert cluster_port(PROJECT) == 10000  # the profile's default
