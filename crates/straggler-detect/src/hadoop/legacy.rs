//! Hadoop's `LegacyTaskRuntimeEstimator`: the runtime an attempt would take at its mean
//! progress rate so far.
//!
//! ```text
//! est = (now - start) / max(progress, 0.0001)
//! ```
//!
//! Source: `org.apache.hadoop.mapreduce.v2.app.speculate.LegacyTaskRuntimeEstimator`
//! (`reference/speculators.md`, "Hadoop MapReduce v2"). Hadoop evaluates it at the last
//! status update; here it is evaluated at the scan with the snapshot's progress (the last
//! reported one) and the scan's `now`. It keeps no per-attempt state. Following `now`, its
//! estimate changes at every scan, so the speculator's simulated heartbeat (a reading for
//! an attempt whose estimate and progress stood still for 9 s) never applies to it, and it
//! would ignore the reading: an attempt that stops reporting is judged on an estimate that
//! grows with its age, as Hadoop's would be after its simulated heartbeats.

use straggler_model::{AttemptId, ProgressReport, StageId};

use super::{DataStatistics, RuntimeEstimator};

/// The floor on the progress score in the denominator, Hadoop's `0.0001`.
const MIN_PROGRESS: f64 = 1e-4;

/// The legacy estimator: `(now - start) / max(progress, 1e-4)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Legacy;

impl RuntimeEstimator for Legacy {
    fn detector_name(&self) -> &'static str {
        "hadoop-legacy"
    }

    fn observe_progress(&mut self, _report: &ProgressReport) {}

    /// `false`: the estimate is the snapshot's progress over the elapsed time.
    fn reads_progress(&self) -> bool {
        false
    }

    fn forget(&mut self, _attempt: AttemptId) {}

    fn forget_stage(&mut self, _stage: StageId) {}

    fn reset(&mut self) {}

    fn estimated_runtime_secs(
        &self,
        _attempt: AttemptId,
        start_secs: f64,
        now_secs: f64,
        progress: f64,
    ) -> Option<f64> {
        Some((now_secs - start_secs).max(0.0) / progress.max(MIN_PROGRESS))
    }

    fn new_attempt_runtime_secs(&self, stats: &DataStatistics) -> Option<f64> {
        stats.mean()
    }
}
