//! A detector of the user's own replayed over a real log through the library, as
//! `docs/writing-a-detector.md` (*Replaying it on a log*) shows: read, label, replay, judge.

use std::path::Path;

use stragglers::prelude::*;
use stragglers::trace::{
    MAX_SCANS_PER_JOB, ReplayConfig, ScanInterval, TruthConfig, judge, label, read_path, replay,
    replay_each,
};

/// Flags every attempt that has run more than `after_secs`.
struct Older {
    after_secs: f64,
}

impl Detector for Older {
    fn name(&self) -> &str {
        "older"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        for (row, &start) in snapshot.start_secs().iter().enumerate() {
            if now - start > self.after_secs {
                findings.push_row(row as u32);
            }
        }
    }
}

#[test]
fn a_detector_of_ones_own_replays_over_a_log_as_the_docs_show() {
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/traces/hadoop-rumen-testdata/small-trace-test")
        .join("sample-job-tracker-logs.gz");
    let (jobs, report) = read_path(&log).expect("the Yahoo sample reads");
    let labels = label(&jobs, TruthConfig::default()).expect("its tasks label");
    let judged = |detector: &mut dyn Detector| {
        let outcome = replay(&jobs, &labels, detector, ReplayConfig::default()).expect("replays");
        judge(&labels, &outcome.detections).expect("judged")
    };
    // Default gives the figures of `docs/replay.md`'s worked replay.
    let default = judged(&mut DefaultDetector::default());
    let rounded = |m: Option<f64>| m.map(|v| format!("{v:.3}"));
    assert_eq!(rounded(default.precision).as_deref(), Some("0.302"));
    assert_eq!(rounded(default.recall).as_deref(), Some("0.864"));
    assert_eq!(default.true_positives + default.false_positives, 63);
    // A rule that flags every attempt that has run at all detects every labelled task at
    // its first scan: every straggler found, every other task a false positive.
    let every = judged(&mut Older { after_secs: 0.0 });
    let stragglers = default.true_positives + default.false_negatives;
    assert_eq!(every.true_positives, stragglers, "{every:?}");
    assert_eq!(every.false_positives, every.tasks - stragglers, "{every:?}");
    assert_eq!((every.false_negatives, every.recall), (0, Some(1.0)));
    let share = stragglers as f64 / every.tasks as f64;
    assert_eq!(every.precision_raw, Some(share));

    // Each job at its engine's interval, as `stragglers replay` scans: a Hadoop log's is
    // 3 s, `ReplayConfig`'s default, so Default detects the same.
    let intervals: Vec<f64> = (jobs.iter())
        .map(|job| ScanInterval::engine(report.format, job).secs)
        .collect();
    assert_eq!(intervals, [3.0; 4]);
    let mut detector = DefaultDetector::default();
    let each = replay_each(&jobs, &labels, &mut detector, &intervals, MAX_SCANS_PER_JOB);
    let each = judge(&labels, &each.expect("replays").detections).expect("judged");
    assert_eq!(each, default);
}
