//! `cargo xtask bench sim`: the simulator's figures. Each workload runs in a child process
//! so that its peak memory is its own; the JSON is
//! `{"runs": [{"scenario", "nodes", "tasks", "detectors", "wall_secs", "peak_rss_bytes"}]}`.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::json;
use std::time::Instant;

use stragglers::detect::{Detector, Findings};
use stragglers::model::{Observation, Snapshot};
use stragglers::sim::{
    DetectorSpec, Evaluation, RunOptions, ScenarioSpec, Summary, simulate_scenario,
};

use crate::bench;

/// The workloads `run` measures, each a `bench-child sim <workload>`: the paper's matrix,
/// the `datacenter` preset cut to 1/100, 1/10, 1/4 and 1/2 of its nodes and jobs (with
/// Default: how one run's time grows with the cluster), and the whole day with Default,
/// LATE and Hierarchical (one thread each, two at a time).
const WORKLOADS: &[&str] = &[
    "paper-matrix",
    "datacenter-1/100",
    "datacenter-1/10",
    "datacenter-1/4",
    "datacenter-1/2",
    "datacenter",
];

/// Runs every simulator workload in a child and prints (and optionally writes) the figures.
pub fn run(json_path: Option<&Path>) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for &workload in WORKLOADS {
        let measured = bench::in_child(&["sim", workload])?;
        let facts: serde_json::Value = serde_json::from_str(measured.stdout.trim())
            .with_context(|| format!("bench-child sim {workload} printed {:?}", measured.stdout))?;
        println!(
            "{workload:<14} {:>8} nodes {:>10} tasks {:>8.2} s {:>8.1} MiB  ({})",
            facts["nodes"],
            facts["tasks"],
            measured.wall_secs,
            measured.peak_rss_bytes as f64 / (1024.0 * 1024.0),
            facts["detectors"],
        );
        for timing in facts["timings"].as_array().into_iter().flatten() {
            let scans = timing["scans"].as_u64().unwrap_or(0);
            println!(
                "    {:<13} run {:>6.2} s, of which detector scans {:>6.2} s ({} scans, {:.0} rows and {:.1} flagged each)",
                timing["detector"].as_str().unwrap_or("?"),
                timing["run_secs"].as_f64().unwrap_or(f64::NAN),
                timing["scan_secs"].as_f64().unwrap_or(f64::NAN),
                scans,
                timing["rows"].as_u64().unwrap_or(0) as f64 / scans.max(1) as f64,
                timing["flagged"].as_u64().unwrap_or(0) as f64 / scans.max(1) as f64,
            );
        }
        for summary in facts["summaries"].as_array().into_iter().flatten() {
            println!(
                "    {:<13} makespan {:>9.0} s, mean job {:>6.1} s, {} stragglers, {} detections, {} copies ({} won)",
                summary["detector"].as_str().unwrap_or("?"),
                summary["makespan_secs"].as_f64().unwrap_or(f64::NAN),
                summary["mean_job_secs"].as_f64().unwrap_or(f64::NAN),
                summary["stragglers"],
                summary["detections"],
                summary["copies"],
                summary["successful_copies"],
            );
        }
        runs.push(json!({
            "scenario": workload,
            "nodes": facts["nodes"],
            "tasks": facts["tasks"],
            "detectors": facts["detectors"],
            "wall_secs": measured.wall_secs,
            "peak_rss_bytes": measured.peak_rss_bytes,
        }));
    }
    if let Some(path) = json_path {
        bench::write_json(path, &json!({ "runs": runs }))?;
    }
    Ok(())
}

/// The work of one workload, in the child: prints one JSON line of facts about what ran.
pub fn child(args: &[&str]) -> anyhow::Result<()> {
    match args {
        ["paper-matrix"] => {
            let evaluation = Evaluation::paper();
            let results = evaluation.run().context("running the paper's evaluation")?;
            let config = evaluation.config();
            let workload = &config.sim.workload;
            let tasks_per_run = u64::from(workload.maps + workload.reduces);
            let cell_runs: u64 = results.cells.iter().map(|c| u64::from(c.repetitions)).sum();
            let runs = cell_runs + u64::from(config.baseline_runs);
            let mut detectors: Vec<&str> =
                results.cells.iter().map(|c| c.detector.as_str()).collect();
            detectors.sort_unstable();
            detectors.dedup();
            println!(
                "{}",
                json!({
                    "nodes": config.sim.platform.workers,
                    "tasks": tasks_per_run * runs,
                    "detectors": detectors,
                })
            );
            Ok(())
        }
        ["datacenter"] => datacenter(1, &["default", "late", "hierarchical"]),
        [cut, detectors @ ..] => match cut.strip_prefix("datacenter-1/").map(str::parse::<u32>) {
            // A cut runs Default unless detectors are named after it (for profiling).
            Some(Ok(divisor)) if divisor >= 1 => match detectors {
                [] => datacenter(divisor, &["default"]),
                named => datacenter(divisor, named),
            },
            _ => bail!("bench-child sim: unknown workload {args:?}"),
        },
        [] => bail!("bench-child sim: which workload?"),
    }
}

