"""Vectorised numpy versions of the Default, LATE and Hierarchical scans, for comparison
with `cargo xtask bench scans` (issue 4: at 10^6 tasks the Rust scans must be at least 2x
(Default) and 5x (LATE, Hierarchical) faster than these).

Same data as xtask/src/bench_scans.rs in distribution (not bit for bit): one stage of maps
at now = 3000 s, progress = elapsed / 600 x a +-10% jitter (capped at 0.999), starts
uniform over the last 600 s; on one node in 20 and for 1% of the other rows, stragglers
five times slower, started over the last 2400 s; inputs 64 MB +-10%. The scans are written as a numpy user would write them for any number
of stages and nodes: per-group sums with np.bincount, then a boolean mask and
np.flatnonzero for the flagged rows (increasing, as Findings). The `-1stage` scans are the
same rules written as leanly as numpy allows for these snapshots: one stage only (means and
deviations of whole columns, no grouping by stage; Hierarchical still groups by node), and
no guard for rows started at `now` (these snapshots have none). They are the fastest numpy
versions found, close to the figures issue 4 gives for numpy (about 0.4, 5 and 8 ns per
task at 10^6); the Rust scans assume neither. Each figure is the median
of 7 runs of as many scans as fill 20 ms, in ns per task; the floor sums the columns the
scan reads.

Run: python3 crates/straggler-detect/benches/numpy_scans.py [--json PATH]
(needs numpy: pip install numpy).

`--serve` is what `cargo xtask bench scans --numpy` runs: it reads commands on stdin and
answers each on one line of stdout. `load TASKS NODES DIR` reads the columns of the Rust
bench's own snapshot, bit for bit, that xtask wrote into DIR (the rest of the line, spaces
and all): `stage.u32`, `node.u32`, `progress.f64`, `start.f64` and `input.f64`,
little-endian; it answers `ok`. `time SCAN CALLS` runs the scan named (one of SCANS) CALLS
times and answers the seconds they took.
"""

import json
import statistics
import sys
import time

import numpy as np

NOW = 3000.0
USUAL = 600.0
RUNS = 7
RUN_SECS = 0.02
SIZES = [(1_000, 100), (10_000, 100), (100_000, 1_000), (1_000_000, 10_000)]


def snapshot(tasks, nodes):
    rng = np.random.default_rng(4)
    node = rng.integers(0, nodes, tasks, dtype=np.uint32)
    slow = (node % 20 == 0) | (rng.integers(0, 100, tasks) == 0)
    start = NOW - rng.random(tasks) * np.where(slow, 4 * USUAL, USUAL)
    rate = (0.9 + 0.2 * rng.random(tasks)) / USUAL / np.where(slow, 5.0, 1.0)
    progress = np.minimum((NOW - start) * rate, 0.999)
    return {
        "stage": np.zeros(tasks, dtype=np.uint32),
        "node": node,
        "start": start,
        "progress": progress,
        "input": 64e6 * (0.9 + 0.2 * rng.random(tasks)),
        "stages": 1,
        "nodes": nodes,
    }


def default_scan(s, gap=0.2):
    stage, progress = s["stage"], s["progress"]
    counts = np.bincount(stage, minlength=s["stages"])
    sums = np.bincount(stage, weights=progress, minlength=s["stages"])
    with np.errstate(invalid="ignore", divide="ignore"):
        threshold = np.where(counts > 0, sums / counts, -np.inf) - gap
    return np.flatnonzero(progress < threshold[stage])


def default_one_stage_scan(s, gap=0.2):
    """Default for a snapshot of one stage only, as numpy allows it: no grouping at all."""
    progress = s["progress"]
    return np.flatnonzero(progress < progress.mean() - gap)


def late_one_stage_scan(s, alpha=1.0):
    """LATE for one stage, every row started before now: the whole column's statistics."""
    rate = s["progress"] / (NOW - s["start"])
    return np.flatnonzero(rate < rate.mean() - alpha * rate.std())


def late_scan(s, alpha=1.0):
    stage, progress, start = s["stage"], s["progress"], s["start"]
    elapsed = NOW - start
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(elapsed > 0, progress / elapsed, np.nan)
    defined = ~np.isnan(rate)
    counts = np.bincount(stage, weights=defined, minlength=s["stages"])
    sums = np.bincount(stage, weights=np.where(defined, rate, 0.0), minlength=s["stages"])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / counts
        dev = np.where(defined, rate - mean[stage], 0.0)
        var = np.bincount(stage, weights=dev * dev, minlength=s["stages"]) / counts
        threshold = np.where(counts > 0, mean - alpha * np.sqrt(var), -np.inf)
    return np.flatnonzero(rate < threshold[stage])


