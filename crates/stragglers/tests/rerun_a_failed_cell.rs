//! A failed run of an evaluation cell runs again alone, as `docs/writing-a-detector.md`
//! shows ("Evaluating it").

use stragglers::prelude::*;
use stragglers::sim::{Policy, SimError};

/// At the first scan after 100 s, flags a row past the snapshot's end by the row of the
/// attempt furthest ahead, which depends on the run's seed: a detector whose findings the
/// simulator refuses.
struct PastTheEnd;

impl Detector for PastTheEnd {
    fn name(&self) -> &str {
        "past-the-end"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let progress = snapshot.progress();
        let ahead = (0..progress.len()).max_by(|&a, &b| progress[a].total_cmp(&progress[b]));
        if let Some(ahead) = ahead.filter(|_| snapshot.now_secs() > 100.0) {
            findings.push_row((snapshot.len() + ahead) as u32);
        }
    }
}

#[test]
fn a_failed_cell_runs_again_alone_as_the_docs_show() {
    let mut evaluation =
        Evaluation::paper().with_detectors(vec![DetectorSpec::new("past-the-end", "test", || {
            Box::new(PastTheEnd)
        })]);
    let config = evaluation.config_mut();
    (config.repetitions, config.baseline_runs) = (2, 3);
    config.scenarios.retain(|s| s.name == "C2");
    config.policies = vec![Policy::X100];
    let failed = evaluation.run().expect_err("the findings are out of range");
    let SimError::Run {
        cell,
        repetition,
        seed,
        error,
    } = failed
    else {
        panic!("not a run's error: {failed}");
    };
    assert_eq!(
        (cell.as_str(), repetition),
        ("table6 C2 x100 past-the-end", 0)
    );
    // The docs' snippet: the configuration with the cell's policy, its scenario, its seed.
    let config = evaluation.config();
    let mut sim = config.sim.clone();
    sim.speculation.policy = Policy::X100;
    let scenario = config
        .scenarios
        .iter()
        .find(|s| s.name == "C2")
        .expect("C2");
    let again = simulate(&sim, scenario, seed, Some(&mut PastTheEnd)).expect_err("fails again");
    assert_eq!(again.to_string(), error.to_string());
    // Another seed fails elsewhere: the seed is the run's.
    let other = simulate(&sim, scenario, seed + 1, Some(&mut PastTheEnd)).expect_err("fails");
    assert_ne!(other.to_string(), error.to_string());
}
