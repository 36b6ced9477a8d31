//! The columnar snapshot of running attempts that detectors scan.

use serde::{Deserialize, Serialize};

use crate::error::check_range;
use crate::{
    AttemptId, AttemptRole, JobId, ModelError, NodeId, StageId, TaskId, TaskKind, ValueError,
};

/// A stage: the tasks of one kind of one job. Detectors compare an attempt with the other
/// running tasks of its stage (Default's "tasks within the same category", Eq. 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stage {
    /// The job.
    pub job: JobId,
    /// Map or reduce.
    pub kind: TaskKind,
}

/// One running attempt, as pushed into a [`Snapshot`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRow {
    /// The attempt.
    pub attempt: AttemptId,
    /// Its task.
    pub task: TaskId,
    /// The task's stage.
    pub stage: StageId,
    /// The node the attempt runs on.
    pub node: NodeId,
    /// Original or copy.
    pub role: AttemptRole,
    /// Launch time, seconds since the start of the run.
    pub start_secs: f64,
    /// Last reported progress score, in `[0, 1]`.
    pub progress: f64,
    /// Size of the task's input in bytes.
    pub input_bytes: f64,
}

/// The running attempts at one instant, one column per field, so that a scan over a million
/// attempts reads only the columns it needs.
///
/// Invariants, checked by [`Snapshot::push`]: every progress is finite and in `[0, 1]`,
/// every start time is finite, not after `now_secs` and within `f64::MAX` seconds of it
/// (so every elapsed time `now_secs - start_secs` is finite), every input size is finite and
/// non-negative, every stage and node index is in range. A detector can rely on them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    now_secs: f64,
    node_count: u32,
    stages: Vec<Stage>,
    pending: Vec<u32>,
    attempt: Vec<AttemptId>,
    task: Vec<TaskId>,
    stage: Vec<u32>,
    node: Vec<u32>,
    role: Vec<AttemptRole>,
    start_secs: Vec<f64>,
    progress: Vec<f64>,
    input_bytes: Vec<f64>,
    /// Rows whose role is [`AttemptRole::Speculative`].
    copies: usize,
}

impl Snapshot {
    /// An empty snapshot at `now_secs` of a cluster of `node_count` nodes running `stages`.
    pub fn new(now_secs: f64, node_count: u32, stages: Vec<Stage>) -> Result<Self, ModelError> {
        check_range("now_secs", now_secs, f64::MIN, f64::MAX, "finite")?;
        let pending = vec![0; stages.len()];
        Ok(Snapshot {
            now_secs,
            node_count,
            stages,
            pending,
            ..Snapshot::default()
        })
    }

    /// Empties the snapshot and moves it to `now_secs`, keeping its allocations and
    /// stages. Pending counts are reset to zero.
    pub fn clear(&mut self, now_secs: f64) -> Result<(), ModelError> {
        check_range("now_secs", now_secs, f64::MIN, f64::MAX, "finite")?;
        self.now_secs = now_secs;
        self.pending.iter_mut().for_each(|p| *p = 0);
        self.attempt.clear();
        self.task.clear();
        self.stage.clear();
        self.node.clear();
        self.role.clear();
        self.start_secs.clear();
        self.progress.clear();
        self.input_bytes.clear();
        self.copies = 0;
        Ok(())
    }

    /// Adds a stage after the others (a job that arrived, in an engine that keeps one
    /// snapshot for a whole run); returns its index. Its pending count is zero.
    pub fn push_stage(&mut self, stage: Stage) -> StageId {
        self.stages.push(stage);
        self.pending.push(0);
        StageId(self.stages.len() as u32 - 1)
    }

    /// Gives index `id` to another stage (a job that arrived, at the index of a stage that
    /// finished: see `Observation::StageFinished`).
    pub fn set_stage(&mut self, id: StageId, stage: Stage) -> Result<(), ModelError> {
        *stage_slot(&mut self.stages, id)? = stage;
        Ok(())
    }

    /// Sets the number of tasks of `stage` waiting to be scheduled.
    pub fn set_pending(&mut self, stage: StageId, tasks: u32) -> Result<(), ModelError> {
        *stage_slot(&mut self.pending, stage)? = tasks;
        Ok(())
    }

