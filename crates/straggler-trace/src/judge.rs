//! Detection metrics of a detector's first detections against a trace's labels, by the
//! names of the evaluation schema (`stragglers.eval/1`).

use serde::Serialize;
use straggler_metrics::{DetectionMetrics, TaskRecord, detection_metrics};

use crate::{CopyCounts, Labels, ReplayError};

/// The records `straggler_metrics::detection_metrics` takes: one per labelled task, with
/// `detections[i]` the first detection of `labels.tasks[i]` (seconds since its job's first
/// launch). A detection before the task's start is moved to its start.
pub fn task_records(labels: &Labels, detections: &[Option<f64>]) -> Vec<TaskRecord> {
    labels
        .tasks
        .iter()
        .enumerate()
        .map(|(i, task)| TaskRecord {
            start_secs: task.start_secs,
            exec_secs: task.exec_secs,
            usual_secs: task.usual_secs,
            straggler: task.straggler,
            first_detection_secs: detections
                .get(i)
                .copied()
                .flatten()
                .map(|d| d.max(task.start_secs)),
        })
        .collect()
}

/// Precision, Recall, Detection Latency, Undetected Time and Fake Positive (seed 000,
/// Eqs. 1-4 and 13) of `detections` against `labels`.
///
/// # Errors
///
/// A record the metrics refuse (labels from [`label`](crate::label) never are).
pub fn judge(labels: &Labels, detections: &[Option<f64>]) -> Result<DetectionMetrics, ReplayError> {
    Ok(detection_metrics(&task_records(labels, detections))?)
}

/// One detector's metrics on a trace, by the evaluation schema's names: the rates, `None`
/// (`null` in JSON) where their denominator is empty, and the counts of the run they come
/// from, as integers. `stragglers replay --json` writes it as `detectors[].metrics`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ReplayMetrics {
    /// The seed paper's metrics and the counts behind them (`precision`, `recall`,
    /// `tasks`, `true_positives`...), under their own names.
    #[serde(flatten)]
    pub metrics: DetectionMetrics,
    /// Stragglers among the labelled tasks: `TP + FN`.
    pub stragglers: usize,
    /// Tasks detected: `TP + FP`.
    pub detected: usize,
    /// Fake positives whose task a copy won, for which the remaining time is a lower bound
    /// ([`fakes_won_by_copy`](crate::fakes_won_by_copy)).
    pub fake_positives_won_by_copy: usize,
    /// For the recorded speculation, the copies that ran (`speculative_copies`,
    /// `successful_copies`, `unsuccessful_copies`, `wasted_container_secs` in JSON); `None`
    /// (no key) for a replayed detector.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub copies: Option<CopyCounts>,
}

