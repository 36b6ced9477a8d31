//! Tasks and their attempts.

use serde::{Deserialize, Serialize};

use crate::{AttemptId, JobId, NodeId, StageId, TaskId};

/// The kind of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    /// A map task.
    Map,
    /// A reduce task.
    Reduce,
}

impl TaskKind {
    /// `"map"` or `"reduce"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Map => "map",
            TaskKind::Reduce => "reduce",
        }
    }
}

/// What identifies a task across repeated runs of the same job: job, kind and index
/// ("map #17 of job 0"). Ground truth is keyed on it (seed paper, Section 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TaskKey {
    /// The job (template) the task belongs to.
    pub job: JobId,
    /// Map or reduce.
    pub kind: TaskKind,
    /// The task's index among the tasks of its kind in the job.
    pub index: u32,
}

impl std::fmt::Display for TaskKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "job {} {} #{}", self.job, self.kind.as_str(), self.index)
    }
}

/// A task of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The task's identifier in its run.
    pub id: TaskId,
    /// Its identity across runs.
    pub key: TaskKey,
    /// The stage (job and kind) it belongs to.
    pub stage: StageId,
    /// Size of its input in bytes (the Hierarchical detector's `Size_total data`).
    pub input_bytes: u64,
}

/// Whether an attempt is the task's first execution or a speculative copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptRole {
    /// The task's first attempt.
    Original,
    /// A copy launched because the task was detected as a straggler.
    Speculative,
}

/// How an attempt ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptStatus {
    /// Still running.
    Running,
    /// Finished its work: it completed the task.
    Succeeded,
    /// Killed because another attempt of the task finished first.
    Killed,
    /// Lost (node failure, error); the task must run again.
    Failed,
}

/// One execution of a task on a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The attempt's identifier in its run.
    pub id: AttemptId,
    /// The task it executes.
    pub task: TaskId,
    /// The node it runs on.
    pub node: NodeId,
    /// Original or speculative copy.
    pub role: AttemptRole,
    /// Launch time, seconds since the start of the run.
    pub start_secs: f64,
    /// Finish or kill time; `None` while running.
    pub end_secs: Option<f64>,
    /// How it ended.
    pub status: AttemptStatus,
    /// Progress score in `[0, 1]` reached at `end_secs` (1 for a success).
    pub progress_at_end: f64,
}

/// Hadoop's floor on a progress score used as a divisor (`LegacyTaskRuntimeEstimator`).
pub(crate) const MIN_PROGRESS: f64 = 1e-4;

impl Attempt {
    /// An attempt of `task` launched on `node` at `start_secs`, still running.
    pub fn started(
        id: AttemptId,
        task: TaskId,
        node: NodeId,
        role: AttemptRole,
        start_secs: f64,
    ) -> Self {
        Attempt {
            id,
            task,
            node,
            role,
            start_secs,
            end_secs: None,
            status: AttemptStatus::Running,
            progress_at_end: 0.0,
        }
    }

    /// The same attempt ended at `end_secs` with `status`, having reached
    /// `progress_at_end` (1 for a success).
    pub fn ended(mut self, end_secs: f64, status: AttemptStatus, progress_at_end: f64) -> Self {
        self.end_secs = Some(end_secs);
        self.status = status;
        self.progress_at_end = progress_at_end;
        self
    }

    /// The time it ran, if it has ended.
    pub fn elapsed_secs(&self) -> Option<f64> {
        self.end_secs.map(|end| end - self.start_secs)
    }

    /// The execution time the attempt would have had, estimated from the progress it
    /// reached when it ended: `(end - start) / max(progress, 1e-4)`.
    ///
    /// This is how the seed paper labels killed originals (Table 7 note: "the finish time
    /// of killed original tasks are estimated based on the moment they get killed and the
    /// progress they reach"); the floor is Hadoop's. For a succeeded attempt it is the
    /// measured time. `None` while running; NaN for a progress outside `[0, 1]` (NaN
    /// included), which [`Run::original_times`](crate::Run::original_times) refuses, naming
    /// the attempt and its `progress_at_end`.
    pub fn estimated_exec_secs(&self) -> Option<f64> {
        let elapsed = self.elapsed_secs()?;
        let progress = self.progress_at_end;
        Some(match self.status {
            AttemptStatus::Succeeded => elapsed,
            _ if (0.0..=1.0).contains(&progress) => elapsed / progress.max(MIN_PROGRESS),
            // Outside its range (NaN included), no estimate: NaN, which a consumer that
            // checks its times refuses, where a clamped divisor would give a wrong time.
            _ => f64::NAN,
        })
    }
}
