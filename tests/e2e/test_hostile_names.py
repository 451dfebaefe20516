"""Text from the data is data, end to end (docs/guarantees.md, "Text from
the data").

In a project made by `init`, one `make run` of a landing holding:

- the same table on PostgreSQL, MySQL and SQL Server whose text columns
  are named what those databases allow but code does not
  (`hostile_names.HOSTILE_NAMES`: reserved words, spaces, dots, quotes of
  every kind, backquotes, a case-only pair, a name starting with `#`, names
  at the length limits, and canaries: names that would log a marker or
  create a table if they ever ran as Jinja or SQL), the PostgreSQL one
  with a tracked history, partial updates and a change feed declared on
  those names;
- a PostgreSQL table whose column names are drawn at random from every
  metacharacter and the whole of Unicode (`drawn_names`; the seed is
  CDC_HOSTILE_SEED, 41 by default);
- a MongoDB collection whose documents (and a sub-document) carry the
  hostile names as fields;
- a control topic;
- and three things that must stop only themselves: a topic whose
  topic.yml is wrong, a folder whose name is no Kafka topic, a symbolic
  link out of the landing.

Checked: the run builds every good topic and ends non-zero naming each
left-out one; every value reaches the current-state views under the
column names the declarations record; the history and change feed hold
the renamed and hostile columns; no canary ran (no table, no marker in any
log); the docs site shows the hostile names as text in Chromium (no
script ran).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from backlog import Backlog
from hostile_names import (
    BYTES_NAME,
    CANARY_LOG,
    CANARY_TABLE,
    HOSTILE_NAMES,
    HOSTILE_SECRET,
    drawn_names,
    expected_documents,
    expected_rows,
    hostile_mongodb_topic,
    hostile_topic,
)
from project_paths import PROJECT
from project_runs import free_port, project_env, run_in

from python_helpers.engine.thrift import listening
from python_helpers.project.init_project import fresh_project
from python_helpers.schema.column_names import nested_names, spark_key
from python_helpers.topic import spec_files

pytestmark = pytest.mark.spark

SEED = int(os.environ.get("CDC_HOSTILE_SEED", "41"))
RELATIONAL = ("postgresql", "mysql", "sqlserver")
MONGO_TOPIC = "heldmongo.shop.docs"
CONTROL = "heldnames.public.control"
WRONG = "heldnames.public.wrong"
LAYERS = ("current", "history", "changes", "quarantine")
PG_SETTINGS = {
    "history": {"track": ["a b", 'x"y']},
    "ignore_null_updates": ["ünï", "name"],  # "name" is renamed name_2: named by its source name
    "changes": True,
}


def _put(landing: Path, topic: str, dump: str, settings: dict[str, Any] | None = None) -> None:
    (landing / topic).mkdir(parents=True)
    (landing / topic / "dump.jsonl").write_text(dump, encoding="utf-8")
    if settings is not None:
        (landing / topic / "topic.yml").write_text(yaml.safe_dump(settings), encoding="utf-8")


# legal Kafka topic names that made bad identifiers or file names (issue
# 53): no letter or digit, 249 characters, and a pair that makes one name
ODD_TOPICS = ("-_-", "heldnames.public." + "t" * 200 + "-" + "u" * 31)
COLLIDING = ("heldnames.public.coll-x", "heldnames.public.coll_x")


def _renamed(dump: str, topic: str) -> str:
    """A kcat dump's records as records of ``topic``."""
    return "".join(
        json.dumps(json.loads(line) | {"topic": topic}) + "\n" for line in dump.splitlines()
    )


