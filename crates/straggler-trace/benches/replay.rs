//! Benchmark of labelling, judging the recorded speculation and replaying a detector over a
//! generated log: one job of 1 000 to 100 000 maps on 100 hosts with 10 containers each
//! (1 000 running at a time, in waves), so that each scan holds about 1 000 attempts.
//!
//! Data, from a fixed SplitMix64 stream: map durations 60 s x (0.9 .. 1.1), one map in 50
//! three times slower; each slow map gets a copy launched 90 s after it, which wins. A
//! map starts when the previous map of its container ends.
//!
//! Criterion reports elements (attempts) per second. The replay costs one pass over the
//! running attempts per scan; at a 3 s scan interval a 60 s map is in about 20 scans, so
//! replay throughput is about 1/20 of the detector's scan throughput on 1 000 rows.
//!
//! Run with `cargo bench -p straggler-trace --bench replay`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use straggler_detect::DefaultDetector;
use straggler_detect::conformance::SplitMix64;
use straggler_trace::{
    AttemptOutcome, ReplayConfig, StageKind, TraceAttempt, TraceJob, TraceTask, TruthConfig, judge,
    label, recorded, replay,
};

const CONTAINERS: usize = 1_000;
const HOSTS: usize = 100;

fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn attempt(
    id: String,
    host: usize,
    start: f64,
    end: f64,
    outcome: AttemptOutcome,
    copy: bool,
) -> TraceAttempt {
    TraceAttempt {
        id,
        host: Some(format!("host{host}")),
        start_secs: start,
        end_secs: Some(end),
        outcome,
        speculative: Some(copy),
        progress: Vec::new(),
        revoked: false,
        line: 0,
    }
}

fn generated_job(maps: usize) -> TraceJob {
    let mut rng = SplitMix64(2019);
    let mut free_at = vec![0.0f64; CONTAINERS];
    let mut tasks = Vec::with_capacity(maps);
    for m in 0..maps {
        let container = m % CONTAINERS;
        let host = container % HOSTS;
        let start = free_at[container];
        let mut duration = 60.0 * (0.9 + 0.2 * uniform(&mut rng));
        let slow = rng.next_u64().is_multiple_of(50);
        if slow {
            duration *= 3.0;
        }
        let mut attempts = Vec::with_capacity(2);
        if slow {
            let copy_start = start + 90.0;
            let copy_end = copy_start + 60.0;
            attempts.push(attempt(
                format!("a{m}_0"),
                host,
                start,
                copy_end,
                AttemptOutcome::Killed,
                false,
            ));
            attempts.push(attempt(
                format!("a{m}_1"),
                (host + 1) % HOSTS,
                copy_start,
                copy_end,
                AttemptOutcome::Succeeded,
                true,
            ));
            free_at[container] = copy_end;
        } else {
            attempts.push(attempt(
                format!("a{m}_0"),
                host,
                start,
                start + duration,
                AttemptOutcome::Succeeded,
                false,
            ));
            free_at[container] = start + duration;
        }
        tasks.push(TraceTask {
            id: format!("t{m}"),
            stage: "map".to_owned(),
            kind: StageKind::Map,
            input_bytes: Some(64 << 20),
            input_records: None,
            attempts,
        });
    }
    TraceJob {
        id: "generated".to_owned(),
        name: None,
        submit_secs: Some(0.0),
        tasks,
        speculation: None,
        speculation_line: None,
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("trace");
    group.measurement_time(Duration::from_secs(5));
    group.sample_size(10);
    for maps in [1_000usize, 10_000, 100_000] {
        let jobs = vec![generated_job(maps)];
        let attempts: usize = jobs[0].tasks.iter().map(|t| t.attempts.len()).sum();
        group.throughput(Throughput::Elements(attempts as u64));
        group.bench_with_input(
            BenchmarkId::new("label+recorded", maps),
            &jobs,
            |b, jobs| {
                b.iter(|| {
                    let labels = label(jobs, TruthConfig::default()).expect("valid config");
                    let recorded = recorded(jobs, &labels);
                    black_box(judge(&labels, &recorded.detections).expect("valid labels"))
                });
            },
        );
        let labels = label(&jobs, TruthConfig::default()).expect("valid config");
        group.bench_with_input(
            BenchmarkId::new("replay-default", maps),
            &jobs,
            |b, jobs| {
                b.iter(|| {
                    let mut detector = DefaultDetector::default();
                    black_box(
                        replay(jobs, &labels, &mut detector, ReplayConfig::default())
                            .expect("valid config"),
                    )
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
