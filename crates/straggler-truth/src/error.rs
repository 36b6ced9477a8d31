//! The error type of the ground-truth crate.

use straggler_model::{ModelError, TaskKey, ValueError};

/// An invalid input of the ground-truth computations, with the field or task that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TruthError {
    /// A number is NaN, infinite or outside its allowed range.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// One element of an input slice is invalid.
    #[error("{field}[{index}] must be {range}, got {value}")]
    BadElement {
        /// The slice.
        field: &'static str,
        /// Index of the element.
        index: usize,
        /// The offending value.
        value: f64,
        /// What the element must be, for the message.
        range: &'static str,
    },
    /// An execution time of a task is NaN, infinite or negative.
    #[error("execution time of {key} must be finite and >= 0, got {value}")]
    BadExecTime {
        /// The task.
        key: TaskKey,
        /// The offending time.
        value: f64,
    },
    /// A task of a baseline run whose original attempt never ended has no execution time.
    #[error("run {run}: the original attempt of {key} never ended")]
    OriginalNotEnded {
        /// Index of the run in the slice given.
        run: usize,
        /// The task.
        key: TaskKey,
    },
    /// A task has no usual time: no baseline sample had its key
    /// ([`UsualTimes::of_run`](crate::UsualTimes::of_run)).
    #[error("{key} has no usual time: no baseline run had a task with its key")]
    NoUsualTime {
        /// The task's key.
        key: TaskKey,
    },
    /// A baseline run is inconsistent (an attempt of a task it does not have, two
    /// originals of one task that did not fail).
    #[error("run {run}: {error}")]
    BadRun {
        /// Index of the run in the slice given.
        run: usize,
        /// What is wrong with it.
        error: ModelError,
    },
    /// A result is beyond binary64's range (inputs near its limits), for the element at
    /// `index` of the input.
    #[error("{what} of element {index} is beyond binary64's range")]
    Overflow {
        /// What overflows.
        what: &'static str,
        /// Index of the element.
        index: usize,
    },
    /// Two slices that must have the same length do not.
    #[error("{field} has {len} elements, expected {expected}")]
    LengthMismatch {
        /// The slice.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The length it must have.
        expected: usize,
    },
}
