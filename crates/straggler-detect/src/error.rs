//! The error type of the detect crate.

/// A detector parameter that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// A parameter is NaN, infinite or out of its range.
    #[error("parameter {param} = {value} is invalid: must be {expected}")]
    InvalidParam {
        /// The parameter's name.
        param: &'static str,
        /// The value given.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// A detector's findings break the contract of [`Findings`](crate::Findings): a row
    /// past the snapshot, rows not in increasing order, a slow node past the cluster.
    #[error("detector {detector}: {problem}")]
    BadFindings {
        /// The detector's name.
        detector: String,
        /// What is wrong, with the row or node at fault.
        problem: String,
    },
}

/// Checks that `value` is finite and satisfies `ok`.
pub(crate) fn check_param(
    param: &'static str,
    value: f64,
    expected: &'static str,
    ok: impl FnOnce(f64) -> bool,
) -> Result<f64, DetectError> {
    if value.is_finite() && ok(value) {
        Ok(value)
    } else {
        Err(DetectError::InvalidParam {
            param,
            value,
            expected,
        })
    }
}
