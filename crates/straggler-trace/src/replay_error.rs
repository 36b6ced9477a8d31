//! The error type of replay: a bad parameter, or a value the workspace's checks refused.

use straggler_metrics::MetricsError;
use straggler_model::{ModelError, ValueError};
use straggler_truth::TruthError;

/// Why labelling, judging or replaying a trace failed. A bad record of the trace is not an
/// error: labelling leaves such a task out and counts it by reason (see
/// [`Labels::unlabelled`](crate::Labels::unlabelled)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// A parameter (factor, scan interval) outside its range.
    #[error(transparent)]
    Parameter(#[from] ValueError),
    /// Ground truth refused its input.
    #[error("ground truth: {0}")]
    Truth(#[from] TruthError),
    /// The metrics refused a record.
    #[error("metrics: {0}")]
    Metrics(#[from] MetricsError),
    /// A job would take more scans than [`MAX_SCANS_PER_JOB`](crate::MAX_SCANS_PER_JOB) at
    /// the interval: its log holds a time far from the others (a broken clock or a damaged
    /// record), or the interval is far too short for it.
    #[error(
        "job {job} runs {span_secs} s after its first launch: {scans} scans every {interval_secs} s, more than {max}; check its times or use a longer --scan-interval"
    )]
    TooManyScans {
        /// The job id as the log writes it.
        job: String,
        /// From the job's first launch to its last end, seconds.
        span_secs: f64,
        /// The scan interval, seconds.
        interval_secs: f64,
        /// The scans the span would take.
        scans: f64,
        /// The bound.
        max: u64,
    },
    /// A detector's findings broke their contract (a row past the snapshot, rows out of
    /// order).
    #[error(transparent)]
    Findings(#[from] straggler_detect::DetectError),
    /// A snapshot refused a row.
    #[error("snapshot of job {job} at {now_secs} s: {source}")]
    Snapshot {
        /// The job id as the log writes it.
        job: String,
        /// The scan time, seconds since the job's first launch.
        now_secs: f64,
        /// The cause.
        source: ModelError,
    },
}
