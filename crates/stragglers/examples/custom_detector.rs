//! A detector written outside the detect crate, run through the conformance kit, then evaluated
//! beside Default: `cargo run --release -p stragglers --example custom_detector`.

use stragglers::detect::conformance::Conformance;
use stragglers::prelude::*;
use stragglers::sim::report;

/// Flags attempts running at less than `fraction` of their stage's mean progress rate.
struct SlowRate {
    fraction: f64,
}

impl Detector for SlowRate {
    fn name(&self) -> &str {
        "slow-rate"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let rate = |row: usize| {
            let elapsed = now - snapshot.start_secs()[row];
            (elapsed > 0.0).then(|| snapshot.progress()[row] / elapsed)
        };
        let stages = snapshot.stage_indices();
        let mut sums = vec![(0.0, 0u32); snapshot.stages().len()];
        for row in 0..snapshot.len() {
            if let Some(r) = rate(row) {
                let s = &mut sums[stages[row] as usize];
                *s = (s.0 + r, s.1 + 1);
            }
        }
        for row in 0..snapshot.len() {
            let (sum, n) = sums[stages[row] as usize];
            if rate(row).is_some_and(|r| r < self.fraction * sum / f64::from(n)) {
                findings.push_row(row as u32);
            }
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // It compares an attempt with its peers, so identical attempts must not be flagged.
    let slow_rate = || SlowRate { fraction: 0.5 };
    let kit = Conformance::new(move |_| slow_rate());
    kit.peer_relative().run()?;
    let detectors = vec![
        DetectorSpec::new("default", "the paper's Default", || {
            Box::new(DefaultDetector::default())
        }),
        DetectorSpec::new("slow-rate", "rate below half the stage mean", move || {
            Box::new(slow_rate())
        }),
    ];
    let results = Evaluation::paper().with_detectors(detectors).run()?;
    print!("{}", report::table6(&results, "x100").to_text());
    let cell = results.cell("table6", "C1", "x100", "slow-rate");
    assert!(cell.is_some_and(|c| c.metrics["recall"].mean.is_some()));
    Ok(())
}
