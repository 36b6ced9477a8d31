//! Benchmark of the node-level detectors of seeds 001 and 002 (eSplash, DSB, DSB with
//! number 3) on one stage of 10^3 to 10^6 running maps, the same snapshots as
//! `benches/scans.rs` (100 nodes up to 10^5 attempts, 10 000 nodes at 10^6), beside the
//! same floor pass (progress and start columns summed, nothing else).
//!
//! Both detectors learn from finished attempts, so each is first fed a history of four
//! successes per node, all ended in the last minute (inside DSB's window): node speeds
//! vary by +-10%, nodes `n % 3 == 0` run 1.5 times faster (a second eSplash level), and for
//! DSB nodes `n % 20 == 0` ran three times slower (its blacklist). The snapshot is the
//! kit's `conformance::straggling_stage`: the rows of nodes `n % 20 == 0` and 1% of the
//! others run five times slower.
//!
//! Two cases per detector:
//! - `<name>`: the steady scan, the one that runs every second: levels (eSplash) or the
//!   blacklist (DSB) are already computed, and the scan reads the rows only.
//! - `<name>-refresh`: the first scan after new history, which also re-clusters the nodes
//!   (eSplash's Algorithms 1-2) or re-ranks them (DSB's Algorithms 1-3); it happens once per
//!   new success (eSplash) or once per window (DSB). Timed on a fresh clone of the fed
//!   detector each iteration (the clone is not timed).
//!
//! On a shared machine a long iteration waits for a core more often than a short one, so
//! wall time per task grows with the snapshot for reasons that are not the scan's. Beside
//! criterion's wall times, each case prints the CPU time its thread spent per task over
//! 10^7 task scans, at least ten scans (from `/proc/thread-self/schedstat`, Linux only).
//!
//! Run with `cargo bench -p straggler-detect --bench node_level_scans`; about a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use straggler_detect::conformance::{STAGE_NOW_SECS, STAGE_USUAL_SECS, SplitMix64};
use straggler_detect::{Detector, Dsb, DsbParams, ESplash, Findings};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, NodeId, Observation, Snapshot, StageId,
    TaskId,
};
use support::{floor, snapshot};

mod support;

/// Sizes benchmarked, with the cluster size of each.
const SIZES: [(usize, u32); 4] = [
    (1_000, 100),
    (10_000, 100),
    (100_000, 100),
    (1_000_000, 10_000),
];

/// Four successes per node, ended in the last minute; see the module docs.
fn history(nodes: u32, slow_weak_nodes: bool) -> Vec<Observation> {
    let mut rng = SplitMix64(0x4157_0a7e ^ u64::from(nodes));
    let mut observations = Vec::new();
    for round in 0..4 {
        for node in 0..nodes {
            let speed = if node % 3 == 0 { 1.5 } else { 1.0 };
            let weak = if slow_weak_nodes && node % 20 == 0 {
                3.0
            } else {
                1.0
            };
            let duration = STAGE_USUAL_SECS * (0.9 + 0.2 * rng.unit()) * weak / speed;
            let end_secs = STAGE_NOW_SECS - 60.0 + 15.0 * f64::from(round) + f64::from(node) / 1e6;
            observations.push(Observation::AttemptEnded(AttemptEnd {
                attempt: AttemptId(0),
                task: TaskId(0),
                stage: StageId(0),
                node: NodeId(node),
                role: AttemptRole::Original,
                start_secs: end_secs - duration,
                end_secs,
                status: AttemptStatus::Succeeded,
                input_bytes: 64_000_000,
            }));
        }
    }
    observations
}

/// Nanoseconds this thread has run on a CPU, when Linux tells.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Prints the CPU time per task of `runs` runs of `scan`, as many as it takes to make
/// 10^7 task scans (at least ten): the counter moves at scheduler ticks, so short totals
/// would read as zero.
fn print_cpu_per_task(label: &str, tasks: usize, runs: usize, mut scan: impl FnMut()) {
    let Some(before) = thread_cpu_ns() else {
        return;
    };
    for _ in 0..runs {
        scan();
    }
    if let Some(after) = thread_cpu_ns() {
        let per_task = after.saturating_sub(before) as f64 / runs as f64 / tasks as f64;
        eprintln!("{label} at {tasks} attempts: {per_task:.2} ns of CPU per task ({runs} scans)");
    }
}

/// Scans to time for `tasks` tasks: 10^7 task scans, at least ten.
fn cpu_runs(tasks: usize) -> usize {
    (10_000_000 / tasks.max(1)).max(10)
}

fn fed<D: Detector>(mut detector: D, observations: &[Observation]) -> D {
    for o in observations {
        detector.observe(o);
    }
    detector
}

fn bench_pair<D: Detector + Clone>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    detector: D,
    snapshot: &Snapshot,
) {
    let name = detector.name().to_owned();
    let mut findings = Findings::default();
    group.bench_with_input(
        BenchmarkId::new(format!("{name}-refresh"), snapshot.len()),
        snapshot,
        |b, snapshot| {
            b.iter_batched(
                || detector.clone(),
                |mut fresh| {
                    findings.clear();
                    fresh.scan(black_box(snapshot), &mut findings);
                    black_box(findings.rows().len())
                },
                BatchSize::LargeInput,
            );
        },
    );
    let detector_copy = detector.clone();
    let mut steady = detector;
    findings.clear();
    steady.scan(snapshot, &mut findings);
    eprintln!(
        "{name} at {} attempts: flags {} rows, {} slow nodes",
        snapshot.len(),
        findings.rows().len(),
        findings.slow_nodes().len()
    );
    let runs = cpu_runs(snapshot.len());
    print_cpu_per_task(&name, snapshot.len(), runs, || {
        findings.clear();
        steady.scan(black_box(snapshot), &mut findings);
    });
    let fresh: Vec<D> = (0..runs).map(|_| detector_copy.clone()).collect();
    let mut fresh = fresh.into_iter();
    print_cpu_per_task(&format!("{name}-refresh"), snapshot.len(), runs, || {
        if let Some(mut d) = fresh.next() {
            findings.clear();
            d.scan(black_box(snapshot), &mut findings);
        }
    });
    group.bench_with_input(
        BenchmarkId::new(name, snapshot.len()),
        snapshot,
        |b, snapshot| {
            b.iter(|| {
                findings.clear();
                steady.scan(black_box(snapshot), &mut findings);
                black_box(findings.rows().len())
            });
        },
    );
}

fn node_level_scans(c: &mut Criterion) {
    let mut group = c.benchmark_group("node_level_scans");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (attempts, nodes) in SIZES {
        let snapshot = snapshot(attempts, nodes);
        group.throughput(Throughput::Elements(attempts as u64));
        print_cpu_per_task("floor", attempts, cpu_runs(attempts), || {
            black_box(floor(black_box(&snapshot)));
        });
        group.bench_with_input(
            BenchmarkId::new("floor", attempts),
            &snapshot,
            |b, snapshot| {
                b.iter(|| floor(black_box(snapshot)));
            },
        );
        bench_pair(
            &mut group,
            fed(ESplash::default(), &history(nodes, false)),
            &snapshot,
        );
        let dsb_history = history(nodes, true);
        bench_pair(&mut group, fed(Dsb::default(), &dsb_history), &snapshot);
        let top3 = Dsb::new(DsbParams::top(3).check().expect("valid preset"));
        bench_pair(&mut group, fed(top3, &dsb_history), &snapshot);
    }
    group.finish();
}

criterion_group!(benches, node_level_scans);
criterion_main!(benches);
