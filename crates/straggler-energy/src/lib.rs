//! Power, slowdown and energy of worker nodes, and the first-order predictor of the time
//! and energy overheads of speculative execution from detection metrics.
//!
//! Everything here follows Section 4 of the seed paper (Phan, Pallez, Ibrahim, Raghavan,
//! *A new framework for evaluating straggler detection mechanisms in MapReduce*, TOMPECS
//! 2019). `docs/formulas.md` lists the same formulas with one worked example each.
//!
//! # Power (Section 4.1, the unnumbered equation after Fig. 1)
//!
//! For a node with `c` active cores of `t` hardware threads each, running `n` tasks:
//!
//! ```text
//! P(n) = P_idle                    for n = 0      (paper: 0, the node is "turned off")
//!      = P_static + n * P_dyn      for 1 <= n <= c
//!      = P_static + c * P_dyn      for n > c      (paper: c < n <= c*t)
//! ```
//!
//! with the paper's measured `P_static = 65 W`, `P_dyn = 17 W` (Fig. 1). Beyond `c*t`
//! tasks time-share the hardware threads and the power stays at `P_static + c * P_dyn`.
//! See [`PowerModel`].
//!
//! # Slowdown (Section 4.1, "Execution time")
//!
//! The paper names two bottlenecks (tasks sharing a core share its compute; tasks sharing
//! a node share memory and cache) but gives no formula. [`SlowdownModel`] makes them
//! explicit; with `h = min(n, c*t)` hardware threads in use:
//!
//! ```text
//! capacity     = c + smt_gain * max(h - c, 0)            (core-equivalents)
//! compute_rate = min(1, capacity / n)                    (fair share)
//! data_slow    = 1 + memory_contention * (h - 1)
//! time_per_work = compute_fraction / compute_rate + (1 - compute_fraction) * data_slow * n / h
//! rate          = 1 / time_per_work
//! ```
//!
//! Beyond `c*t` tasks time-share the threads: each runs `h / n` of the time, so both
//! parts stretch by `n / h` (1 up to `c*t`).
//!
//! # Energy
//!
//! The energy of a node is the exact integral of `P(n(t))` over `[0, end]` for its
//! piecewise-constant load `n(t)` ([`node_energy_joules`], [`run_energy_joules`]). A run
//! built from a scheduler's own records takes that load from its attempts
//! (`Run::load_from_attempts` of `straggler-model`).
//!
//! # First-order predictor (Section 4.2)
//!
//! Per task, in units of the usual execution time (time) and of
//! `(P_static + P_dyn) x usual time` (energy), with straggler ratio `alpha`, precision `p`,
//! recall `r`, Detection Latency `DL` and Undetected Time `UT`:
//!
//! ```text
//! case          probability                     time      energy
//! stg & det     r * alpha                       1 + DL    2 + DL
//! stg & !det    (1 - r) * alpha                 UT        UT
//! !stg & det    r * alpha * (1 - p) / p         1         1.5
//! !stg & !det   1 - alpha * (1 + r (1 - p) / p) 1         1
//! ```
//!
//! See [`FirstOrderInputs::predict`]; `p` is `straggler-metrics`' `precision_raw`, and
//! [`FirstOrderInputs::from_metrics`] takes one run's metrics, undefined where unused.
#![deny(missing_docs)]

mod energy;
mod error;
mod first_order;
mod power;
mod slowdown;

pub use energy::{node_energy_joules, run_energy_joules};
pub use error::EnergyError;
pub use first_order::{FirstOrderInputs, Prediction};
pub use power::PowerModel;
pub use slowdown::SlowdownModel;
