//! A seeded, deterministic simulator of a MapReduce cluster with speculative execution, and
//! the seed paper's characterisation experiment built on it.
//!
//! [`simulate`] runs one job (the paper's WordCount-like job: 320 maps in two waves, then
//! 160 reduces) on a cluster of workers whose cores are partly disabled to inject
//! stragglers (Section 5.4), with a [`Detector`](straggler_detect::Detector) scanning the
//! running attempts and the engine launching speculative copies as the [`Policy`] allows.
//! The result is a [`Run`](straggler_model::Run): every attempt, the first detection of
//! every detected task and the load of every node over time.
//!
//! [`Evaluation`] runs the paper's matrix (homogeneous baselines for the usual times,
//! scenarios C1..C4, detectors Default, Hierarchical and LATE, repetitions) and gives
//! [`EvalResults`], the `stragglers.eval/1` document; [`report`] renders its tables.
//!
//! Same configuration and seed, same bytes of output, whatever the number of threads:
//! every run draws from its own ChaCha8 streams derived from the master seed and the run's
//! labels, and runs are collected in a fixed order.
#![deny(missing_docs)]

mod config;
mod engine;
mod error;
mod experiment;
mod oracle;
pub mod report;
mod rng;

pub use config::{Noise, Platform, Policy, Scenario, SimConfig, Speculation, Workload};
pub use engine::simulate;
pub use error::SimError;
pub use experiment::{
    Baseline, Cell, DetectorSpec, EvalConfig, EvalResults, Evaluation, RunMetrics, SCHEMA,
};
pub use oracle::{oracle_for, straggler_times};
