//! The error type of the model crate.

/// A value that breaks one of the model's invariants, with the field that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A number that must be finite is NaN or infinite.
    #[error("{field} must be a finite number, got {value}")]
    NotFinite {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A number lies outside its allowed range.
    #[error("{field} = {value} is outside its allowed range {range}")]
    OutOfRange {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// The allowed range, for the message.
        range: &'static str,
    },
    /// An identifier points at nothing (a stage or node index past the end, say).
    #[error("{field} = {value} refers to nothing (there are {len})")]
    UnknownId {
        /// The field that holds the identifier.
        field: &'static str,
        /// The identifier.
        value: u64,
        /// How many valid identifiers there are.
        len: u64,
    },
}

/// Checks that `value` is finite and within `[min, max]`.
pub(crate) fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
    range: &'static str,
) -> Result<(), ModelError> {
    if !value.is_finite() {
        return Err(ModelError::NotFinite { field, value });
    }
    if value < min || value > max {
        return Err(ModelError::OutOfRange {
            field,
            value,
            range,
        });
    }
    Ok(())
}
