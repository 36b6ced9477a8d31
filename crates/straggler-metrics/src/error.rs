//! The error type of the metrics crate.

use straggler_model::{AttemptId, AttemptStatus, ModelError, TaskId};

/// An invalid input of a metric, with the record, attempt or value and the field that hold
/// it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// A field of a [`TaskRecord`](crate::TaskRecord) is invalid.
    #[error("records[{index}].{field} must be {range}, got {value}")]
    BadRecord {
        /// Index of the record.
        index: usize,
        /// The field.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What the field must be, for the message.
        range: &'static str,
    },
    /// A field of an attempt of a run is invalid.
    #[error("attempt {attempt}: {field} must be {range}, got {value}")]
    BadAttempt {
        /// The attempt.
        attempt: AttemptId,
        /// The field.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What the field must be, for the message.
        range: &'static str,
    },
    /// An attempt of a run has ended (succeeded, been killed or failed) but has no end
    /// time.
    #[error("attempt {attempt}: end_secs must be set for an attempt that is {status:?}, got None")]
    MissingEnd {
        /// The attempt.
        attempt: AttemptId,
        /// How it ended.
        status: AttemptStatus,
    },
    /// A total of a run is above the largest finite `f64`: the attempts' times, each
    /// valid, add up to more than `f64::MAX` seconds.
    #[error("{total} overflows: above f64::MAX once attempt {attempt} is added")]
    TotalOverflow {
        /// The total (`"container_secs"` or `"wasted_container_secs"`).
        total: &'static str,
        /// The attempt whose time made it overflow.
        attempt: AttemptId,
    },
    /// An attempt of a run points at a task the run does not have.
    #[error("attempt {attempt} runs task {task}, but the run has {tasks} tasks")]
    UnknownTask {
        /// The attempt.
        attempt: AttemptId,
        /// The task it names.
        task: TaskId,
        /// Number of tasks of the run.
        tasks: usize,
    },
    /// A field of a run is invalid.
    #[error("run.{field} must be {range}, got {value}")]
    BadRun {
        /// The field.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// What the field must be, for the message.
        range: &'static str,
    },
    /// A run whose original times or detections cannot be read
    /// ([`task_records_of_run`](crate::task_records_of_run)).
    #[error("run: {0}")]
    Run(#[from] ModelError),
    /// A task of a run whose original attempt never ended has no execution time to be
    /// labelled with ([`task_records_of_run`](crate::task_records_of_run)).
    #[error("task {task}: its original attempt never ended, so it has no execution time")]
    OriginalNotEnded {
        /// The task.
        task: TaskId,
    },
    /// A slice that must have one element per task of a run does not
    /// ([`task_records_of_run`](crate::task_records_of_run)).
    #[error("{field} has {len} elements, expected {expected} (one per task of the run)")]
    LengthMismatch {
        /// The slice.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The run's number of tasks.
        expected: usize,
    },
    /// A value given to [`summarize`](crate::summarize) is NaN or infinite (an
    /// undefined value is `None`).
    #[error("values[{index}] must be finite or None (undefined), got {value}")]
    BadValue {
        /// Index of the value (the repetition).
        index: usize,
        /// The offending value.
        value: f64,
    },
}
