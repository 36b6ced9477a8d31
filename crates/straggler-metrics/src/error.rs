//! The error type of the metrics crate.

use straggler_model::{AttemptId, TaskId};

/// An invalid input of a metric, with the record or attempt and the field that hold it.
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
}