def _landing(root: Path) -> tuple[Path, dict[str, list[str]]]:
    """The landing, and the row topics with their column names."""
    landing = root / "landing"
    names: dict[str, list[str]] = {}
    for connector in RELATIONAL:
        topic, dump = hostile_topic(connector, "plain", HOSTILE_NAMES, "heldnames", True)
        _put(landing, topic, dump, PG_SETTINGS if connector == "postgresql" else None)
        names[topic] = HOSTILE_NAMES
    drawn = drawn_names(SEED, 24)
    topic, dump = hostile_topic("postgresql", "drawn", drawn, "drawnnames")
    _put(landing, topic, dump)
    names[topic] = drawn
    _put(landing, MONGO_TOPIC, hostile_mongodb_topic(MONGO_TOPIC, HOSTILE_NAMES))
    control = hostile_topic("postgresql", "control", ["note"], "heldnames")[1]
    _put(landing, CONTROL, control)
    for topic in (*ODD_TOPICS, *COLLIDING):
        _put(landing, topic, _renamed(control, topic))
        names[topic] = ["note"]
    names[CONTROL] = ["note"]
    _put(landing, WRONG, hostile_topic("postgresql", "wrong", ["note"], "heldnames")[1])
    (landing / WRONG / "topic.yml").write_text("history: maybe\n", encoding="utf-8")
    (landing / "no topic").mkdir()
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.jsonl").write_text('{"not": "yours"}\n', encoding="utf-8")
    (landing / "escape").symlink_to(outside, target_is_directory=True)
    (landing / CONTROL / "linked.jsonl").symlink_to(outside / "secret.jsonl")
    return landing, names


def _views(project: Path) -> dict[str, str]:
    """topic -> its current-state view (`schema.alias`), from the manifest."""
    manifest = json.loads((project / "target" / "manifest.json").read_text(encoding="utf-8"))
    found = {}
    for node in manifest["nodes"].values():
        meta = node["config"].get("meta") or {}
        layer = meta.get("cdc_layer")
        if node["resource_type"] == "model" and layer in LAYERS:
            found[(meta["cdc_topic"], meta["cdc_layer"])] = f"{node['schema']}.{node['alias']}"
    return {f"{topic}/{layer}": name for (topic, layer), name in found.items()}


def _hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("hostile")
    project = fresh_project(PROJECT, PROJECT / ".state" / "pytest-hostile" / "project")
    state = project / ".state"
    landing, names = _landing(root)
    venv = Path(sys.executable).parents[1]
    env = project_env(state) | {"CDC_HOSTILE_SECRET": HOSTILE_SECRET}
    command = ["make", "--no-print-directory", "run", f"VENV={venv}", f"CDC_LANDING_DIR={landing}"]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    views = _views(project)
    tables = sorted(views.values())
    helpers = [sys.executable, "-m", "python_helpers"]
    manifest = "cdc_landing._landing_manifest"
    exported = json.loads(run_in(project, state, *helpers, "export", *tables, manifest))
    return {
        "project": project,
        "state": state,
        "names": names,
        "run": done,
        "views": views,
        "exported": exported,
        "manifest_rows": exported[manifest]["rows"],
    }


# built on whichever of the suite's threads gets to it first (tests/support/backlog.py)
BACKGROUND_BUILD = _hostile
# what it took in the suite (2026-11-29): the backlog runs the longest first
BUILD_SECONDS = 110


@pytest.fixture(scope="module")
def hostile(backlog: Backlog) -> dict[str, Any]:
    return backlog.result(__name__)  # type: ignore[no-any-return]


def test_the_run_builds_every_good_topic_and_names_each_left_out(hostile: dict[str, Any]) -> None:
    done = hostile["run"]
    output = done.stdout + done.stderr
    assert done.returncode != 0, output[-3000:]
    assert "PASS=" in output and "ERROR=0" in output, output[-3000:]
    refused = COLLIDING[1]
    for name, why in (
        (WRONG, "history is 'maybe'"),
        ("no topic", "not a Kafka topic name"),
        ("escape", "a symbolic link out of the landing folder"),
        (refused, f"is topic {COLLIDING[0]!r}'s already"),
    ):
        assert f"error: topic {name!r} was left out of this run: " in output, name
        assert why in output
    assert f"warning: {CONTROL}: not reading {CONTROL}/linked.jsonl: a symbolic link" in output
    built = {topic for topic in hostile["names"] if topic != refused}
    assert {f"{topic}/current" for topic in built} <= set(hostile["views"])
    assert f"{MONGO_TOPIC}/current" in hostile["views"]
    assert not any(WRONG in key or refused in key for key in hostile["views"])
    landed = {json.loads(row)["landing_file"].split("/")[0] for row in hostile["manifest_rows"]}
    assert landed == {*built, MONGO_TOPIC}


