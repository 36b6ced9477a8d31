//! `cargo xtask bench sim`: the simulator's figures. Each workload runs in a child process
//! so that its peak memory is its own; the JSON is
//! `{"runs": [{"scenario", "nodes", "tasks", "detectors", "wall_secs", "peak_rss_bytes"}]}`.

use std::path::Path;

use anyhow::{Context, bail};
use serde_json::json;
use stragglers::sim::Evaluation;

use crate::bench;

/// The workloads `run` measures, each a `bench-child sim <workload>`.
const WORKLOADS: &[&str] = &["paper-matrix"];

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
        _ => bail!("bench-child sim: unknown workload {args:?}"),
    }
}
