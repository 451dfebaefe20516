"""``make bench-mongodb [N=…]``: the MongoDB patch replay, measured.

A generated 2.x change-stream topic (kcat form, no schema blocks, keys):
one snapshot read per document (N/10 documents, nested fields, an array),
then updates without full documents (update descriptions: dotted-path sets,
array elements, removed fields, truncated arrays), some with a full
document, a few deletes and re-creations, spread over the documents.
Every step is a whole process (JVM start included) with its peak memory,
on a copy of the project holding only this topic:

1. full build: sync + land + dbt run (every event replayed);
2. a 1 % batch of further updates, applied on top of the stored documents;
3. nothing new.

Writes ``bench/results/mongodb-<N>.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.run import RESULTS, Step, machine, run_step
from python_helpers.project.init_project import fresh_project

REPO = Path(__file__).resolve().parents[1]
TOPIC = "benchmongo.shop.customers"
SECOND = 1_700_000_000


def _document(doc_id: int, rng: random.Random) -> dict[str, Any]:
    return {
        "_id": {"$oid": f"{doc_id:024x}"},
        "name": f"customer {doc_id}",
        "visits": {"$numberLong": str(rng.randrange(10**12))},
        "score": rng.random(),
        "joined": {"$date": SECOND * 1000 + doc_id},
        "address": {"city": rng.choice(["Oslo", "Lima", "Pune"]), "zip": str(doc_id)},
        "tags": [f"t{i}" for i in range(rng.randrange(1, 5))],
        "active": True,
    }


def _update(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.5:
        return {"updatedFields": {"address.city": rng.choice(["Rome", "Kyiv"]), "tags.0": "x"}}
    if roll < 0.7:
        return {"updatedFields": {"score": rng.random()}, "removedFields": ["active"]}
    if roll < 0.85:
        return {"updatedFields": {"tags.5": "y"}, "truncatedArrays": [{"field": "tags", "size": 2}]}
    return {"updatedFields": {"name": f"renamed {rng.randrange(10**6)}", "active": False}}


class _Stream:
    """Events in source order, one document's events in order."""

    def __init__(self, documents: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.documents = documents
        self.ord = 0
        self.second = SECOND

    def _event(self, op: str, doc_id: int, **fields: Any) -> tuple[str, str]:
        self.ord += 1
        if self.ord > 1000:
            self.second, self.ord = self.second + 1, 1
        description = fields.pop("description", None)
        value = {
            "before": None,
            "after": json.dumps(fields["after"]) if fields.get("after") else None,
            "updateDescription": None
            if description is None
            else {
                "updatedFields": json.dumps(description.get("updatedFields")),
                "removedFields": description.get("removedFields"),
                "truncatedArrays": description.get("truncatedArrays"),
            },
            "source": {
                "version": "2.7.0.Final",
                "connector": "mongodb",
                "name": "benchmongo",
                "ts_ms": self.second * 1000,
                "snapshot": "true" if op == "r" else "false",
                "db": "shop",
                "rs": "rs0",
                "collection": "customers",
                "ord": self.ord,
            },
            "op": op,
            "ts_ms": self.second * 1000 + 5,
        }
        key = json.dumps({"id": json.dumps({"$oid": f"{doc_id:024x}"})})
        return key, json.dumps(value, separators=(",", ":"))

    def events(self, count: int, snapshot: bool) -> list[tuple[str, str]]:
        out = []
        if snapshot:
            for doc_id in range(self.documents):
                out.append(self._event("r", doc_id, after=_document(doc_id, self.rng)))
        while len(out) < count:
            doc_id = self.rng.randrange(self.documents)
            roll = self.rng.random()
            if roll < 0.03:
                out.append(self._event("d", doc_id))
                out.append(self._event("c", doc_id, after=_document(doc_id, self.rng)))
            elif roll < 0.10:
                out.append(self._event("u", doc_id, after=_document(doc_id, self.rng)))
            else:
                out.append(self._event("u", doc_id, description=_update(self.rng)))
        return out[:count]


def _write(path: Path, events: list[tuple[str, str]], first_offset: int) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for index, (key, value) in enumerate(events):
            record = {
                "topic": TOPIC,
                "partition": 0,
                "offset": first_offset + index,
                "ts": SECOND * 1000,
                "key": key,
                "payload": value,
            }
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    n = parser.parse_args().events
    increment = max(1, n // 100)
    work = REPO / ".state" / "bench-mongodb" / str(n)
    if work.exists():
        shutil.rmtree(work)
    stream = _Stream(max(1, n // 10), seed=7)
    landing = work / "landing"
    size = _write(landing / TOPIC / "part-0.jsonl", stream.events(n, snapshot=True), 0)
    batch = stream.events(increment, snapshot=False)
    project = fresh_project(REPO, work / "project")
    env = os.environ | {
        "CDC_STATE_DIR": str(project / ".state"),
        "DBT_PROFILES_DIR": "profiles",
        "PYTHONPATH": str(REPO),
        "CDC_LANDING_DIR": str(landing),
    }
    helpers = [sys.executable, "-m", "python_helpers"]
    subprocess.run([*helpers, "jars"], cwd=project, env=env, check=True, capture_output=True)
    command = [*helpers, "run", "--", "run"]
    print(f"{n:,} MongoDB events ({size / 1e6:,.0f} MB) under {work}", flush=True)
    full = run_step("full", command, project, env)
    steps: list[tuple[str, int, Step]] = [("full build", n, full)]
    _write(landing / TOPIC / "part-1.jsonl", batch, n)
    steps.append(("1 % batch", increment, run_step("1 % batch", command, project, env)))
    steps.append(("nothing new", 0, run_step("nothing new", command, project, env)))
    report(n, size, stream.documents, steps)


def report(n: int, size: int, documents: int, steps: list[tuple[str, int, Step]]) -> None:
    lines = [
        f"# MongoDB replay benchmark: {n:,} events",
        "",
        f"- machine: {machine()}",
        f"- landing: {size / 1e6:,.0f} MB ({size / n:,.0f} bytes/event, kcat, no schema"
        f" blocks), {documents:,} documents: one read each, then ~87 % update"
        " descriptions, ~7 % full documents, ~3 % delete + re-create",
        f"- measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, whole processes",
        "",
        "| run | events | total s | sync s | land s | dbt run s | events/s (dbt) | peak memory |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, events, step in steps:
        parts = {part.name.split("of which ")[-1]: part.seconds for part in step.parts}
        dbt = parts.get("dbt run", 0.0)
        rate = f"{events / dbt:,.0f}" if events and dbt else "–"
        lines.append(
            f"| {name} | {events:,} | {step.seconds:.1f} | {parts.get('sync', 0):.1f} |"
            f" {parts.get('land', 0):.1f} | {dbt:.1f} | {rate} |"
            f" {step.peak_bytes / 2**30:.2f} GiB |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"mongodb-{n}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