def _declared(project: Path, topic: str) -> dict[str, str]:
    """The Spark names sync gave the topic's columns (its generated spec:
    derived, they are not written into the person's declaration)."""
    spec = spec_files.read_file(spec_files.spec_path(project, topic).read_text(encoding="utf-8"))
    return dict(spec.column_names)


def _by_key(row: dict[str, Any]) -> dict[str, Any]:
    """A row's values by column name as Spark compares names (the catalog
    keeps names in lower case)."""
    return {spark_key(name): value for name, value in row.items()}


def test_every_value_reaches_the_current_state_views(hostile: dict[str, Any]) -> None:
    project, exported, views = hostile["project"], hostile["exported"], hostile["views"]
    for topic, names in hostile["names"].items():
        if topic == COLLIDING[1]:
            continue
        mapping = _declared(project, topic)
        rows = [_by_key(json.loads(r)) for r in exported[views[f"{topic}/current"]]["rows"]]
        got = {row["item_id"]: row for row in rows}
        expected = expected_rows(names)
        assert sorted(got) == sorted(expected), topic
        for key, row in expected.items():
            for name in names:
                column = spark_key(mapping.get(name, name))
                assert got[key].get(column) == row[name], (topic, name, column)
    if "name" in HOSTILE_NAMES and "Name" in HOSTILE_NAMES:
        assert _declared(project, "heldnames.public.plain")["name"] == "name_2"
    # one column to the metastore: the second of the pair is mapped
    assert _declared(project, "heldnames.public.plain")["pad "] == "pad _2"


def test_nothing_from_the_data_is_substituted(hostile: dict[str, Any]) -> None:
    """Names `${env:…}`, `${system:…}`, `${spark.…}`, `${sparkconf:…}` and
    `${HOME}` are columns of those names (the values check above), and the
    environment variable's value is written nowhere: not in the logs, the
    manifest and compiled SQL, nor the warehouse's data and metadata."""
    project, state = hostile["project"], hostile["state"]
    places = [project / "logs", project / "target", state / "warehouse"]
    leaked = [
        path
        for place in places
        for path in place.rglob("*")
        if path.is_file() and HOSTILE_SECRET.encode() in path.read_bytes()
    ]
    assert leaked == []
    plain = hostile["views"]["heldnames.public.plain/current"]
    rows = hostile["exported"][plain]["rows"]
    name = spark_key("${env:CDC_HOSTILE_SECRET}")  # the catalog keeps names in lower case
    assert rows and all(name in _by_key(json.loads(row)) for row in rows)


def test_a_quarantined_record_names_its_hostile_column(hostile: dict[str, Any]) -> None:
    """Each relational topic's record whose bytes column is not base64 is
    quarantined (the build's landed-records test checked count in = count
    out), the detail naming the column as it is."""
    for topic, names in hostile["names"].items():
        if not topic.startswith("heldnames.") or names != HOSTILE_NAMES:
            continue
        rows = hostile["exported"][hostile["views"][f"{topic}/quarantine"]]["rows"]
        (row,) = [json.loads(r) for r in rows]
        assert row["_quarantine_reason"] == "type_mismatch", row
        assert f"column {BYTES_NAME} is bytes" in row["_quarantine_detail"], row


