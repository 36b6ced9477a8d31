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
//! scenarios C1..C4, detectors Default, Hierarchical and LATE, repetitions; Figure 3's
//! lags; Table 7's six reservation policies in C2) and gives [`EvalResults`], the
//! `stragglers.eval/1` document; [`report`] renders its tables. What the engine does with
//! a detection (copies per task, launches per scan, caps, placement) is
//! [`CopyControls`], separate from the detector.
//!
//! [`DetectorSpec`] makes each built-in detector, with its parameters as a
//! [`toml::Table`] that [`DetectorSpec::tuned`] changes (`toml` is re-exported for it).
//!
//! Same configuration and seed, same bytes of output, whatever the number of threads:
//! every run draws from its own ChaCha8 streams derived from the master seed and the run's
//! labels, and runs are collected in a fixed order.
#![deny(missing_docs)]

mod catalogue;
pub mod causes;
mod config;
mod engine;
mod error;
mod experiment;
mod fleet;
mod fleet_queue;
pub mod limits;
mod oracle;
pub mod report;
mod rng;
mod scenario;
mod toml_file;
mod tuning;
mod unquoted;
pub use tuning::{split_list, split_params};

pub use config::{
    CopyCaps, CopyControls, CopyPlacement, Noise, Platform, Policy, Scenario, SimConfig,
    Speculation, Workload,
};
pub use engine::{Outcome, simulate, simulate_outcome};
pub use error::SimError;
pub use experiment::{
    Baseline, Cell, ConfigText, DETECTORS_KEY, DetectorRecord, DetectorSpec, EvalConfig,
    EvalResults, Evaluation, Fig3Config, KilledOriginalTime, Labelling, RunMetrics, SCHEMA,
    Table7Config,
};
pub use fleet::{Progress, RunOptions, ScenarioOutcome, Summary, simulate_scenario};
pub use oracle::{oracle_for, straggler_times};
pub use scenario::{ClusterSpec, JobsSpec, PRESETS, ScenarioSpec, SpeculationSpec};
/// The TOML crate of [`DetectorSpec::tuned`]'s tables and of the scenario and evaluation
/// files.
pub use toml;
