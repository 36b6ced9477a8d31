//! Benchmark of the three scans of the seed paper's Section 5.5 (Default, LATE,
//! Hierarchical over Default) on one stage of 10^3 to 10^6 running maps, beside a "floor"
//! pass that only reads two of the columns the scans read (the sum of progress and start
//! times) and so bounds from below what any scan of that size can cost.
//!
//! Cluster size: 100 nodes up to 10^5 attempts, 10 000 nodes at 10^6 (100 attempts per
//! node, as on a cluster of 10 000 nodes with 100 containers each; 10^6 attempts on 100
//! nodes would be 10 000 containers per node).
//!
//! Data: the kit's `conformance::straggling_stage` (the snapshots of `cargo xtask bench
//! scans`): maps started over the last 600 s at 1/600 of their work per second +-10%; the
//! rows of one node in 20 and 1% of the others five times slower, started over the last
//! 2400 s; inputs 64 MB +-10%.
//!
//! The detectors run with their default parameters, hence `Parallelism::Auto`: sequential
//! below 262 144 rows, on rayon's pool from there (10^6). The floor is always one
//! thread, with eight accumulators so that it runs at memory speed rather than at the
//! latency of one chain of additions. Criterion reports elements (attempts) per second.
//! rayon's threads are left where the OS puts them: on a 2-core machine both often run
//! on one core, and the scans of 10^6 rows then take about twice as long (`cargo xtask
//! bench scans` puts each on a core of its own; `docs/scan-measurements.md`).
//!
//! Run with `cargo bench -p straggler-detect --bench scans`; about a minute.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use straggler_detect::{
    DefaultDetector, Detector, Findings, Hierarchical, HierarchicalParams, LateDetector,
};
use straggler_model::Snapshot;
use support::{floor, snapshot};

mod support;

/// Sizes benchmarked, with the cluster size of each.
const SIZES: [(usize, u32); 4] = [
    (1_000, 100),
    (10_000, 100),
    (100_000, 100),
    (1_000_000, 10_000),
];

/// How many rows `detector` flags in `snapshot`, for the record.
fn flagged(mut detector: impl Detector, snapshot: &Snapshot) -> usize {
    let mut findings = Findings::default();
    detector.scan(snapshot, &mut findings);
    findings.rows().len()
}

fn bench_detector(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mut detector: impl Detector,
    snapshot: &Snapshot,
) {
    let name = detector.name().to_owned();
    let mut findings = Findings::default();
    group.bench_with_input(
        BenchmarkId::new(name, snapshot.len()),
        snapshot,
        |b, snapshot| {
            b.iter(|| {
                findings.clear();
                detector.scan(black_box(snapshot), &mut findings);
                black_box(findings.rows().len())
            });
        },
    );
}

fn scans(c: &mut Criterion) {
    let mut group = c.benchmark_group("scans");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (attempts, nodes) in SIZES {
        let snapshot = snapshot(attempts, nodes);
        let hierarchical = || {
            Hierarchical::new(
                DefaultDetector::default(),
                HierarchicalParams::default()
                    .check()
                    .expect("default parameters are valid"),
            )
        };
        eprintln!(
            "{attempts} attempts on {nodes} nodes: default flags {}, late {}, hierarchical {}",
            flagged(DefaultDetector::default(), &snapshot),
            flagged(LateDetector::default(), &snapshot),
            flagged(hierarchical(), &snapshot),
        );
        group.throughput(Throughput::Elements(attempts as u64));
        group.bench_with_input(
            BenchmarkId::new("floor", attempts),
            &snapshot,
            |b, snapshot| {
                b.iter(|| floor(black_box(snapshot)));
            },
        );
        bench_detector(&mut group, DefaultDetector::default(), &snapshot);
        bench_detector(&mut group, LateDetector::default(), &snapshot);
        bench_detector(&mut group, hierarchical(), &snapshot);
    }
    group.finish();
}

criterion_group!(benches, scans);
criterion_main!(benches);
