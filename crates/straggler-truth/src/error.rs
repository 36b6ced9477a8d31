//! The error type of the ground-truth crate.

use straggler_model::TaskKey;

/// An invalid input of the ground-truth computations, with the field or task that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TruthError {
    /// A parameter that must be finite is NaN or infinite.
    #[error("{field} must be a finite number, got {value}")]
    NotFinite {
        /// The parameter.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A parameter lies outside its allowed range.
    #[error("{field} must be {range}, got {value}")]
    OutOfRange {
        /// The parameter.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// The allowed range, for the message.
        range: &'static str,
    },
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

/// Checks that `value` is finite and within `[min, max]`.
pub(crate) fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
    range: &'static str,
) -> Result<(), TruthError> {
    if !value.is_finite() {
        return Err(TruthError::NotFinite { field, value });
    }
    if value < min || value > max {
        return Err(TruthError::OutOfRange {
            field,
            value,
            range,
        });
    }
    Ok(())
}
