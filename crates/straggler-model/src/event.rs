//! What a stateful detector observes between scans: progress reports, ended attempts and
//! finished stages.

use serde::{Deserialize, Serialize};

use crate::{AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, StageId, TaskId};

/// A progress report of a running attempt, as a node sends it on its heartbeat.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProgressReport {
    /// The attempt reporting.
    pub attempt: AttemptId,
    /// Its task.
    pub task: TaskId,
    /// The task's stage.
    pub stage: StageId,
    /// The node it runs on.
    pub node: NodeId,
    /// When the report was made, seconds since the start of the run.
    pub time_secs: f64,
    /// Progress score in `[0, 1]` (seed paper, Eq. 5).
    pub progress: f64,
}

/// An attempt that ended (succeeded, killed or failed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AttemptEnd {
    /// The attempt.
    pub attempt: AttemptId,
    /// Its task.
    pub task: TaskId,
    /// The task's stage.
    pub stage: StageId,
    /// The node it ran on.
    pub node: NodeId,
    /// Original or copy.
    pub role: AttemptRole,
    /// Launch time.
    pub start_secs: f64,
    /// End time.
    pub end_secs: f64,
    /// How it ended.
    pub status: AttemptStatus,
    /// Size of the task's input in bytes.
    pub input_bytes: u64,
}

/// An event a detector may learn from (see `Detector::observe` in `straggler-detect`).
/// Engines send them in time order, before the scan at the same time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Observation {
    /// A heartbeat's progress report.
    Progress(ProgressReport),
    /// An attempt ended.
    AttemptEnded(AttemptEnd),
    /// Every task of a stage has finished (a stage without tasks, with its job): no later
    /// snapshot row or observation names the stage, and an engine that runs many jobs may
    /// give its index to a new stage (a job that arrives later). A detector forgets what
    /// it learnt of the stage alone, so that the index starts afresh (as after
    /// `Detector::reset`, for that stage); what it learnt of nodes it may keep.
    StageFinished {
        /// The stage.
        stage: StageId,
        /// When its last task finished, seconds since the start of the run.
        time_secs: f64,
    },
    /// A job was submitted: its tasks exist from then on, waiting or running (Hadoop creates
    /// their `TaskInProgress` objects as it initialises the job, right after). An engine
    /// that knows when a job was submitted sends this before any snapshot row or
    /// observation of the job's stages, when it can (a replayed log may date a launch
    /// before its job's submission, on a host's clock behind the submitter's).
    JobSubmitted {
        /// The job.
        job: JobId,
        /// When it was submitted, seconds since the start of the run.
        time_secs: f64,
    },
}
