"""``make bench-topics``: a whole database of topics, against the ceiling.

On a generated landing of TOPICS PostgreSQL topics × EVENTS events
(``bench.topics_generate``), in a copy of the project holding only them,
every step a whole process (JVM start included), timed with its peak memory:

1. first build: ``python -m python_helpers run -- build`` (sync, land, dbt);
2. cold parse: ``dbt parse --no-partial-parse`` of the synced project;
3. one new event on a tenth of the topics, then ``run -- build``;
4. nothing new, ``run -- build``;
5. the ceiling: one pyspark process that decodes every topic with its known
   schema and keeps the newest row per key (``bench.spark_jobs``).

``--parse-only`` runs sync and the cold parse only (how parse grows with
topics, without the builds). Prints a table and writes
``bench/results/topics-<TOPICS>x<EVENTS>.{md,csv}`` and the plot
``bench/results/topics.png`` (seconds against topics, every size measured).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.run import RESULTS, Step, machine, run_step
from bench.statements import per_model_by_layer, statements_per_node
from bench.topics_generate import generate, one_more
from python_helpers.project.init_project import fresh_project

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--parse-only", action="store_true")
    args = parser.parse_args()
    topics, events = args.topics, args.events
    work = REPO / ".state" / "bench-topics" / f"{topics}x{events}"
    if work.exists():
        shutil.rmtree(work)
    size = generate(work / "data", topics, events)
    print(f"generated {topics} topics x {events} events ({size / 1e6:.1f} MB) under {work}")
    landing = work / "data" / "landing"
    project = fresh_project(REPO, work / "project")
    env = os.environ | {
        "CDC_STATE_DIR": str(project / ".state"),
        "DBT_PROFILES_DIR": "profiles",
        "PYTHONPATH": str(REPO),
        "CDC_LANDING_DIR": str(landing),
    }
    python = sys.executable
    helpers = [python, "-m", "python_helpers"]
    dbt = str(Path(python).parent / "dbt")
    subprocess.run([*helpers, "jars"], cwd=project, env=env, check=True, capture_output=True)
    # as `make run` does, less the rows display: the freshness table included
    run = [*helpers, "run", "--freshness", "--", "build"]
    steps: dict[str, Step] = {}
    ran: dict[str, tuple[int, int]] = {}  # step: (models, tests) dbt ran
    statements: dict[str, tuple[int, float]] = {}  # layer: (models, per model)
    if args.parse_only:
        steps["sync"] = run_step("sync", [*helpers, "sync"], project, env)
    else:
        steps["first build"] = run_step("first build (run)", run, project, env)
        ran["first build"] = dbt_nodes(project)
    parse = [dbt, "parse", "--no-partial-parse"]
    steps["cold parse"] = run_step("cold dbt parse", parse, project, env)
    perf = json.loads((project / "target" / "perf_info.json").read_text(encoding="utf-8"))
    nodes = json.loads((project / "target" / "manifest.json").read_text(encoding="utf-8"))
    counts = {
        kind: sum(1 for n in nodes["nodes"].values() if n["resource_type"] == kind)
        for kind in ("model", "test")
    }
    if not args.parse_only:
        changed = list(range(1, topics + 1, 10))
        for number in changed:
            one_more(work / "data", number, events)
        label = f"one event on {len(changed)} topics (run)"
        logs = work / "logs-one-event"
        steps["one event on a tenth"] = run_step(
            label, run, project, env | {"DBT_LOG_PATH": str(logs)}
        )
        ran["one event on a tenth"] = dbt_nodes(project)
        log = (logs / "dbt.log").read_text(encoding="utf-8").splitlines()
        statements = per_model_by_layer(statements_per_node(log))
        steps["nothing new"] = run_step("nothing new (run)", run, project, env)
        ceiling = [python, "-m", "bench.spark_jobs", "topics-ceiling", str(landing), str(topics)]
        steps["ceiling"] = run_step("ceiling", [*ceiling, str(work / "ceiling")], REPO, env)
    report(topics, events, size, steps, perf, counts, ran, statements)


def dbt_nodes(project: Path) -> tuple[int, int]:
    """The models and tests the last dbt invocation ran (run_results.json)."""
    path = project / "target" / "run_results.json"
    results = json.loads(path.read_text(encoding="utf-8"))["results"]
    models = sum(1 for r in results if r["unique_id"].startswith("model."))
    tests = sum(1 for r in results if r["unique_id"].startswith("test."))
    return models, tests


# the steps of a run other than land and dbt: the issue-43 target is on their sum
AROUND = ("sync", "freshness", "metrics", "tests", "maintenance")


def report(
    topics: int,
    events: int,
    size: int,
    steps: dict[str, Step],
    perf: dict[str, float],
    counts: dict[str, int],
    nodes: dict[str, tuple[int, int]],
    statements: dict[str, tuple[int, float]] | None = None,
) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    ceiling = steps["ceiling"].seconds if "ceiling" in steps else None
    lines = [
        f"# Whole-database benchmark: {topics} topics × {events} events",
        "",
        f"- machine: {machine()}",
        f"- landing: {topics} PostgreSQL-connector topics, {topics * events:,} events,"
        f" {size / 1e6:,.1f} MB (kcat form, key and value schema blocks)",
        f"- project: {counts['model']} models, {counts['test']} tests;"
        f" dbt's own parse timing: {perf['load_all_elapsed']:.1f} s"
        f" (of which models parsed in {perf['parse_project_elapsed']:.1f} s)",
        f"- measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, whole processes",
        *(
            f"- dbt nodes of the {name}: {m} models and {t} tests"
            f" ({(m + t) / (topics if name == 'first build' else max(1, topics // 10)):.1f}"
            " per topic built)"
            for name, (m, t) in nodes.items()
        ),
        *(
            [
                "- statements per model of the one event on a tenth (dbt's debug log,"
                " bench/statements.py): "
                + ", ".join(
                    f"{layer} {mean:.1f} ({models} models)"
                    for layer, (models, mean) in statements.items()
                )
            ]
            if statements
            else []
        ),
        "",
        "| step | seconds | peak memory | × ceiling |",
        "|---|---:|---:|---:|",
    ]
    for name, step in steps.items():
        ratio = f"{step.seconds / ceiling:.2f}" if ceiling else "–"
        peak = f"{step.peak_bytes / 2**30:.2f} GiB"
        lines.append(f"| {name} | {step.seconds:.1f} | {peak} | {ratio} |")
        for part in step.parts:
            lines.append(f"| {part.name} | {part.seconds:.1f} | | |")
        around = [p.seconds for p in step.parts if p.name.split()[-1] in AROUND]
        if step.parts:
            lines.append(f"|   of which not land nor dbt | {sum(around):.1f} | | |")
    text = "\n".join(lines) + "\n"
    print(text)
    stem = f"topics-{topics}x{events}" + ("" if ceiling else "-parse")
    (RESULTS / f"{stem}.md").write_text(text, encoding="utf-8")
    with (RESULTS / f"{stem}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["topics", "events", "step", "seconds", "peak_bytes"])
        for name, step in steps.items():
            writer.writerow([topics, events, name, f"{step.seconds:.2f}", step.peak_bytes])
    plot()


def plot() -> None:
    """Seconds against topics for every size measured so far."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for path in RESULTS.glob("topics-*.csv"):
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                point = (int(row["topics"]), float(row["seconds"]))
                series.setdefault(row["step"], []).append(point)
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for step, points in sorted(series.items()):
        points = sorted(set(points))
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=step)
    axes.set_xlabel("topics in the landing")
    axes.set_ylabel("seconds (whole processes)")
    axes.set_title(f"cdc-dbt-spark: cost against topics ({machine().split(' (')[0]})")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(RESULTS / "topics.png", dpi=110)


if __name__ == "__main__":
    main()
