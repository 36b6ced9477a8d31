//! Why `stragglers simulate --preset datacenter` finds every detection a straggler while a
//! cut of the same day on fewer nodes does not (docs/simulation.md, the datacenter's
//! table): the labels of `simulate` are the original's time against 1.2 times the median
//! of its stage in the same run, and on 12,000 nodes every stage starts at one instant.
//!
//! For the preset cut to 1/100 and 1/10 of its nodes and jobs (the same load per node),
//! Default runs once (seed 2019, recorded), and the example prints its detections split
//! by label and by what decided the label: a false positive whose original started after
//! the first original of its stage (a young attempt), a straggler measured to its end, a
//! straggler whose original was killed (its copy won) after running longer than the bar,
//! which any time given to it makes a straggler, and one killed before, labelled by the
//! estimate `(kill - start) / progress` alone. `-- 1` adds the whole day (about 5 GB of
//! memory for the recorded run). Run it with
//! `cargo run --release -p stragglers --example scale_labels`.

use std::collections::HashMap;

use stragglers::detect::DefaultDetector;
use stragglers::model::{AttemptStatus, StageId};
use stragglers::sim::{RunOptions, ScenarioSpec, simulate_scenario};

/// The straggler factor of `simulate`'s summary.
const FACTOR: f64 = 1.2;

#[derive(Debug, Default)]
struct Split {
    detected: u64,
    young_false_positives: u64,
    other_false_positives: u64,
    measured: u64,
    killed_past_the_bar: u64,
    killed_before_the_bar: u64,
    started_later: u64,
    tasks: u64,
}

fn median(values: &mut [f32]) -> f64 {
    values.sort_by(f32::total_cmp);
    let n = values.len();
    match n % 2 {
        1 => f64::from(values[n / 2]),
        _ => (f64::from(values[n / 2 - 1]) + f64::from(values[n / 2])) / 2.0,
    }
}

fn split(spec: &ScenarioSpec) -> Result<Split, Box<dyn std::error::Error>> {
    let options = RunOptions {
        record: true,
        progress: None,
    };
    let mut detector = DefaultDetector::default();
    let outcome = simulate_scenario(spec, 2019, Some(&mut detector), options)?;
    let run = outcome.run.ok_or("not recorded")?;
    let times = run.original_times()?;
    let mut by_stage: HashMap<StageId, Vec<f32>> = HashMap::new();
    let mut first_start: HashMap<StageId, f64> = HashMap::new();
    for (task, time) in run.tasks.iter().zip(&times) {
        let time = time.ok_or("an original that never ended")?;
        // The engine keeps a task's time as an f32.
        by_stage
            .entry(task.stage)
            .or_default()
            .push(time.exec_secs as f32);
        let first = first_start.entry(task.stage).or_insert(f64::INFINITY);
        *first = first.min(time.start_secs);
    }
    let bars: HashMap<StageId, f64> = by_stage
        .into_iter()
        .map(|(stage, mut times)| (stage, FACTOR * median(&mut times)))
        .collect();
    let mut s = Split::default();
    let (mut stragglers, mut true_detections) = (0, 0);
    for ((task, time), first) in run
        .tasks
        .iter()
        .zip(&times)
        .zip(run.first_detection_secs()?)
    {
        let time = time.ok_or("an original that never ended")?;
        let bar = bars[&task.stage];
        let is_straggler = f64::from(time.exec_secs as f32) > bar;
        let started_later = time.start_secs > first_start[&task.stage];
        s.tasks += 1;
        s.started_later += u64::from(started_later);
        stragglers += u64::from(is_straggler);
        if first.is_none() {
            continue;
        }
        s.detected += 1;
        let original = &run.attempts[time.attempt.0 as usize];
        match (is_straggler, original.status) {
            (false, _) if started_later => s.young_false_positives += 1,
            (false, _) => s.other_false_positives += 1,
            (true, AttemptStatus::Killed) => {
                true_detections += 1;
                let ran = original
                    .elapsed_secs()
                    .ok_or("a killed attempt that did not end")?;
                match ran > bar {
                    true => s.killed_past_the_bar += 1,
                    false => s.killed_before_the_bar += 1,
                }
            }
            (true, _) => {
                true_detections += 1;
                s.measured += 1;
            }
        }
    }
    // Labelled as the summary labels.
    assert_eq!(stragglers, outcome.summary.stragglers);
    assert_eq!(s.detected, outcome.summary.detections);
    assert_eq!(true_detections, outcome.summary.true_detections);
    Ok(s)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let whole_day = std::env::args().nth(1).as_deref() == Some("1");
    let cuts: &[u32] = if whole_day { &[100, 10, 1] } else { &[100, 10] };
    for &cut in cuts {
        let mut spec = ScenarioSpec::datacenter();
        spec.cluster.nodes /= cut;
        spec.jobs.count /= cut;
        let s = split(&spec)?;
        let stragglers = s.measured + s.killed_past_the_bar + s.killed_before_the_bar;
        println!(
            "1/{cut}: {} nodes, {} jobs; originals started after their stage's first: {} of {} ({:.1}%)\n  \
             detections {}: false positives {} young + {} other; stragglers {} ({:.1}%): \
             measured {}, killed past the bar {}, killed before it (labelled by the estimate) {}",
            spec.cluster.nodes,
            spec.jobs.count,
            s.started_later,
            s.tasks,
            s.started_later as f64 / s.tasks as f64 * 100.0,
            s.detected,
            s.young_false_positives,
            s.other_false_positives,
            stragglers,
            stragglers as f64 / s.detected as f64 * 100.0,
            s.measured,
            s.killed_past_the_bar,
            s.killed_before_the_bar,
        );
        assert_eq!(s.other_false_positives, 0, "every false positive is young");
        assert!(s.killed_past_the_bar > 10 * s.killed_before_the_bar);
    }
    Ok(())
}
