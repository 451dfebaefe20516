"""``make bench-plan``: where a model's time goes before it reads a row,
and where a one-line cycle goes.

On this checkout's sample landing (copied under ``.state/bench-plan``,
its own warehouse), after a first build:

1. each generated model kind of two sample topics (base, staging view,
   quarantine view, merged state, current view, history, change feed, the
   base model's data test ``cdc_checks``): its compiled select as dbt
   compiles it for an incremental run (``dbt compile``: the look-up's
   watermark written in), its size, and Spark's phases for it — parsing,
   analysis, optimization, physical planning (``QueryPlanningTracker``),
   then executing it (a ``noop`` write: every row computed, nothing
   stored) — cold (the first model query of a new JVM, one process per
   kind, once the session and its catalogs have started: their seconds
   are a column of their own) and warm (the third time in that JVM);
2. one appended line on one topic, then ``python -m python_helpers run --
   build`` as ``make run`` does: each step of the run (sync, land, dbt,
   metrics) and each dbt node (dbt's compile and execute timing: an
   incremental node's execute is its look-up, its statement and Iceberg's
   commit).

Prints both tables and writes ``bench/results/plan.{md,csv}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.run import RESULTS, machine, run_step

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / ".state" / "bench-plan"
# kind -> model name; the data test is found by the model it tests
KINDS: dict[str, str] = {
    "base (4 columns)": "base_postgres__postgresql_server_public_customers",
    "staging view": "stg_postgres__postgresql_server_public_customers",
    "quarantine view": "stg_postgres__postgresql_server_public_customers__quarantine",
    "state (merge)": "postgres__postgresql_server_public_customers__state",
    "current view": "postgres__postgresql_server_public_customers",
    "base (9 columns, 3 versions)": "base_postgres__proptest_public_items",
    "state (merge), items": "postgres__proptest_public_items__state",
    "history": "postgres__proptest_public_items__history",
    "change feed": "postgres__proptest_public_items__changes",
    "base (37 types)": "base_postgres__typesdemo_public_all_types",
}
TESTED = "base_postgres__postgresql_server_public_customers"
CYCLE_TOPIC = "PostgreSQL_server.public.customers"
PHASES = ("parsing", "analysis", "optimization", "planning")


@dataclass
class Probe:
    kind: str
    model: str
    kilobytes: float
    cold: dict[str, float]
    warm: dict[str, float]
    start: dict[str, float]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reuse", action="store_true", help="keep the last first build")
    args = parser.parse_args()
    env = os.environ | {
        "CDC_STATE_DIR": str(WORK / "state"),
        "DBT_PROFILES_DIR": "profiles",
        "DBT_TARGET_PATH": str(WORK / "target"),
        "DBT_LOG_PATH": str(WORK / "logs"),
    }
    landing = WORK / "landing"
    helpers = [sys.executable, "-m", "python_helpers"]
    if not (args.reuse and landing.exists()):
        if WORK.exists():
            shutil.rmtree(WORK)
        shutil.copytree(REPO / "sample_landing", landing)
        (WORK / "state").mkdir(parents=True)
        shutil.copytree(REPO / ".state" / "jars", WORK / "state" / "jars")
        first = [*helpers, "run", "--all", "--landing", str(landing), "--", "build"]
        step = run_step("first build", [*first, "--exclude-resource-type", "test"], REPO, env)
        print(f"first build of the samples: {step.seconds:.0f} s")
    dbt = str(Path(sys.executable).parent / "dbt")
    selected = " ".join(KINDS.values())
    subprocess.run(
        [dbt, "compile", "--select", selected, f"+{TESTED},resource_type:test", "--quiet"],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )
    compiled = _compiled(WORK / "target" / "manifest.json")
    probes = [_probe(kind, model, compiled[model], env) for kind, model in _kinds(compiled)]
    cycle, nodes = _cycle(landing, helpers, env)
    _report(probes, cycle, nodes)


def _compiled(manifest: Path) -> dict[str, str]:
    """model name (and `test:<model>` for its cdc_checks test) -> compiled select."""
    nodes = json.loads(manifest.read_text(encoding="utf-8"))["nodes"]
    found: dict[str, str] = {}
    for node in nodes.values():
        code = node.get("compiled_code")
        if not code:
            continue
        if node["resource_type"] == "model":
            found[node["name"]] = code
        elif (node.get("test_metadata") or {}).get("name") == "cdc_checks" and any(
            parent.endswith("." + TESTED) for parent in node["depends_on"]["nodes"]
        ):
            found[f"test:{TESTED}"] = code
    return found


def _kinds(compiled: dict[str, str]) -> list[tuple[str, str]]:
    kinds = [(kind, model) for kind, model in KINDS.items() if model in compiled]
    if f"test:{TESTED}" in compiled:
        kinds.append(("data test (cdc_checks)", f"test:{TESTED}"))
    return kinds


def _probe(kind: str, model: str, select: str, env: dict[str, str]) -> Probe:
    """The select planned three times and run once in a new JVM."""
    path = WORK / "probe.sql"
    path.write_text(select, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bench.plan_probe", str(path)],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    start, *runs = json.loads(done.stdout.strip().splitlines()[-1])
    return Probe(kind, model, len(select.encode()) / 1024, runs[0], runs[-1], start)


_DONE = re.compile(r"^done in ([0-9.]+)s \((.*)\)$", re.MULTILINE)


def _cycle(
    landing: Path, helpers: list[str], env: dict[str, str]
) -> tuple[dict[str, float], list[tuple[str, float, float]]]:
    """One line appended to CYCLE_TOPIC, then `run -- build`: the run's
    steps, and each node's (name, compile, execute) seconds."""
    folder = landing / CYCLE_TOPIC
    path = sorted(folder.glob("*.jsonl"))[0]
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    changes = [r for r in records if '"op": "u"' in (r.get("payload") or "")]
    record = dict(changes[-1] if changes else records[-1])
    record["offset"] = max(r["offset"] for r in records) + 1
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
    started = time.monotonic()
    done = subprocess.run(
        [*helpers, "run", "--landing", str(landing), "--", "build"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    steps = {"whole process": time.monotonic() - started}
    found = _DONE.search(done.stdout)
    if found:
        steps["run (its own clock)"] = float(found.group(1))
        for part in found.group(2).split(", "):
            name, seconds = part.rsplit(" ", 1)
            steps[name] = float(seconds.rstrip("s"))
    results = json.loads((WORK / "target" / "run_results.json").read_text(encoding="utf-8"))
    nodes = []
    for result in results["results"]:
        timing = {t["name"]: _seconds(t) for t in result.get("timing", [])}
        name = result["unique_id"].split(".", 2)[-1]
        nodes.append((name, timing.get("compile", 0.0), timing.get("execute", 0.0)))
    return steps, nodes


def _seconds(timing: dict[str, Any]) -> float:
    if not timing.get("started_at") or not timing.get("completed_at"):
        return 0.0
    started = datetime.fromisoformat(timing["started_at"].replace("Z", "+00:00"))
    completed = datetime.fromisoformat(timing["completed_at"].replace("Z", "+00:00"))
    return (completed - started).total_seconds()


def _phase_cells(phases: dict[str, float]) -> list[str]:
    planned = sum(phases.get(p, 0.0) for p in PHASES)
    return [
        *(f"{phases.get(p, 0.0):.2f}" for p in PHASES),
        f"**{planned:.2f}**",
        f"{phases['execution']:.2f}" if "execution" in phases else "–",
    ]


def _report(
    probes: list[Probe], cycle: dict[str, float], nodes: list[tuple[str, float, float]]
) -> None:
    header = (
        "| kind | model | select KB | " + " | ".join([*PHASES, "planned in", "execution"]) + " |"
    )
    rule = "|" + "---|" * 3 + "---:|" * 6
    lines = [
        "# Where a model's time goes before it reads a row (`make bench-plan`)",
        "",
        f"Machine: {machine()}. {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC.",
        "Workload: this checkout's sample landing, built once; each select as",
        "dbt compiles it for an incremental run with nothing new (the look-up's",
        "watermark written in), planned in a new JVM once its catalogs have",
        "started (cold), then twice more",
        "(warm: the third), then executed into a `noop` sink. Seconds.",
        "",
        "## Cold (the first model query of a new JVM)",
        "",
        "Before it, in each process: the session's start, then the first",
        "statement naming a table (the metastore and Iceberg's catalog start):",
        "",
        "| kind | session | catalogs |",
        "|---|---:|---:|",
        *(
            f"| {p.kind} | {p.start.get('session', 0.0):.2f} | {p.start.get('catalogs', 0.0):.2f} |"
            for p in probes
        ),
        "",
        header,
        rule,
    ]
    for probe in probes:
        lines.append(
            f"| {probe.kind} | `{probe.model}` | {probe.kilobytes:.1f} | "
            + " | ".join(_phase_cells(probe.cold))
            + " |"
        )
    lines += ["", "## Warm (the third time in the same JVM)", "", header, rule]
    for probe in probes:
        lines.append(
            f"| {probe.kind} | `{probe.model}` | {probe.kilobytes:.1f} | "
            + " | ".join(_phase_cells(probe.warm))
            + " |"
        )
    lines += [
        "",
        f"## One appended line on `{CYCLE_TOPIC}`: `run -- build`",
        "",
        "| step | seconds |",
        "|---|---:|",
        *(f"| {name} | {seconds:.2f} |" for name, seconds in cycle.items()),
        "",
        "| dbt node | compile | execute |",
        "|---|---:|---:|",
        *(f"| `{name}` | {c:.2f} | {e:.2f} |" for name, c, e in nodes),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "plan.md").write_text(text, encoding="utf-8")
    with (RESULTS / "plan.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["kind", "model", "select_kb", "when", *PHASES, "execution"])
        for probe in probes:
            for when, phases in (("cold", probe.cold), ("warm", probe.warm)):
                writer.writerow(
                    [probe.kind, probe.model, f"{probe.kilobytes:.1f}", when]
                    + [f"{phases.get(p, 0.0):.3f}" for p in (*PHASES, "execution")]
                )


if __name__ == "__main__":
    main()
