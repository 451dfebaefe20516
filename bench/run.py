"""``make bench``: the data path against the ceiling and the alternatives.

One run, on one generated landing, every step a whole process (JVM start
included), timed with its peak memory (resident set of the process and its
children, sampled every 0.1 s):

1. ceiling: one pyspark process (``bench.spark_jobs ceiling``);
2. ours, first build: ``sync``, ``land``, ``dbt run`` on a copy of the
   project holding only the benchmark topic;
3. staging decode rates (``bench.spark_jobs decode``) and what each of the
   base model's per-record checks costs (``bench.spark_jobs checks``);
4. ours, incremental: the same three after a 1 % batch, then with nothing new.

Prints a table and writes ``bench/results/bench-<N>.{md,csv}`` and the plot
``bench/results/cost.png`` (seconds against events, every size measured).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from bench.generate import TOPIC, generate
from bench.spark_jobs import PARSE, SCAN
from python_helpers.project.init_project import fresh_project

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


@dataclass
class Step:
    name: str
    seconds: float
    peak_bytes: int
    parts: list[Step] = field(default_factory=list)


_DONE = re.compile(r"^done in [0-9.]+s \((.*)\)$", re.MULTILINE)


def _parts(output: str, peak: int) -> list[Step]:
    """The per-step seconds `python -m python_helpers run` reports last."""
    found = _DONE.search(output)
    if not found:
        return []
    parts = []
    for item in found.group(1).split(", "):
        name, _, seconds = item.rpartition(" ")
        parts.append(Step(f"  of which {name}", float(seconds.rstrip("s")), peak))
    return parts


def _tree_rss(process: psutil.Process) -> int:
    """The resident memory of ``process`` and its descendants, each address
    space counted once: a child spawned from the JVM (Hadoop's local file
    system runs `chmod` for every file it writes, thousands per build)
    shares its parent's memory until it runs its own program, and counting
    it then added the JVM's whole size to the sample (the first build's
    peak jumped by 2-3 GiB from run to run). Such a child still has its
    parent's command line: it is left out."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            if member is not process and _shares_parent_memory(member):
                continue
            total += member.memory_info().rss
    return total


def _shares_parent_memory(member: psutil.Process) -> bool:
    """Whether ``member`` has not yet run a program of its own (a spawned
    or forked copy of its parent: the same command line)."""
    parent = member.parent()
    return parent is not None and member.cmdline() == parent.cmdline()


