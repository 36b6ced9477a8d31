//! The error type of the energy crate.

use straggler_model::{NodeId, ValueError};

/// An input of the energy model that is invalid, with the field that holds it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EnergyError {
    /// A number is NaN, infinite or outside its allowed range.
    #[error(transparent)]
    Value(#[from] ValueError),
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
