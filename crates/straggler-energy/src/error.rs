//! The error type of the energy crate.

use straggler_model::NodeId;

/// An input of the energy model that is invalid, with the field that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EnergyError {
    /// A number that must be finite is NaN or infinite.
    #[error("{field} must be a finite number, got {value}")]
    NotFinite {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A number lies outside its allowed range.
    #[error("{field} must be {range}, got {value}")]
    OutOfRange {
        /// The field that holds the value.
        field: &'static str,
        /// The offending value.
        value: f64,
        /// The allowed range, for the message.
        range: &'static str,
    },
    /// The inputs of the first-order predictor describe an impossible detector.
    #[error("{field} = {value} is impossible: {reason}")]
    Impossible {
        /// The quantity that comes out impossible.
        field: &'static str,
        /// Its value.
        value: f64,
        /// Why, for the message.
        reason: &'static str,
    },
    /// A load change of a node's timeline at a time that is not finite, negative, or
    /// before the previous change.
    #[error(
        "load of node {node}: changes[{change}].time_secs must be finite, >= 0 and not before the previous change, got {value}"
    )]
    BadLoadChange {
        /// The node whose timeline is broken.
        node: NodeId,
        /// Index of the change in the timeline.
        change: usize,
        /// The offending time.
        value: f64,
    },
    /// A run has more load timelines than nodes.
    #[error("load has {timelines} timelines but the run has {nodes} nodes")]
    LoadWithoutNode {
        /// Number of timelines.
        timelines: usize,
        /// Number of nodes.
        nodes: usize,
    },
}

/// Checks that `value` is finite and within `[min, max]`.
pub(crate) fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
    range: &'static str,
) -> Result<(), EnergyError> {
    if !value.is_finite() {
        return Err(EnergyError::NotFinite { field, value });
    }
    if value < min || value > max {
        return Err(EnergyError::OutOfRange {
            field,
            value,
            range,
        });
    }
    Ok(())
}
