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
    /// A detector's findings broke their contract (a row past the snapshot, rows out of
    /// order).
    #[error(transparent)]
    Findings(#[from] straggler_detect::DetectError),
    /// A replay given a number of scan intervals other than its number of jobs.
    #[error("{intervals} scan intervals for {jobs} jobs: one per job")]
    Intervals {
        /// The jobs to replay.
        jobs: usize,
        /// The intervals given.
        intervals: usize,
    },
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