impl ReplayMetrics {
    /// The metrics of a run judged as `metrics` ([`judge`]), with
    /// `fake_positives_won_by_copy` of its fakes won by a copy, and the copies that ran
    /// for the recorded speculation.
    pub fn new(
        metrics: &DetectionMetrics,
        fake_positives_won_by_copy: usize,
        copies: Option<&CopyCounts>,
    ) -> ReplayMetrics {
        ReplayMetrics {
            metrics: *metrics,
            stragglers: metrics.true_positives + metrics.false_negatives,
            detected: metrics.true_positives + metrics.false_positives,
            fake_positives_won_by_copy,
            copies: copies.copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use straggler_metrics::DetectionMetrics;

    use super::*;
    use crate::{TruthConfig, label, recorded};

    #[test]
    fn recorded_speculation_judged_by_hand() {
        // The job of recorded.rs's test: maps 10, 10, 10 (one with a failed copy launched
        // at 5), "won" (exec 30, copy at 18) and "lost" (exec 32, copy at 25); usual 10.
        // TP = {won, lost}, FP = {noisy}, FN = {}.
        // fake: won: 0 + 30 - 18 = 12 >= 10, not fake; lost: 32 - 25 = 7 < 10, fake.
        // precision_raw = 2/3, precision = (2 - 1)/3 = 1/3, recall = 1,
        // detection latency = ((18 - 0)/10 + (25 - 0)/10)/2 = 2.15, fake_positive = 1/3.
        let jobs = crate::recorded::tests::copies_job();
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let recorded = recorded(&jobs, &labels);
        let metrics = judge(&labels, &recorded.detections).unwrap();
        let judged = ReplayMetrics::new(&metrics, 0, Some(&recorded.total));
        let close = |name: &str, got: Option<f64>, value: f64| {
            let got = got.unwrap();
            assert!((got - value).abs() < 1e-12, "{name}: {got} != {value}");
        };
        close("precision_raw", judged.metrics.precision_raw, 2.0 / 3.0);
        close("precision", judged.metrics.precision, 1.0 / 3.0);
        close("recall", judged.metrics.recall, 1.0);
        close("detection_latency", judged.metrics.detection_latency, 2.15);
        close("fake_positive", judged.metrics.fake_positive, 1.0 / 3.0);
        assert_eq!((judged.stragglers, judged.detected), (2, 3));
        let copies = judged.copies.expect("the recorded speculation's copies");
        assert_eq!(
            (copies.successful_copies, copies.unsuccessful_copies),
            (1, 2)
        );
        assert_eq!(copies.wasted_container_secs, 10.0);
        assert_eq!(judged.metrics.undetected_time, None, "no false negative");

        // Nothing detected: undetected time = mean of 30/10 and 32/10 = 3.1, precision None.
        let metrics = judge(&labels, &[None; 5]).unwrap();
        let judged = ReplayMetrics::new(&metrics, 0, None);
        assert_eq!(judged.metrics.precision, None);
        assert_eq!(judged.metrics.recall, Some(0.0));
        close("undetected_time", judged.metrics.undetected_time, 3.1);
        assert_eq!(judged.copies, None);
    }

    #[test]
    fn replay_metrics_write_counts_as_integers_and_copies_for_the_recorded_only() {
        // 5 tasks: 2 stragglers detected (1 of them a fake, won by a copy), 1 other task
        // detected, none missed. detected = 2 + 1 = 3, stragglers = 2 + 0 = 2;
        // precision = (2 - 1) / 3, precision_raw = 2 / 3, recall = 2 / 2.
        let metrics = DetectionMetrics {
            tasks: 5,
            true_positives: 2,
            false_positives: 1,
            false_negatives: 0,
            fake_positives: 1,
            precision: Some(1.0 / 3.0),
            precision_raw: Some(2.0 / 3.0),
            recall: Some(1.0),
            detection_latency: Some(0.5),
            undetected_time: None,
            fake_positive: Some(1.0 / 3.0),
        };
        // A JSON integer never equals a float: the counts must be integers.
        assert_ne!(json!(5), json!(5.0));
        let replayed = serde_json::to_value(ReplayMetrics::new(&metrics, 1, None)).unwrap();
        assert_eq!(
            replayed,
            json!({
                "precision": 1.0 / 3.0,
                "precision_raw": 2.0 / 3.0,
                "recall": 1.0,
                "detection_latency": 0.5,
                "undetected_time": null,
                "fake_positive": 1.0 / 3.0,
                "tasks": 5,
                "stragglers": 2,
                "detected": 3,
                "true_positives": 2,
                "false_positives": 1,
                "false_negatives": 0,
                "fake_positives": 1,
                "fake_positives_won_by_copy": 1,
            })
        );
        // The recorded speculation adds its copies, counts as integers, seconds a float.
        let copies = CopyCounts {
            speculative_copies: 3,
            successful_copies: 1,
            unsuccessful_copies: 2,
            wasted_container_secs: 10.0,
        };
        let recorded =
            serde_json::to_value(ReplayMetrics::new(&metrics, 1, Some(&copies))).unwrap();
        let mut expected = replayed;
        expected.as_object_mut().unwrap().extend([
            ("speculative_copies".to_owned(), json!(3)),
            ("successful_copies".to_owned(), json!(1)),
            ("unsuccessful_copies".to_owned(), json!(2)),
            ("wasted_container_secs".to_owned(), json!(10.0)),
        ]);
        assert_eq!(recorded, expected);
    }
}
