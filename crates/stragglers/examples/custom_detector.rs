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
    let slow_rate = || SlowRate { fraction: 0.5 };
    // It compares an attempt with its peers, so identical attempts must not be flagged.
    let kit = Conformance::new(move |_| slow_rate()).peer_relative();
    kit.run()?;
    println!("slow-rate passes the conformance kit\n");
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
    assert!(results.cell("table6", "C1", "x100", "slow-rate").is_some());
    Ok(())
}