def run_step(name: str, args: list[str], cwd: Path, env: dict[str, str]) -> Step:
    """Run one whole process; its wall time and peak memory."""
    started = time.monotonic()
    child = subprocess.Popen(
        args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    peak = 0
    watched = psutil.Process(child.pid)

    def sample() -> None:
        nonlocal peak
        while child.poll() is None:
            try:
                peak = max(peak, _tree_rss(watched))
            except psutil.Error:
                break
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = child.communicate()
    sampler.join()
    seconds = time.monotonic() - started
    if child.returncode != 0:
        raise SystemExit(f"{name} failed ({' '.join(args)}):\n{output[-5000:]}")
    print(f"  {name:<40} {seconds:8.1f} s  {peak / 2**30:6.2f} GiB", flush=True)
    return Step(name, seconds, peak, _parts(output, peak))


def machine() -> str:
    memory = psutil.virtual_memory().total / 2**30
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), {memory:.0f} GiB, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument(
        "--plain", action="store_true", help="one plain-form file (bare values) instead of kcat"
    )
    args = parser.parse_args()
    n = args.events
    increment = max(1, n // 100)
    name = f"{n}-plain" if args.plain else str(n)
    work = REPO / ".state" / "bench" / name
    if work.exists():
        shutil.rmtree(work)
    print(f"generating {n} events (+{increment}) under {work}", flush=True)
    sizes = generate(work / "data", n, increment, plain=args.plain)
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
    subprocess.run([*helpers, "jars"], cwd=project, env=env, check=True, capture_output=True)

    def ours(label: str) -> list[Step]:
        step = run_step(
            f"{label}: sync + land + dbt run", [*helpers, "run", "--", "run"], project, env
        )
        return [step, *step.parts]

    steps: dict[str, list[Step]] = {}
    steps["ceiling"] = [
        run_step(
            "ceiling (one pyspark process)",
            [
                python,
                "-m",
                "bench.spark_jobs",
                "ceiling",
                str(landing),
                str(work / "ceiling"),
                *(["plain"] if args.plain else []),
            ],
            REPO,
            env,
        )
    ]
    steps["ours, full"] = ours("full")
    nodes = _node_seconds(project / "target" / "run_results.json")
    decode_out = work / "decode.json"
    run_step(
        "decode rates",
        [
            python,
            "-m",
            "bench.spark_jobs",
            "decode",
            str(project),
            "cdc_landing." + TOPIC.replace(".", "_"),
            str(n),
            str(decode_out),
        ],
        REPO,
        env,
    )
    checks_out = work / "checks.json"
    run_step(
        "per-record checks",
        [
            python,
            "-m",
            "bench.spark_jobs",
            "checks",
            str(project),
            "cdc_landing." + TOPIC.replace(".", "_"),
            TOPIC,
            str(checks_out),
        ],
        REPO,
        env,
    )
    for path in (work / "data" / "increment" / TOPIC).glob("*.jsonl"):
        shutil.copy(path, landing / TOPIC / path.name)
    steps["ours, 1 % batch"] = ours("1 % batch")
    raw_table = "cdc_landing." + TOPIC.replace(".", "_")
    plan_out = work / "plan.json"
    run_step(
        "plan of the 1 % batch's base read",
        [python, "-m", "bench.spark_jobs", "plan", str(project), raw_table, str(plan_out)],
        REPO,
        env,
    )
    steps["ours, nothing new"] = ours("nothing new")
    decode = json.loads(decode_out.read_text(encoding="utf-8"))
    plan_facts = json.loads(plan_out.read_text(encoding="utf-8"))
    checked = json.loads(checks_out.read_text(encoding="utf-8"))
    report(name, n, sizes, steps, decode, plan_facts, nodes, checked)


def _node_seconds(path: Path) -> list[tuple[str, float]]:
    """Each dbt node's seconds in the run that wrote ``path``, slowest first."""
    if not path.exists():
        return []
    results = json.loads(path.read_text(encoding="utf-8"))["results"]
    timed = [(r["unique_id"], float(r["execution_time"])) for r in results]
    return sorted(timed, key=lambda item: -item[1])


def report(
    label: str,
    n: int,
    sizes: dict[str, int],
    steps: dict[str, list[Step]],
    decode: dict[str, dict[str, float]],
    plan: dict[str, Any],
    nodes: list[tuple[str, float]],
    checked: dict[str, Any],
) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    ceiling = steps["ceiling"][0].seconds
    full = steps["ours, full"][0].seconds
    lines = [
        f"# Benchmark: {n:,} events",
        "",
        f"- machine: {machine()}",
        f"- landing: {sizes['landing'] / 1e6:,.0f} MB ({sizes['landing'] / n:,.0f} bytes/event,"
        + (
            " one plain-form file (bare values);"
            if label.endswith("plain")
            else " kcat form, 4 partitions;"
        )
        + f" {n // 10:,} keys);"
        f" 1 % batch: {sizes['increment'] / 1e6:,.1f} MB",
        f"- measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, whole processes",
        "",
        "| run | step | events | seconds | events/s | peak memory | × ceiling | × full |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = []
    for run, items in steps.items():
        events = n if run in ("ceiling", "ours, full") else (n // 100 if "1 %" in run else 0)
        for step in items:
            rows.append((run, step.name, events, step.seconds, step.peak_bytes))
        rows.append((run, "**total**", events, items[0].seconds, items[0].peak_bytes))
    for run, name, events, seconds, peak in rows:
        rate = f"{events / seconds:,.0f}" if events and seconds else "–"
        lines.append(
            f"| {run} | {name} | {events:,} | {seconds:.1f} | {rate} | {peak / 2**30:.2f} GiB |"
            + (f" {seconds / ceiling:.2f} | {seconds / full:.2f} |" if "total" in name else " | |")
        )
    lines += [
        "",
        "| staging decode (same landed values) | seconds | events/s | × ceiling |",
        "|---|---:|---:|---:|",
    ]
    ceiling_rate = decode["ceiling decode (from_json, known schema)"]["events_per_s"]
    for name, measured in decode.items():
        lines.append(
            f"| {name} | {measured['seconds']:.1f} | {measured['events_per_s']:,.0f} |"
            f" {measured['events_per_s'] / ceiling_rate:.2f} |"
        )
    lines += check_lines(checked)
    lines += [
        "",
        "The 1 % batch's base-model read (`cdc_new_batches_filter`), as Spark planned it:",
        "",
        *[f"    {scan}" for scan in plan["scan"]],
        "",
        f"Iceberg data files of the raw table: {plan['files']}; files whose `landing_batch`"
        f" range reaches past {plan['bound']} (the only ones read): {plan['to_read']}.",
    ]
    if nodes:
        lines += [
            "",
            "The first build's dbt nodes (dbt's `run_results.json`), slowest first:",
            "",
            "| node | seconds |",
            "|---|---:|",
            *[f"| `{node}` | {seconds:.1f} |" for node, seconds in nodes],
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    (RESULTS / f"bench-{label}.md").write_text(text, encoding="utf-8")
    if label != str(n):
        return  # the cost plot compares sizes of the kcat form only
    with (RESULTS / f"bench-{n}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["events", "run", "step", "step_events", "seconds", "peak_bytes"])
        for run, name, events, seconds, peak in rows:
            writer.writerow([n, run, name.strip("*"), events, f"{seconds:.2f}", peak])
        for name, measured in decode.items():
            writer.writerow([n, "decode", name, n, f"{measured['seconds']:.2f}", ""])
    plot()


def check_lines(checked: dict[str, Any]) -> list[str]:
    """The table of `bench.spark_jobs checks`: each check's seconds over the
    same values, less the scan's, against the base model's `from_json`."""
    seconds: dict[str, float] = checked["seconds"]
    scan = seconds[SCAN]
    parse = seconds[PARSE] - scan
    lines = [
        "",
        f"What each per-record check of the base model costs ({checked['events']:,} landed"
        " values, one warm process, `noop` writes; each alone, less the scan's"
        f" {scan:.1f} s):",
        "",
        "| expression | seconds | less the scan | × from_json |",
        "|---|---:|---:|---:|",
    ]
    checks_total = 0.0
    for name, spent in seconds.items():
        own = spent - scan
        if name not in (SCAN, PARSE, "the whole base model"):
            checks_total += max(own, 0.0)
        lines.append(f"| {name} | {spent:.1f} | {own:.1f} | {own / parse:.2f} |")
    together = f"| {checks_total:.1f} | {checks_total / parse:.2f} |"
    lines.append("| **the checks above together** | " + together)
    return lines


def plot() -> None:
    """Seconds against events for every benchmark size measured so far."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for path in RESULTS.glob("bench-*.csv"):
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                if row["step"] == "total":
                    series.setdefault(row["run"], []).append(
                        (int(row["events"]), float(row["seconds"]))
                    )
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for run, points in sorted(series.items()):
        points.sort()
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=run)
    axes.set_xlabel("events in the landing")
    axes.set_ylabel("seconds (whole processes)")
    axes.set_title(f"cdc-dbt-spark: cost against size ({machine().split(' (')[0]})")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(RESULTS / "cost.png", dpi=110)


if __name__ == "__main__":
    main()
