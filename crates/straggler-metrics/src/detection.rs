//! Precision, recall, detection latency, undetected time and fake positives (Sections 3.2
//! and 6.2).

use serde::{Deserialize, Serialize};

use crate::MetricsError;
use crate::mean::finite_mean;

/// One task, post-execution: what the detection metrics need to know about it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Launch time of the task's original attempt, seconds since the start of the run.
    pub start_secs: f64,
    /// Execution time of the original attempt (measured, or estimated for a killed one).
    pub exec_secs: f64,
    /// The task's usual execution time (ground truth), `> 0`.
    pub usual_secs: f64,
    /// Whether the task is a straggler (ground truth).
    pub straggler: bool,
    /// Time of the task's first detection, if it was detected.
    pub first_detection_secs: Option<f64>,
}

/// The detection metrics of one run (seed paper, Sections 3.2 and 6.2, Table 6).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DetectionMetrics {
    /// Number of tasks.
    pub tasks: usize,
    /// `|stg & det|`, fake positives included.
    pub true_positives: usize,
    /// `|!stg & det|`.
    pub false_positives: usize,
    /// `|stg & !det|`.
    pub false_negatives: usize,
    /// True positives detected when their remaining time was already below their usual
    /// time (a copy started then cannot win).
    pub fake_positives: usize,
    /// `(TP - fake) / (TP + FP)`: precision with fakes counted as false (the paper's).
    pub precision: Option<f64>,
    /// `TP / (TP + FP)` (Eq. 1).
    pub precision_raw: Option<f64>,
    /// `TP / (TP + FN)` (Eq. 2).
    pub recall: Option<f64>,
    /// Mean over true positives of `(t_detection - t_start) / usual` (Eq. 3).
    pub detection_latency: Option<f64>,
    /// Mean over false negatives of `exec / usual` (Eq. 4).
    pub undetected_time: Option<f64>,
    /// `fake / (TP + FP)` (Eq. 13).
    pub fake_positive: Option<f64>,
}

/// The detection metrics of a run from one record per task:
///
/// ```text
/// precision_raw     = TP / (TP + FP)                                   (Eq. 1)
/// recall            = TP / (TP + FN)                                   (Eq. 2)
/// detection_latency = mean over TP of (t_det - start) / usual          (Eq. 3)
/// undetected_time   = mean over FN of exec / usual                     (Eq. 4)
/// fake              = TP with start + exec < t_det + usual             (Section 6.2)
/// fake_positive     = |fake| / (TP + FP)                               (Eq. 13)
/// precision         = (TP - |fake|) / (TP + FP)
/// ```
///
/// A fake positive stays a true positive for recall and detection latency, but counts as
/// false in `precision` (Section 6.2: "we consider the Fake Positive as part of the False
/// Positive detection"; 0.5 - 0.14 = 0.36). An empty denominator gives `None`.
///
/// # Errors
///
/// [`MetricsError::BadRecord`], naming the record and field, for a start time, execution
/// time or detection time that is NaN, infinite or negative, a usual time that is not
/// positive, or a detection before the task's start; and, on `usual_secs`, for a usual
/// time so small that the record's latency `(t_det - start) / usual` (a true positive) or
/// `exec / usual` (a false negative) overflows to infinity. A detection after the task's
/// end (`start + exec`) is taken as it is: a fake, with a latency above `exec / usual`;
/// the workspace's engines detect only running attempts.
///
/// The two means cannot overflow: their terms are finite, and a sum of terms above
/// `f64::MAX` is averaged on the terms scaled by the largest one (the plain
/// `sum / count` otherwise, so ordinary inputs give the same bits).
pub fn detection_metrics(records: &[TaskRecord]) -> Result<DetectionMetrics, MetricsError> {
    let mut true_positives = 0usize;
    let mut false_positives = 0usize;
    let mut false_negatives = 0usize;
    let mut fake_positives = 0usize;
    let mut latencies = Vec::new();
    let mut undetected = Vec::new();
    for (index, record) in records.iter().enumerate() {
        check_record(index, record)?;
        let per_usual = |secs: f64, what| {
            let term = secs / record.usual_secs;
            if term.is_finite() {
                Ok(term)
            } else {
                Err(MetricsError::BadRecord {
                    index,
                    field: "usual_secs",
                    value: record.usual_secs,
                    range: what,
                })
            }
        };
        match (record.straggler, record.first_detection_secs) {
            (true, Some(detected_secs)) => {
                true_positives += 1;
                latencies.push(per_usual(
                    detected_secs - record.start_secs,
                    "large enough that (first_detection_secs - start_secs) / usual_secs is finite",
                )?);
                if is_fake(record, detected_secs) {
                    fake_positives += 1;
                }
            }
            (false, Some(_)) => false_positives += 1,
            (true, None) => {
                false_negatives += 1;
                undetected.push(per_usual(
                    record.exec_secs,
                    "large enough that exec_secs / usual_secs is finite",
                )?);
            }
            (false, None) => {}
        }
    }
    let detected = true_positives + false_positives;
    let stragglers = true_positives + false_negatives;
    Ok(DetectionMetrics {
        tasks: records.len(),
        true_positives,
        false_positives,
        false_negatives,
        fake_positives,
        precision: ratio((true_positives - fake_positives) as f64, detected),
        precision_raw: ratio(true_positives as f64, detected),
        recall: ratio(true_positives as f64, stragglers),
        detection_latency: finite_mean(&latencies),
        undetected_time: finite_mean(&undetected),
        fake_positive: ratio(fake_positives as f64, detected),
    })
}

/// Whether a straggler detected at `detected_secs` is a fake positive (Section 6.2): its
/// remaining time `end - t_det` is below its usual time, compared as
/// `end < t_det + usual`, two sums rounded once each, so that a remaining time equal to the
/// usual time is not fake (`0.3 + 0.6 - 0.6` rounds below 0.3; `0.3 + 0.6` and
/// `0.6 + 0.3` are the same number). If both sums are above `f64::MAX`, their halves are
/// compared instead (`inf < inf` would say "not fake" whatever the times).
pub fn is_fake(record: &TaskRecord, detected_secs: f64) -> bool {
    let end = record.start_secs + record.exec_secs;
    let limit = detected_secs + record.usual_secs;
    if end.is_finite() || limit.is_finite() {
        end < limit
    } else {
        record.start_secs / 2.0 + record.exec_secs / 2.0
            < detected_secs / 2.0 + record.usual_secs / 2.0
    }
}

/// `numerator / count`, `None` for a zero count.
fn ratio(numerator: f64, count: usize) -> Option<f64> {
    (count > 0).then(|| numerator / count as f64)
}

fn check_record(index: usize, record: &TaskRecord) -> Result<(), MetricsError> {
    let bad = |field, value, range| MetricsError::BadRecord {
        index,
        field,
        value,
        range,
    };
    let non_negative = |field, value: f64| {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(bad(field, value, "finite and >= 0"))
        }
    };
    non_negative("start_secs", record.start_secs)?;
    non_negative("exec_secs", record.exec_secs)?;
    if !(record.usual_secs.is_finite() && record.usual_secs > 0.0) {
        return Err(bad("usual_secs", record.usual_secs, "finite and > 0"));
    }
    if let Some(detected) = record.first_detection_secs
        && !(detected.is_finite() && detected >= record.start_secs)
    {
        return Err(bad(
            "first_detection_secs",
            detected,
            "finite and >= start_secs",
        ));
    }
    Ok(())
}
