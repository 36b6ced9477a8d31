//! The speed of tasks sharing a node: an explicit model of Section 4.1's two bottlenecks.

use serde::{Deserialize, Serialize};
use straggler_model::{Node, check_range};

use crate::EnergyError;

/// How fast each task runs when `n` tasks share a node (seed paper, Section 4.1,
/// "Execution time").
///
/// The paper names two bottlenecks without a formula: tasks on the same *core* share its
/// processing power (the compute part of a task slows down), tasks on the same *node*
/// share memory and high-level cache (the data-access part slows down). This model makes
/// both explicit. For a node with `c` active cores of `t` threads each and `n` running
/// tasks (`n = 0` is treated as 1):
///
/// ```text
/// h             = min(n, c*t)                              hardware threads in use
/// capacity      = c + smt_gain * max(h - c, 0)             compute, in core-equivalents
/// compute_rate  = min(1, capacity / n)                     fair share per task
/// data_slowdown = 1 + memory_contention * (h - 1)
/// time_per_work = compute_fraction / compute_rate
///               + (1 - compute_fraction) * data_slowdown * n / h
/// rate          = 1 / time_per_work                        work-seconds per second
/// ```
///
/// Assumptions: the operating system spreads threads evenly over the cores (the paper's
/// "scattered-thread strategy") and shares compute fairly among tasks; a second hardware
/// thread on a core adds `smt_gain` of a core; beyond `c*t` tasks time-share the threads:
/// each runs `h / n` of the time, alongside `h - 1` others, so that both parts of its
/// time stretch by `n / h` (`n / h = 1` up to `c*t`); memory contention grows linearly
/// with the number of co-running tasks. A task alone on an idle node runs at rate 1.
///
/// `compute_fraction` and `smt_gain` lie in `[0, 1]`, `memory_contention` in `[0, 1e6]`
/// ([`SlowdownModel::MAX_MEMORY_CONTENTION`]). A term whose weight is 0 is left out (a
/// compute-only task has no data term, a data-only task no compute term).
///
/// The defaults (`compute_fraction = 0.9`, `smt_gain = 0.25`, `memory_contention = 0.02`)
/// are *assumptions* for a CPU-bound WordCount, not values measured in the paper. The
/// presets [`SlowdownModel::compute_bound`] and [`SlowdownModel::data_bound`] are the two
/// ends the paper contrasts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SlowdownModel {
    /// Share of a task's time spent computing when it runs alone, in `[0, 1]`.
    pub compute_fraction: f64,
    /// Extra compute a second hardware thread gives a core, in `[0, 1]` of a core.
    pub smt_gain: f64,
    /// Slowdown of the data-access part per extra task on the node, in `[0, 1e6]`.
    pub memory_contention: f64,
}

impl Default for SlowdownModel {
    fn default() -> Self {
        SlowdownModel {
            compute_fraction: 0.9,
            smt_gain: 0.25,
            memory_contention: 0.02,
        }
    }
}

impl SlowdownModel {
    /// Preset: a purely compute-bound task (`compute_fraction = 1`,
    /// `memory_contention = 0`, `smt_gain = 0.25`): only core sharing slows it down.
    pub fn compute_bound() -> Self {
        SlowdownModel {
            compute_fraction: 1.0,
            smt_gain: 0.25,
            memory_contention: 0.0,
        }
    }

    /// Preset: a data-bound task (`compute_fraction = 0.3`, `memory_contention = 0.1`,
    /// `smt_gain = 0.25`): node sharing dominates the slowdown.
    pub fn data_bound() -> Self {
        SlowdownModel {
            compute_fraction: 0.3,
            smt_gain: 0.25,
            memory_contention: 0.1,
        }
    }

    /// The largest `memory_contention` that [`SlowdownModel::check`] accepts: `1e6`.
    ///
    /// Derived from the formula: on a node with `c >= 1` active cores and `t >= 1` threads,
    /// `compute_rate >= 1/n`, so for every `n >= 1`
    ///
    /// ```text
    /// time_per_work <= compute_fraction * n + (1 - compute_fraction) * (1 + memory_contention * (h - 1)) * n / h
    ///               <= n * (1 + memory_contention)
    /// ```
    ///
    /// With `n <= u32::MAX` and `memory_contention <= 1e6` that is at most `4.3e15`: the
    /// rate is finite, at least `2.3e-16` (a normal number, so a task's remaining work
    /// divided by it stays finite) and, since `time_per_work >= 1`, at most 1. Without a
    /// bound, `memory_contention * (h - 1)` overflows to infinity and the rate is 0 (or NaN).
    /// The presets use 0.02 and 0.1.
    pub const MAX_MEMORY_CONTENTION: f64 = 1e6;