/// A detector that times the scans of the one it wraps: how much of a run they take.
struct Timed {
    inner: Box<dyn Detector>,
    scan_secs: f64,
    scans: u64,
    rows: u64,
    flagged: u64,
}

impl Detector for Timed {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let started = Instant::now();
        self.inner.scan(snapshot, findings);
        self.scan_secs += started.elapsed().as_secs_f64();
        self.scans += 1;
        self.rows += snapshot.len() as u64;
        self.flagged += findings.rows().len() as u64;
    }
    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }
    fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The `datacenter` preset with its nodes and jobs divided by `divisor`, run once with each
/// detector, the runs spread over two threads (Hierarchical's first); prints the facts, each run's summary and
/// how long it took, with the part its detector's scans took.
fn datacenter(divisor: u32, detectors: &[&str]) -> anyhow::Result<()> {
    let mut spec = ScenarioSpec::datacenter();
    spec.cluster.nodes /= divisor;
    spec.jobs.count /= divisor;
    spec.check().context("the cut datacenter scenario")?;
    let specs = DetectorSpec::all();
    let mut made = Vec::new();
    for &name in detectors {
        let detector = specs
            .iter()
            .find(|d| d.name() == name)
            .with_context(|| format!("no detector {name}"))?;
        made.push(detector.make());
    }
    let spec = &spec;
    // The longest run first, so that the two shorter ones share the other thread: the day
    // with Hierarchical takes longer than with Default or LATE (see "Scale figures" in
    // docs/simulation.md). The summaries keep the order of `detectors`.
    let mut schedule: Vec<usize> = (0..detectors.len()).collect();
    schedule.sort_by_key(|&i| detectors[i] != "hierarchical");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Box<dyn Detector>>>> = made
        .into_iter()
        .map(|d| std::sync::Mutex::new(Some(d)))
        .collect();
    type Ran = anyhow::Result<(Summary, serde_json::Value)>;
    let results: Vec<std::sync::Mutex<Option<Ran>>> =
        slots.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = schedule.get(k) else { break };
                    let Some(slot) = slots.get(i) else { break };
                    let taken = slot.lock().ok().and_then(|mut d| d.take());
                    let Some(inner) = taken else { continue };
                    let mut detector = Timed {
                        inner,
                        scan_secs: 0.0,
                        scans: 0,
                        rows: 0,
                        flagged: 0,
                    };
                    let started = Instant::now();
                    let outcome = simulate_scenario(
                        spec,
                        2019,
                        Some(&mut detector as &mut dyn Detector),
                        RunOptions::default(),
                    );
                    let run_secs = started.elapsed().as_secs_f64();
                    let result = outcome
                        .map(|o| {
                            eprintln!("{} with {}: {run_secs:.2} s", spec.name, o.summary.detector);
                            let timing = json!({
                                "detector": o.summary.detector,
                                "run_secs": run_secs,
                                "scan_secs": detector.scan_secs,
                                "scans": detector.scans,
                                "rows": detector.rows,
                                "flagged": detector.flagged,
                            });
                            (o.summary, timing)
                        })
                        .map_err(anyhow::Error::from);
                    if let Ok(mut r) = results[i].lock() {
                        *r = Some(result);
                    }
                }
            });
        }
    });
    let (mut summaries, mut timings) = (Vec::new(), Vec::new());
    for r in results {
        let r = r
            .into_inner()
            .ok()
            .flatten()
            .context("a run did not report")?;
        let (summary, timing) = r.context("simulating the datacenter")?;
        summaries.push(summary);
        timings.push(timing);
    }
    println!(
        "{}",
        json!({
            "nodes": spec.cluster.nodes,
            "tasks": spec.task_count() * detectors.len() as u64,
            "detectors": detectors,
            "summaries": summaries,
            "timings": timings,
        })
    );
    Ok(())
}
