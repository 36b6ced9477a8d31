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
/// for WordCount maps (Fig. 1). Each power lies in `[0, 1e6]` W
/// ([`PowerModel::MAX_WATTS`]).
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
    /// The largest power, in watts, that [`PowerModel::check`] accepts in each field: a
    /// megawatt, far above what one node draws (a whole rack draws tens of kilowatts). It
    /// keeps [`PowerModel::power_watts`] finite for any node: at most
    /// `1e6 + u32::MAX * 1e6 ~ 4.3e15` W.
    pub const MAX_WATTS: f64 = 1e6;

    /// Checks that every power is finite, `>= 0` and at most [`PowerModel::MAX_WATTS`];
    /// returns the checked model.
    pub fn check(self) -> Result<Self, EnergyError> {
        check_watts("static_watts", self.static_watts)?;
        check_watts("dynamic_watts", self.dynamic_watts)?;
        check_watts("idle_watts", self.idle_watts)?;
        Ok(self)
    }

    /// The power, in watts, of `node` running `running` tasks.
    ///
    /// Finite and `>= 0` for a checked model, whatever the node. Precondition: `node`
    /// satisfies `Node::check` (at least one active core, at most `cores`); this function
    /// runs once per load change of the simulator and does not check it. On a node without
    /// an active core it returns `static_watts` for any `running >= 1`, which describes no
    /// real node: the `Result`-returning [`node_energy_joules`](crate::node_energy_joules)
    /// and [`run_energy_joules`](crate::run_energy_joules) reject such a node.
    pub fn power_watts(&self, node: &Node, running: u32) -> f64 {
        if running == 0 {
            return self.idle_watts;
        }
        let busy_cores = running.min(node.active_cores);
        self.static_watts + f64::from(busy_cores) * self.dynamic_watts
    }
}

/// Checks one power: finite, `>= 0`, at most [`PowerModel::MAX_WATTS`]. Two ranges, so
/// that a negative power reads `>= 0` and a huge one names the bound.
fn check_watts(field: &'static str, watts: f64) -> Result<(), EnergyError> {
    check_range(field, watts, 0.0, f64::MAX, ">= 0")?;
    check_range(
        field,
        watts,
        0.0,
        PowerModel::MAX_WATTS,
        "at most 1e6 W (a megawatt, more than any one node draws)",
    )?;
    Ok(())
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

    #[test]
    fn check_bounds_each_power_to_a_megawatt() {
        // The review's model: f64::MAX static and dynamic watts passed the check and gave
        // P(4) = MAX + 4 * MAX = inf.
        let huge = PowerModel {
            static_watts: f64::MAX,
            dynamic_watts: f64::MAX,
            idle_watts: 0.0,
        };
        assert_eq!(
            huge.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "static_watts",
                value: f64::MAX,
                range: "at most 1e6 W (a megawatt, more than any one node draws)",
            }))
        );
        let huge_dynamic = PowerModel {
            dynamic_watts: 1e6 + 1.0,
            ..PowerModel::default()
        };
        assert!(matches!(
            huge_dynamic.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "dynamic_watts",
                ..
            }))
        ));
        // At the bound the power stays finite even on u32::MAX busy cores:
        // P = 1e6 + 4294967295 * 1e6 = 4294967296e6 = 4.294967296e15 W.
        let largest = PowerModel {
            static_watts: 1e6,
            dynamic_watts: 1e6,
            idle_watts: 1e6,
        }
        .check()
        .expect("at the bound");
        let node = Node::new(NodeId(0), u32::MAX, 1, 1);
        assert_eq!(largest.power_watts(&node, u32::MAX), 4.294967296e15);
        assert_eq!(largest.power_watts(&node, 0), 1e6);
    }
}
