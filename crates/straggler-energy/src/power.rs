//! The power drawn by a node as a function of the number of tasks it runs (Section 4.1).

use serde::{Deserialize, Serialize};
use straggler_model::{Node, check_range};

use crate::EnergyError;

/// Power of a node running `n` tasks (seed paper, Section 4.1):
///
/// ```text
/// P(n) = idle_watts                        for n = 0
///      = static_watts + n * dynamic_watts  for 1 <= n <= c
///      = static_watts + c * dynamic_watts  for n > c
/// ```
///
/// where `c` is the node's number of *active* cores. The paper writes the last case for
/// `c < n <= c*t` (`t` threads per core); with more than `c*t` tasks the tasks time-share
/// the hardware threads and the power stays at `static_watts + c * dynamic_watts`.
///
/// The paper's node draws nothing when it runs no task (it is "turned off"), hence the
/// default `idle_watts = 0`; set it to the static power to model a node that stays on.
/// The defaults `static_watts = 65` and `dynamic_watts = 17` are the paper's measurements
/// for WordCount maps (Fig. 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PowerModel {
    /// `P_static`: power of a node that is on, whatever its load, in watts.
    pub static_watts: f64,
    /// `P_dyn`: power added by each busy core, in watts.
    pub dynamic_watts: f64,
    /// Power of a node running no task, in watts (the paper's 0: node off).
    pub idle_watts: f64,
}

impl Default for PowerModel {
    fn default() -> Self {
        PowerModel {
            static_watts: 65.0,
            dynamic_watts: 17.0,
            idle_watts: 0.0,
        }
    }
}

impl PowerModel {
    /// Checks that every power is finite and non-negative; returns the checked model.
    pub fn check(self) -> Result<Self, EnergyError> {
        check_range("static_watts", self.static_watts, 0.0, f64::MAX, ">= 0")?;
        check_range("dynamic_watts", self.dynamic_watts, 0.0, f64::MAX, ">= 0")?;
        check_range("idle_watts", self.idle_watts, 0.0, f64::MAX, ">= 0")?;
        Ok(self)
    }

    /// The power, in watts, of `node` running `running` tasks. Finite for a checked model.
    pub fn power_watts(&self, node: &Node, running: u32) -> f64 {
        if running == 0 {
            return self.idle_watts;
        }
        let busy_cores = running.min(node.active_cores);
        self.static_watts + f64::from(busy_cores) * self.dynamic_watts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use straggler_model::{NodeId, ValueError};

    #[test]
    fn paper_power_curve_on_a_four_core_node() {
        // c = 4, t = 2: P(0) = 0, P(1) = 65 + 17 = 82, P(4) = 65 + 68 = 133,
        // P(8) = P(12) = 133.
        let node = Node::new(NodeId(0), 4, 2, 8);
        let power = PowerModel::default();
        let watts: Vec<f64> = [0, 1, 4, 5, 8, 12]
            .iter()
            .map(|&n| power.power_watts(&node, n))
            .collect();
        assert_eq!(watts, vec![0.0, 82.0, 133.0, 133.0, 133.0, 133.0]);
    }

    #[test]
    fn disabled_cores_cap_the_dynamic_power() {
        // G1 node: one active core out of four. P(8) = 65 + 1 * 17 = 82.
        let node = Node::new(NodeId(0), 4, 2, 8).with_active_cores(1);
        assert_eq!(PowerModel::default().power_watts(&node, 8), 82.0);
    }

    #[test]
    fn check_rejects_nan_and_negative() {
        let nan = PowerModel {
            static_watts: f64::NAN,
            ..PowerModel::default()
        };
        assert!(matches!(
            nan.check(),
            Err(EnergyError::Value(ValueError::NotFinite {
                field: "static_watts",
                ..
            }))
        ));
        let negative = PowerModel {
            idle_watts: -1.0,
            ..PowerModel::default()
        };
        assert!(matches!(
            negative.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "idle_watts",
                ..
            }))
        ));
        assert_eq!(PowerModel::default().check(), Ok(PowerModel::default()));
    }
}
