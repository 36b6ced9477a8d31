//! **stragglers** tells how good a straggler detector really is.
//!
//! Big-data engines (Hadoop, Spark, Tez) relaunch slow tasks as speculative copies; whether
//! that helps depends on *detecting* the right tasks early. This crate gathers the
//! workspace's parts, each usable on its own:
//!
//! - [`model`]: tasks, attempts, nodes, runs, and the columnar [`Snapshot`](model::Snapshot)
//!   detectors scan;
//! - [`detect`]: the [`Detector`](detect::Detector) trait, the detectors of the seed
//!   papers (Default, LATE and Hierarchical; eSplash, DSB, Garraghan et al., the
//!   DoS-index) and of the engines (Hadoop 1 and 2, Spark, LATE as Zaharia published it),
//!   an oracle, and the [conformance kit](detect::conformance) a detector of one's own
//!   runs through (`docs/writing-a-detector.md` says how to write one);
//! - [`truth`]: ground truth, the usual execution time as a quantile of homogeneous runs;
//! - [`metrics`]: Precision, Recall, Detection Latency, Undetected Time, Fake Positive and
//!   the efficiency metrics, with confidence intervals over repetitions;
//! - [`energy`]: the power and slowdown model and the first-order predictor of the seed
//!   paper's Section 4;
//! - [`sim`]: the cluster simulator and the paper's evaluation;
//! - [`trace`]: real Hadoop and Spark logs, their stragglers, the speculation that ran and
//!   detectors replayed over them.
//!
//! The evaluation of the seed paper (Phan et al., TOMPECS 2019, Tables 5 and 6) in a few
//! lines, with a smaller number of repetitions:
//!
//! ```
//! use stragglers::sim::{Evaluation, report};
//!
//! let mut evaluation = Evaluation::paper();
//! evaluation.config_mut().repetitions = 2;
//! evaluation.config_mut().baseline_runs = 3;
//! evaluation.config_mut().scenarios.truncate(1);
//! let results = evaluation.run()?;
//! let c1_default = results.cell("table6", "C1", "x100", "default").expect("cell ran");
//! assert!(c1_default.metrics["recall"].mean.is_some());
//! println!("{}", report::text(&results));
//! # Ok::<(), stragglers::sim::SimError>(())
//! ```
#![deny(missing_docs)]

pub use straggler_detect as detect;
pub use straggler_energy as energy;
pub use straggler_metrics as metrics;
pub use straggler_model as model;
pub use straggler_sim as sim;
pub use straggler_trace as trace;
pub use straggler_truth as truth;

/// The names most programs need.
pub mod prelude {
    pub use straggler_detect::{
        DefaultDetector, Detector, Findings, GroupSums, Hierarchical, HierarchicalParams,
        LateDetector, Parallelism, SlowNodeRule,
    };
    pub use straggler_model::{
        AttemptId, AttemptRole, AttemptStatus, NodeId, Observation, Run, Snapshot, SnapshotRow,
        StageId, TaskId,
    };
    pub use straggler_sim::{DetectorSpec, EvalConfig, Evaluation, Scenario, SimConfig, simulate};
}