    /// Appends a running attempt after checking it; returns its row index.
    pub fn push(&mut self, row: SnapshotRow) -> Result<usize, ModelError> {
        check_range("progress", row.progress, 0.0, 1.0, "[0, 1]")?;
        check_range(
            "start_secs",
            row.start_secs,
            f64::MIN,
            self.now_secs,
            "<= now_secs",
        )?;
        if !(self.now_secs - row.start_secs).is_finite() {
            // Both finite, yet so far apart that the elapsed time, which every detector
            // divides by, would be infinite.
            return Err(ValueError::OutOfRange {
                field: "start_secs",
                value: row.start_secs,
                range: "within f64::MAX seconds of now_secs",
            }
            .into());
        }
        check_range("input_bytes", row.input_bytes, 0.0, f64::MAX, ">= 0")?;
        if row.stage.index() >= self.stages.len() {
            return Err(ModelError::UnknownId {
                field: "stage",
                value: u64::from(row.stage.0),
                len: self.stages.len() as u64,
            });
        }
        if row.node.0 >= self.node_count {
            return Err(ModelError::UnknownId {
                field: "node",
                value: u64::from(row.node.0),
                len: u64::from(self.node_count),
            });
        }
        self.attempt.push(row.attempt);
        self.task.push(row.task);
        self.stage.push(row.stage.0);
        self.node.push(row.node.0);
        self.role.push(row.role);
        self.copies += usize::from(row.role == AttemptRole::Speculative);
        self.start_secs.push(row.start_secs);
        self.progress.push(row.progress);
        self.input_bytes.push(row.input_bytes);
        Ok(self.attempt.len() - 1)
    }

    /// How many rows are speculative copies ([`AttemptRole::Speculative`]): a scan that
    /// counts each task once can skip looking for them when there are none.
    pub fn copy_count(&self) -> usize {
        self.copies
    }

    /// The instant of the snapshot, seconds since the start of the run.
    pub fn now_secs(&self) -> f64 {
        self.now_secs
    }
    /// Number of nodes; every row's node index is below it.
    pub fn node_count(&self) -> u32 {
        self.node_count
    }
    /// The stages; every row's stage index is below `stages().len()`.
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }
    /// Tasks of `stage` waiting to be scheduled (0 for an unknown stage).
    pub fn pending(&self, stage: StageId) -> u32 {
        self.pending.get(stage.index()).copied().unwrap_or(0)
    }
    /// Number of running attempts (rows).
    pub fn len(&self) -> usize {
        self.attempt.len()
    }
    /// Whether no attempt runs.
    pub fn is_empty(&self) -> bool {
        self.attempt.is_empty()
    }
    /// Attempt column.
    pub fn attempts(&self) -> &[AttemptId] {
        &self.attempt
    }
    /// Task column.
    pub fn tasks(&self) -> &[TaskId] {
        &self.task
    }
    /// Stage column (stage index of each row).
    pub fn stage_indices(&self) -> &[u32] {
        &self.stage
    }
    /// Node column (node index of each row).
    pub fn node_indices(&self) -> &[u32] {
        &self.node
    }
    /// Role column.
    pub fn roles(&self) -> &[AttemptRole] {
        &self.role
    }
    /// Launch-time column.
    pub fn start_secs(&self) -> &[f64] {
        &self.start_secs
    }
    /// Progress column.
    pub fn progress(&self) -> &[f64] {
        &self.progress
    }
    /// Input-size column, in bytes.
    pub fn input_bytes(&self) -> &[f64] {
        &self.input_bytes
    }

    /// Row `index` as a struct, or `None` past the end.
    pub fn row(&self, index: usize) -> Option<SnapshotRow> {
        Some(SnapshotRow {
            attempt: *self.attempt.get(index)?,
            task: self.task[index],
            stage: StageId(self.stage[index]),
            node: NodeId(self.node[index]),
            role: self.role[index],
            start_secs: self.start_secs[index],
            progress: self.progress[index],
            input_bytes: self.input_bytes[index],
        })
    }
}

/// Stage `id`'s entry of a per-stage column (`stages` or `pending`, as long as each
/// other), or the error naming the stage.
fn stage_slot<T>(column: &mut [T], id: StageId) -> Result<&mut T, ModelError> {
    let len = column.len() as u64;
    column.get_mut(id.index()).ok_or(ModelError::UnknownId {
        field: "stage",
        value: u64::from(id.0),
        len,
    })
}