    /// Checks `compute_fraction` and `smt_gain` in `[0, 1]` and `memory_contention` in
    /// `[0, 1e6]` ([`SlowdownModel::MAX_MEMORY_CONTENTION`]); returns the checked model.
    pub fn check(self) -> Result<Self, EnergyError> {
        check_range(
            "compute_fraction",
            self.compute_fraction,
            0.0,
            1.0,
            "in [0, 1]",
        )?;
        check_range("smt_gain", self.smt_gain, 0.0, 1.0, "in [0, 1]")?;
        check_range(
            "memory_contention",
            self.memory_contention,
            0.0,
            f64::MAX,
            ">= 0",
        )?;
        check_range(
            "memory_contention",
            self.memory_contention,
            0.0,
            Self::MAX_MEMORY_CONTENTION,
            "at most 1e6, which keeps every rate in (0, 1]",
        )?;
        Ok(self)
    }

    /// The speed (work-seconds per second) of each of the `running` tasks on `node`.
    ///
    /// For a checked model and a node that satisfies `Node::check` (at least one active
    /// core and one thread per core), the rate is finite, positive and at most 1, for every
    /// `running` (see [`SlowdownModel::MAX_MEMORY_CONTENTION`]). A part whose weight is 0
    /// costs nothing: a compute-only task (`compute_fraction = 1`) ignores memory
    /// contention, a data-only one (`compute_fraction = 0`) ignores the cores' compute (it
    /// still needs a hardware thread: beyond `c*t` tasks it time-shares them).
    ///
    /// Precondition, not checked here (the simulator calls this at every change of a node's
    /// load): the node satisfies `Node::check`. The `Result`-returning
    /// [`node_energy_joules`](crate::node_energy_joules) and
    /// [`run_energy_joules`](crate::run_energy_joules) check it. Outside it the result is
    /// still a number in `[0, 1]` but describes no real node: with no active core (no
    /// hardware thread) a task does not progress (rate 0).
    pub fn rate(&self, node: &Node, running: u32) -> f64 {
        let n = f64::from(running.max(1));
        let cores = f64::from(node.active_cores);
        let threads = f64::from(node.active_cores.saturating_mul(node.threads_per_core));
        let in_use = n.min(threads);
        let capacity = cores + self.smt_gain * (in_use - cores).max(0.0);
        let compute_rate = (capacity / n).min(1.0);
        let compute_time = if self.compute_fraction == 0.0 {
            0.0
        } else {
            self.compute_fraction / compute_rate
        };
        let data_time = if self.compute_fraction == 1.0 {
            0.0
        } else {
            // Beyond c*t tasks time-share the threads: each runs `in_use / n` of the time,
            // alongside `in_use - 1` others (no thread at all: no progress, time inf).
            let data_slowdown = 1.0 + self.memory_contention * (in_use - 1.0).max(0.0);
            (1.0 - self.compute_fraction) * data_slowdown * (n / in_use)
        };
        let time_per_work = compute_time + data_time;
        if time_per_work.is_infinite() {
            0.0
        } else {
            1.0 / time_per_work
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use straggler_model::{NodeId, ValueError};

    fn node(active_cores: u32) -> Node {
        Node::new(NodeId(0), 4, 2, 8).with_active_cores(active_cores)
    }

    #[test]
    fn a_task_alone_runs_at_full_speed() {
        // n = 1: h = 1, capacity = 4, compute_rate = 1, data = 1, time = 0.9 + 0.1 = 1.
        assert_relative_eq!(SlowdownModel::default().rate(&node(4), 1), 1.0);
        // n = 0 is treated as 1.
        assert_relative_eq!(SlowdownModel::default().rate(&node(4), 0), 1.0);
    }

    #[test]
    fn one_task_per_core_pays_only_memory_contention() {
        // n = 4, c = 4: compute_rate = 1, data = 1 + 0.02 * 3 = 1.06,
        // time = 0.9 + 0.1 * 1.06 = 1.006.
        assert_relative_eq!(SlowdownModel::default().rate(&node(4), 4), 1.0 / 1.006);
    }

    #[test]
    fn hyper_threads_add_a_quarter_core() {
        // n = 8, c = 4, t = 2: h = 8, capacity = 4 + 0.25 * 4 = 5, compute_rate = 5/8 =
        // 0.625, data = 1 + 0.02 * 7 = 1.14, time = 0.9 / 0.625 + 0.1 * 1.14 = 1.44 +
        // 0.114 = 1.554.
        assert_relative_eq!(SlowdownModel::default().rate(&node(4), 8), 1.0 / 1.554);
    }

    #[test]
    fn beyond_all_threads_tasks_time_share() {
        // n = 12, c = 4, t = 2: h = 8, capacity = 5, compute_rate = 5/12,
        // data = 1 + 0.02 * 7 = 1.14 while running, 12 / 8 = 1.5 times as long,
        // time = 0.9 * 12 / 5 + 0.1 * 1.14 * 1.5 = 2.16 + 0.171 = 2.331.
        assert_relative_eq!(SlowdownModel::default().rate(&node(4), 12), 1.0 / 2.331);
    }

    #[test]
    fn a_one_core_node_full_of_tasks_is_slow() {
        // G1 node, c = 1, t = 2, n = 8: h = 2, capacity = 1.25, compute_rate = 0.15625,
        // data = 1 + 0.02 * 1 = 1.02 while running, 8 / 2 = 4 times as long,
        // time = 0.9 / 0.15625 + 0.1 * 1.02 * 4 = 5.76 + 0.408 = 6.168.
        assert_relative_eq!(SlowdownModel::default().rate(&node(1), 8), 1.0 / 6.168);
    }

    #[test]
    fn beyond_all_threads_the_data_part_time_shares_too() {
        // A data-only task without contention (compute_fraction 0, memory_contention 0)
        // on one core of one thread: alone, time 1. Two tasks share the one hardware
        // thread, each runs half the time: time 1 * 2 / 1 = 2, rate 1/2. It was rate 1:
        // two tasks on one thread, each as fast as alone, and n tasks did n times the work.
        let model = SlowdownModel {
            compute_fraction: 0.0,
            smt_gain: 0.0,
            memory_contention: 0.0,
        };
        let single = Node::new(NodeId(0), 1, 1, 8);
        assert_eq!(model.rate(&single, 1), 1.0);
        assert_eq!(model.rate(&single, 2), 0.5);
        // Eight on 4 cores x 2 threads (h = 8): no time-sharing, rate 1; twelve (h = 8):
        // time 12 / 8 = 1.5, rate 2/3. The node's throughput, 12 * 2/3 = 8, is that of
        // its 8 threads.
        assert_eq!(model.rate(&node(4), 8), 1.0);
        assert_relative_eq!(model.rate(&node(4), 12), 2.0 / 3.0);
        // Data-bound preset, G1 node (c = 1, t = 2), n = 8: h = 2, capacity = 1.25,
        // compute = 0.3 * 8 / 1.25 = 1.92, data = 0.7 * (1 + 0.1 * 1) * 8 / 2 = 3.08,
        // time = 5.0 (it was 1.92 + 0.7 * (1 + 0.1 * 7) = 1.92 + 1.19 = 3.11).
        assert_relative_eq!(SlowdownModel::data_bound().rate(&node(1), 8), 1.0 / 5.0);
    }

    #[test]
    fn presets() {
        // Compute-bound, n = 8 on 4x2: rate = capacity / n = 5 / 8.
        assert_relative_eq!(SlowdownModel::compute_bound().rate(&node(4), 8), 0.625);
        // Data-bound, n = 4 on 4x2: compute_rate = 1, data = 1 + 0.1 * 3 = 1.3,
        // time = 0.3 + 0.7 * 1.3 = 1.21.
        assert_relative_eq!(SlowdownModel::data_bound().rate(&node(4), 4), 1.0 / 1.21);
        assert!(SlowdownModel::compute_bound().check().is_ok());
        assert!(SlowdownModel::data_bound().check().is_ok());
    }

    #[test]
    fn zero_compute_fraction_never_divides_zero_by_zero() {
        // No compute part: time = data_slowdown = 1 + 0.02 * 7 = 1.14 on 4 x 2 threads.
        // With 0 cores (a node outside `rate`'s precondition: the result stays a number in
        // [0, 1]) there is no thread to run on: time inf, rate 0.
        let model = SlowdownModel {
            compute_fraction: 0.0,
            ..SlowdownModel::default()
        };
        assert_relative_eq!(model.rate(&node(4), 8), 1.0 / 1.14);
        assert_eq!(model.rate(&node(4).with_active_cores(0), 8), 0.0);
        // With a compute part and no core the task does not progress.
        assert_eq!(
            SlowdownModel::default().rate(&node(4).with_active_cores(0), 8),
            0.0
        );
    }

    #[test]
    fn a_compute_only_task_ignores_memory_contention() {
        // compute_fraction = 1: the data term has weight 0 and contributes nothing, even
        // when its slowdown 1 + MAX * 2 is infinite (it gave (1 - 1) * inf = NaN).
        // n = 3 on 4 cores: compute_rate = 1, time = 1, rate 1.
        let model = SlowdownModel {
            compute_fraction: 1.0,
            smt_gain: 0.25,
            memory_contention: f64::MAX,
        };
        assert_eq!(model.rate(&node(4), 3), 1.0);
        // n = 8 on 4x2: capacity = 5, rate = 5/8, as the compute-bound preset.
        assert_relative_eq!(model.rate(&node(4), 8), 0.625);
    }

    #[test]
    fn check_bounds_memory_contention() {
        // The review's model: compute_fraction 0.5 and memory_contention f64::MAX passed
        // the check and gave rate 0 for 3 tasks (time = 0.5 + 0.5 * inf).
        let huge = SlowdownModel {
            compute_fraction: 0.5,
            smt_gain: 0.25,
            memory_contention: f64::MAX,
        };
        assert_eq!(
            huge.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "memory_contention",
                value: f64::MAX,
                range: "at most 1e6, which keeps every rate in (0, 1]",
            }))
        );
        // The same with compute_fraction 1 is rejected too: a checked model is one whose
        // memory_contention is in range, whatever its weight.
        assert!(
            SlowdownModel {
                compute_fraction: 1.0,
                ..huge
            }
            .check()
            .is_err()
        );
        // At the bound, on the slowest node and the most tasks a u32 can count, the rate is
        // finite and positive. c = 1, t = 2, n = 4294967295: h = 2, capacity = 1.25,
        // compute_time = 0.5 * n / 1.25 = 0.4 n = 1717986918,
        // data_time = 0.5 * (1 + 1e6 * 1) * n / 2 = 250000.25 n = 1073742897491823.75,
        // time = 1073744615478741.75, rate = 9.3132015e-16.
        let largest = SlowdownModel {
            memory_contention: 1e6,
            ..huge
        }
        .check()
        .expect("at the bound");
        let rate = largest.rate(&node(1), u32::MAX);
        assert_relative_eq!(rate, 1.0 / 1_073_744_615_478_741.8, max_relative = 1e-12);
        assert!(rate.is_normal());
    }

    #[test]
    fn check_rejects_out_of_range() {
        let bad = SlowdownModel {
            compute_fraction: 1.5,
            ..SlowdownModel::default()
        };
        assert!(matches!(
            bad.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "compute_fraction",
                ..
            }))
        ));
        let bad = SlowdownModel {
            smt_gain: f64::NAN,
            ..SlowdownModel::default()
        };
        assert!(matches!(
            bad.check(),
            Err(EnergyError::Value(ValueError::NotFinite {
                field: "smt_gain",
                ..
            }))
        ));
        let bad = SlowdownModel {
            memory_contention: -0.1,
            ..SlowdownModel::default()
        };
        assert!(matches!(
            bad.check(),
            Err(EnergyError::Value(ValueError::OutOfRange {
                field: "memory_contention",
                ..
            }))
        ));
    }
}
