//! The error type of the energy crate.

use straggler_model::{ModelError, NodeId, ValueError};

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
    /// An input of the first-order predictor that it needs is undefined (`None`: a metric
    /// whose denominator was empty) ([`FirstOrderInputs::from_metrics`](crate::FirstOrderInputs::from_metrics)).
    #[error("{field} is undefined, but the prediction needs it")]
    Undefined {
        /// The input.
        field: &'static str,
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
    /// A node that breaks the model's invariants (see `Node::check`): no core, no thread,
    /// no container, no active core, or more active cores than cores.
    #[error("node {node}: {error}")]
    BadNode {
        /// The node at fault.
        node: NodeId,
        /// The invariant it breaks, with the field that holds it (in the message, not as
        /// a `source`, so that a chain of errors does not print it twice).
        error: ModelError,
    },
    /// The energy of otherwise valid inputs is not a finite `f64`: `end_secs` is far longer
    /// than any run (a node drawing 1e6 W overflows beyond about 1.8e302 s).
    #[error(
        "energy over [0, end_secs = {end_secs}] is not a finite number of joules once node {node} is added: end_secs is too large"
    )]
    EnergyOverflow {
        /// The node whose energy (or whose addition to the run's total) overflows.
        node: NodeId,
        /// The end of the integral, in seconds.
        end_secs: f64,
    },
    /// An attempt of a run ran on a node that has no load timeline: its energy would be
    /// left out (the node counted idle), as it was for every attempt of a run built by hand
    /// with an empty `run.load`.
    #[error(
        "attempts[{attempt}] ran on node {node}, which has no load timeline (run.load has \
         {timelines}); fill run.load from the attempts with Run::load_from_attempts"
    )]
    AttemptWithoutLoad {
        /// The attempt's index in `Run::attempts`.
        attempt: usize,
        /// The node it ran on.
        node: NodeId,
        /// Number of timelines in `run.load`.
        timelines: usize,
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
