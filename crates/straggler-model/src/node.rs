//! Worker nodes.

use serde::{Deserialize, Serialize};

use crate::{ModelError, NodeId, ValueError};

/// A worker node: `cores` physical cores of which `active_cores` are enabled, each running
/// `threads_per_core` hardware threads, and `containers` task slots.
///
/// The seed paper (Section 5.4) injects stragglers by disabling cores: a node of group
/// G_i has i active cores out of four, but keeps its eight containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The node's identifier.
    pub id: NodeId,
    /// Physical cores.
    pub cores: u32,
    /// Hardware threads per core (2 with hyper-threading).
    pub threads_per_core: u32,
    /// Task slots (YARN containers).
    pub containers: u32,
    /// Cores enabled, at most `cores`.
    pub active_cores: u32,
}

impl Node {
    /// A node with all its cores active.
    pub fn new(id: NodeId, cores: u32, threads_per_core: u32, containers: u32) -> Self {
        Node {
            id,
            cores,
            threads_per_core,
            containers,
            active_cores: cores,
        }
    }

    /// The same node with `active_cores` cores enabled.
    pub fn with_active_cores(mut self, active_cores: u32) -> Self {
        self.active_cores = active_cores;
        self
    }

    /// Checks the node's invariants: at least one core, thread and container, and
    /// `1 <= active_cores <= cores`.
    pub fn check(&self) -> Result<(), ModelError> {
        let positive = |field: &'static str, value: u32| {
            if value == 0 {
                Err(ValueError::OutOfRange {
                    field,
                    value: 0.0,
                    range: ">= 1",
                })
            } else {
                Ok(())
            }
        };
        positive("cores", self.cores)?;
        positive("threads_per_core", self.threads_per_core)?;
        positive("containers", self.containers)?;
        positive("active_cores", self.active_cores)?;
        if self.active_cores > self.cores {
            return Err(ValueError::OutOfRange {
                field: "active_cores",
                value: f64::from(self.active_cores),
                range: "<= cores",
            }
            .into());
        }
        Ok(())
    }
}