def test_the_history_and_change_feed_hold_the_hostile_columns(hostile: dict[str, Any]) -> None:
    topic = "heldnames.public.plain"
    history = hostile["exported"][hostile["views"][f"{topic}/history"]]["rows"]
    versions = [_by_key(json.loads(r)) for r in history]
    open_versions = {v["item_id"]: v for v in versions if v["is_current"]}
    assert sorted(open_versions) == [1, 2]
    mapping = _declared(hostile["project"], topic)
    for key, row in expected_rows(HOSTILE_NAMES).items():
        for name in HOSTILE_NAMES:
            assert open_versions[key][spark_key(mapping.get(name, name))] == row[name]
    # row 2's update changes the tracked columns: two versions of it
    assert sum(1 for v in versions if v["item_id"] == 2) == 2
    # the change feed: this first run's inserts (the deleted key 3 was never
    # in the state table before it), each value and its previous one
    feed = hostile["exported"][hostile["views"][f"{topic}/changes"]]
    changed = {row["item_id"]: row for row in (_by_key(json.loads(r)) for r in feed["rows"])}
    assert {1, 2} <= set(changed)
    feed_columns = {spark_key(name) for name in feed["types"]}
    for key, row in expected_rows(HOSTILE_NAMES).items():
        for name in HOSTILE_NAMES:
            column = mapping.get(name, name)
            assert changed[key][spark_key(column)] == row[name]
            assert spark_key(f"_cdc_previous_{column}") in feed_columns, column


def test_mongodb_fields_reach_the_current_state(hostile: dict[str, Any]) -> None:
    mapping = _declared(hostile["project"], MONGO_TOPIC)
    rows = hostile["exported"][hostile["views"][f"{MONGO_TOPIC}/current"]]["rows"]
    found = [_by_key(json.loads(r)) for r in rows]
    expected = expected_documents(HOSTILE_NAMES)
    assert len(found) == len(expected)
    nested = nested_names(HOSTILE_NAMES[:3])
    for oid, document in expected.items():
        (row,) = [r for r in found if oid in json.dumps(r["_id"])]
        for name in HOSTILE_NAMES:
            assert row[spark_key(mapping.get(name, name))] == document[name], name
        sub = {spark_key(k): v for k, v in row["nested"].items()}
        for name, value in document["nested"].items():
            assert sub[spark_key(nested.get(name, name))] == value


def test_no_canary_ran(hostile: dict[str, Any]) -> None:
    done = hostile["run"]
    assert CANARY_LOG not in done.stdout + done.stderr
    logs = hostile["project"] / "logs"
    for log in logs.glob("*.log"):
        text = log.read_text(encoding="utf-8", errors="replace")
        assert f"] {CANARY_LOG}" not in text and f"  {CANARY_LOG}\n" not in text, log
    # the warehouse holds a folder per table: the canary's would be there
    warehouse = hostile["state"] / "warehouse"
    assert (warehouse / "cdc_landing.db").is_dir()
    assert not list(warehouse.rglob(f"*{CANARY_TABLE}*"))


@pytest.fixture(scope="module")
def docs_site(hostile: dict[str, Any]) -> Iterator[str]:
    project, state = hostile["project"], hostile["state"]
    dbt = str(Path(sys.executable).parent / "dbt")
    run_in(project, state, dbt, "docs", "generate")
    port = free_port()
    env = os.environ | {"CDC_STATE_DIR": str(state), "DBT_PROFILES_DIR": "profiles"}
    process = subprocess.Popen(
        [dbt, "docs", "serve", "--host", "127.0.0.1", "--port", str(port), "--no-browser"],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not listening(port):
        assert process.poll() is None and time.monotonic() < deadline, "dbt docs serve"
        time.sleep(0.5)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()


def test_the_docs_site_shows_hostile_names_as_text(hostile: dict[str, Any], docs_site: str) -> None:
    from playwright.sync_api import sync_playwright
    from test_docs_site import ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS

    model = hostile["views"]["heldnames.public.plain/current"].split(".")[1]
    dialogs: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(f"{docs_site}/#!/model/model.cdc.{model}")
        page.wait_for_function("document.body.innerText.includes('Source column')")
        text = page.inner_text("body")
        pwned = page.evaluate("window.pwned")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "docs-hostile-names.png"), full_page=True)
        browser.close()
    assert dialogs == [] and pwned is None
    for name in ("<script>alert(1)</script>", "<img src=x onerror=window.pwned=1>", "a`b"):
        assert name in text, name
    assert "{{ log('" + CANARY_LOG + "', info=True) }}" in text
