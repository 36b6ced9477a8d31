//! Benchmarks of the simulator: one run of the paper's job under each detector, and the
//! whole Table 5 + Table 6 evaluation (`stragglers eval`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use straggler_sim::{DetectorSpec, Evaluation, Policy, Scenario, SimConfig, simulate};

fn one_run(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate_c2_x100");
    let config = SimConfig::paper(Policy::X100);
    let scenario = Scenario::c2();
    group.bench_function("baseline", |b| {
        b.iter(|| simulate(&config, &scenario, black_box(1), None))
    });
    for spec in DetectorSpec::paper() {
        group.bench_function(spec.name(), |b| {
            b.iter(|| {
                let mut detector = spec.make();
                simulate(&config, &scenario, black_box(1), Some(detector.as_mut()))
            })
        });
    }
    group.finish();
}

fn whole_evaluation(c: &mut Criterion) {
    let mut group = c.benchmark_group("evaluation");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("paper_tables_5_6", |b| b.iter(|| Evaluation::paper().run()));
    group.finish();
}

criterion_group!(benches, one_run, whole_evaluation);
criterion_main!(benches);
