"""The runs' Prometheus text (issue 45), parsed by prometheus_client's own
text parser: counters add up over runs, gauges are the last run's, label
values from the data are escaped, a run with nothing new counts too."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

from project_runs import free_port
from prometheus_client.parser import text_string_to_metric_families

from python_helpers.run import metrics_http, prometheus


def _row(topic: str, **values: Any) -> dict[str, Any]:
    return {"topic": topic, "quarantined_by_reason": {}} | values


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_counters_add_up_over_runs_and_gauges_keep_the_last(tmp_path: Path) -> None:
    first = _row(
        "shop.public.orders",
        records_landed=10,
        records_staged=8,
        quarantined_by_reason={"tombstone": 1, "malformed_json": 1},
        keys_inserted=5,
        lag_seconds=12.5,
        land_seconds=1.0,
        dbt_seconds=4.0,
    )
    prometheus.record(tmp_path, [first], True, 20.0)
    second = _row("shop.public.orders", records_landed=3, records_staged=3, lag_seconds=2.0)
    prometheus.record(tmp_path, [second], False, 5.0)
    prometheus.record(tmp_path, [], True, 0.1)  # nothing new
    text = (tmp_path / prometheus.TEXTFILE).read_text(encoding="utf-8")
    samples = _samples(text)
    topic = (("topic", "shop.public.orders"),)
    assert samples[("cdc_records_landed_total", topic)] == 13
    assert samples[("cdc_records_staged_total", topic)] == 11
    assert samples[("cdc_keys_inserted_total", topic)] == 5
    assert samples[("cdc_records_quarantined_total", (("reason", "malformed_json"), *topic))] == 1
    assert samples[("cdc_source_lag_seconds", topic)] == 2.0
    assert samples[("cdc_step_duration_seconds", (("step", "dbt"), *topic))] == 4.0
    assert samples[("cdc_runs_total", (("outcome", "success"),))] == 2
    assert samples[("cdc_runs_total", (("outcome", "failure"),))] == 1
    assert samples[("cdc_run_duration_seconds", ())] == 0.1
    assert samples[("cdc_last_run_success", ())] == 1
    # the failed run is not a success of the topic: its time stays the first run's
    assert (
        samples[("cdc_last_success_timestamp_seconds", topic)]
        < samples[("cdc_last_run_timestamp_seconds", ())]
    )


def test_label_values_from_the_data_are_escaped(tmp_path: Path) -> None:
    hostile = 'a"b\\c\nd} evil_metric 1'
    text = prometheus.record(tmp_path, [_row(hostile, records_landed=1)], True, 1.0)
    samples = _samples(text)
    assert samples[("cdc_records_landed_total", (("topic", hostile),))] == 1
    assert not any(name == "evil_metric" for name, _ in samples)


def test_the_watch_endpoint_serves_the_textfile(tmp_path: Path) -> None:
    prometheus.record(tmp_path, [_row("t", records_landed=2)], True, 1.0)
    port = free_port()
    server = metrics_http.serve(tmp_path, "127.0.0.1", port)
    assert server is not None
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
            assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            body = response.read().decode("utf-8")
        assert _samples(body)[("cdc_records_landed_total", (("topic", "t"),))] == 2
        # the port taken: said, and no server (the watch goes on without)
        assert metrics_http.serve(tmp_path, "127.0.0.1", port) is None
    finally:
        server.shutdown()
