//! Detection metrics of a detector's first detections against a trace's labels, by the
//! names of the evaluation schema (`stragglers.eval/1`).

use std::collections::BTreeMap;

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

/// The metrics by the evaluation schema's names (`precision`, `precision_raw`, `recall`,
/// `detection_latency`, `undetected_time`, `fake_positive`, `stragglers`, `detected`), the
/// counts behind them (`tasks`, `true_positives`, `false_positives`, `false_negatives`,
/// `fake_positives`) and, for the recorded speculation, its copies (`speculative_copies`,
/// `successful_copies`, `unsuccessful_copies`, `wasted_container_secs`).
pub fn metric_map(
    metrics: &DetectionMetrics,
    copies: Option<&CopyCounts>,
) -> BTreeMap<String, Option<f64>> {
    let count = |n: usize| Some(n as f64);
    let mut map = BTreeMap::from([
        ("precision".to_owned(), metrics.precision),
        ("precision_raw".to_owned(), metrics.precision_raw),
        ("recall".to_owned(), metrics.recall),
        ("detection_latency".to_owned(), metrics.detection_latency),
        ("undetected_time".to_owned(), metrics.undetected_time),
        ("fake_positive".to_owned(), metrics.fake_positive),
        (
            "stragglers".to_owned(),
            count(metrics.true_positives + metrics.false_negatives),
        ),
        (
            "detected".to_owned(),
            count(metrics.true_positives + metrics.false_positives),
        ),
        ("tasks".to_owned(), count(metrics.tasks)),
        ("true_positives".to_owned(), count(metrics.true_positives)),
        ("false_positives".to_owned(), count(metrics.false_positives)),
        ("false_negatives".to_owned(), count(metrics.false_negatives)),
        ("fake_positives".to_owned(), count(metrics.fake_positives)),
    ]);
    if let Some(copies) = copies {
        map.extend([
            (
                "speculative_copies".to_owned(),
                count(copies.speculative_copies),
            ),
            (
                "successful_copies".to_owned(),
                count(copies.successful_copies),
            ),
            (
                "unsuccessful_copies".to_owned(),
                count(copies.unsuccessful_copies),
            ),
            (
                "wasted_container_secs".to_owned(),
                Some(copies.wasted_container_secs),
            ),
        ]);
    }
    map
}

#[cfg(test)]
mod tests {
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
        let map = metric_map(&metrics, Some(&recorded.total));
        let close = |name: &str, value: f64| {
            let got = map[name].unwrap();
            assert!((got - value).abs() < 1e-12, "{name}: {got} != {value}");
        };
        close("precision_raw", 2.0 / 3.0);
        close("precision", 1.0 / 3.0);
        close("recall", 1.0);
        close("detection_latency", 2.15);
        close("fake_positive", 1.0 / 3.0);
        close("stragglers", 2.0);
        close("detected", 3.0);
        close("successful_copies", 1.0);
        close("unsuccessful_copies", 2.0);
        close("wasted_container_secs", 10.0);
        assert_eq!(map["undetected_time"], None, "no false negative");

        // Nothing detected: undetected time = mean of 30/10 and 32/10 = 3.1, precision None.
        let metrics = judge(&labels, &[None; 5]).unwrap();
        let map = metric_map(&metrics, None);
        assert_eq!(map["precision"], None);
        assert_eq!(map["recall"], Some(0.0));
        assert!((map["undetected_time"].unwrap() - 3.1).abs() < 1e-12);
        assert!(!map.contains_key("successful_copies"));
    }
}