def hierarchical_scan(s, node_threshold=0.9):
    flagged = default_scan(s)
    if flagged.size == 0:
        return flagged
    node, progress, start, size = s["node"], s["progress"], s["start"], s["input"]
    elapsed = NOW - start
    defined = elapsed > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.where(defined, progress * size / elapsed, 0.0)
        counts = np.bincount(node, weights=defined, minlength=s["nodes"])
        perf = np.bincount(node, weights=speed, minlength=s["nodes"]) / counts
    has = counts > 0
    bar = node_threshold * perf[has].mean()
    slow = has & (perf < bar)
    return flagged[slow[node[flagged]]]


def hierarchical_one_stage_scan(s, node_threshold=0.9):
    """Hierarchical over one-stage Default, every row started before now."""
    flagged = default_one_stage_scan(s)
    if flagged.size == 0:
        return flagged
    node = s["node"]
    speed = s["progress"] * s["input"] / (NOW - s["start"])
    counts = np.bincount(node, minlength=s["nodes"])
    with np.errstate(invalid="ignore", divide="ignore"):
        perf = np.bincount(node, weights=speed, minlength=s["nodes"]) / counts
    has = counts > 0
    slow = has & (perf < node_threshold * perf[has].mean())
    return flagged[slow[node[flagged]]]


def floor(s, columns):
    return sum(float(s[c].sum()) for c in columns)


SCANS = [
    ("default", default_scan, ["stage", "progress"]),
    ("default-1stage", default_one_stage_scan, ["progress"]),
    ("late", late_scan, ["stage", "progress", "start"]),
    ("late-1stage", late_one_stage_scan, ["progress", "start"]),
    ("hierarchical", hierarchical_scan, ["stage", "progress", "start", "node", "input"]),
    (
        "hierarchical-1stage",
        hierarchical_one_stage_scan,
        ["progress", "start", "node", "input"],
    ),
]


def ns_per_task(work, tasks):
    started = time.perf_counter()
    work()
    once = time.perf_counter() - started
    calls = max(1, int(RUN_SECS / max(once, 1e-9)))
    runs = []
    for _ in range(RUNS):
        started = time.perf_counter()
        for _ in range(calls):
            work()
        runs.append((time.perf_counter() - started) * 1e9 / (calls * tasks))
    return statistics.median(runs)


def load(directory, tasks, nodes):
    """The snapshot whose columns xtask wrote into `directory` (see the module docs)."""

    def column(name, dtype):
        values = np.fromfile(f"{directory}/{name}", dtype=dtype)
        if values.size != tasks:
            raise ValueError(f"{directory}/{name}: {values.size} values, expected {tasks}")
        return values

    stage = column("stage.u32", "<u4")
    return {
        "stage": stage,
        "node": column("node.u32", "<u4"),
        "start": column("start.f64", "<f8"),
        "progress": column("progress.f64", "<f8"),
        "input": column("input.f64", "<f8"),
        "stages": int(stage.max()) + 1 if tasks else 1,
        "nodes": nodes,
    }


def serve():
    """Answers xtask's commands (see the module docs) until stdin closes."""
    scans = {name: scan for name, scan, _ in SCANS}
    s = None
    for line in sys.stdin:
        command = line.rstrip("\n").split(" ", 3)
        if command[:1] == ["load"] and len(command) == 4:
            s = load(command[3], int(command[1]), int(command[2]))
            print("ok", flush=True)
        elif command[:1] == ["time"] and len(command) == 3 and s is not None:
            scan, calls = scans[command[1]], int(command[2])
            started = time.perf_counter()
            for _ in range(calls):
                scan(s)
            print(time.perf_counter() - started, flush=True)
        else:
            raise ValueError(f"unknown command {line!r}")


def main(argv):
    if argv[1:] == ["--serve"]:
        serve()
        return
    json_path = argv[2] if len(argv) == 3 and argv[1] == "--json" else None
    print(f"numpy {np.__version__}; ns per running task, median of {RUNS} runs")
    print(f"{'scan':<19} {'tasks':>9} {'nodes':>7} {'scan':>9} {'floor':>9}")
    rows = []
    for tasks, nodes in SIZES:
        s = snapshot(tasks, nodes)
        for name, scan, columns in SCANS:
            scan_ns = ns_per_task(lambda: scan(s), tasks)
            floor_ns = ns_per_task(lambda: floor(s, columns), tasks)
            print(f"{name:<19} {tasks:>9} {nodes:>7} {scan_ns:>9.2f} {floor_ns:>9.2f}")
            rows.append(
                {
                    "detector": name,
                    "tasks": tasks,
                    "nodes": nodes,
                    "ns_per_task": scan_ns,
                    "floor_ns_per_task": floor_ns,
                }
            )
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"numpy": np.__version__, "scans": rows}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
