//! The seed paper's characterisation experiment (Sections 6.1-6.3): homogeneous baseline
//! runs give each task's usual execution time (Table 5), then every detector runs in every
//! scenario and policy, repeated with different seeds, and every metric is reported as a
//! mean with a 95% confidence half-width (Table 6).

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use straggler_detect::{
    DefaultDetector, Detector, Hadoop1, HadoopSpeculator, Hierarchical, HierarchicalParams,
    LateDetector, SparkDetector, SparkParams, ZahariaLate,
};
use straggler_detect::{
    DosIndex, DosIndexParams, GarraghanDetector, GarraghanMode, GarraghanParams,
};
use straggler_metrics::{Summary, TaskRecord, detection_metrics, efficiency_metrics, summarize};
use straggler_model::{Run, TaskKind, TimeSource};
use straggler_truth::{
    QuantileRatio, StragglerRule, UsualTimes, baseline_samples, straggler_ratios,
};

use crate::error::check;
use crate::rng::label;
use crate::{Policy, Scenario, SimConfig, SimError, simulate};

/// The schema tag of [`EvalResults`].
pub const SCHEMA: &str = "stragglers.eval/1";

/// A detector to evaluate: its name in results and how to make a fresh one for each run.
#[derive(Clone)]
pub struct DetectorSpec {
    name: String,
    description: String,
    make: Arc<dyn Fn() -> Box<dyn Detector> + Send + Sync>,
}

impl std::fmt::Debug for DetectorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetectorSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DetectorSpec {
    /// A detector named `name`, described in one line, made by `make` for every run.
    pub fn new(
        name: &str,
        description: &str,
        make: impl Fn() -> Box<dyn Detector> + Send + Sync + 'static,
    ) -> Self {
        DetectorSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            make: Arc::new(make),
        }
    }
    /// One line on what it does and where it comes from.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// The name used in results.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// A fresh detector.
    pub fn make(&self) -> Box<dyn Detector> {
        (self.make)()
    }
    /// The paper's three detectors with their default parameters, in its order: Default,
    /// Hierarchical (over Default), LATE.
    pub fn paper() -> Vec<DetectorSpec> {
        vec![
            DetectorSpec::new(
                "default",
                "progress score below the stage's mean minus 0.2 (Dean & Ghemawat; seed 000, Eq. 6)",
                || Box::new(DefaultDetector::default()),
            ),
            DetectorSpec::new(
                "hierarchical",
                "Default's detections kept on nodes below 0.9 x the mean node speed (seed 000, Sec. 5.5)",
                || {
                    let params = HierarchicalParams::default()
                        .check()
                        .expect("default parameters are valid");
                    Box::new(Hierarchical::new(DefaultDetector::default(), params))
                },
            ),
            DetectorSpec::new(
                "late",
                "progress rate below the stage's mean minus 1 standard deviation (seed 000, Eqs. 7-10)",
                || Box::new(LateDetector::default()),
            ),
        ]
    }

    /// The paper's three detectors, then the engines' own rules for comparison: Hadoop 1,
    /// Hadoop 2's speculator over its three runtime estimators, Spark with the 4.0 and the
    /// older defaults, LATE as Zaharia published it, and seed 004's Garraghan et al. and
    /// DoS-index rules.
    pub fn all() -> Vec<DetectorSpec> {
        let mut all = DetectorSpec::paper();
        all.extend([
            DetectorSpec::new(
                "hadoop1",
                "Hadoop 1: progress 0.2 below the stage mean after 60 s, one attempt running",
                || Box::new(Hadoop1::default()),
            ),
            DetectorSpec::new(
                "hadoop-legacy",
                "Hadoop 2 DefaultSpeculator, legacy estimator (elapsed / progress)",
                || Box::new(HadoopSpeculator::legacy()),
            ),
            DetectorSpec::new(
                "hadoop-exp-smoothed",
                "Hadoop 2 DefaultSpeculator, exponentially smoothed rate (lambda 60 s)",
                || Box::new(HadoopSpeculator::exp_smoothed()),
            ),
            DetectorSpec::new(
                "hadoop-simple-exp",
                "Hadoop 2 DefaultSpeculator, simple exponential estimator (seed 003, Alg. 1-2)",
                || Box::new(HadoopSpeculator::simple_exp()),
            ),
            DetectorSpec::new(
                "spark",
                "Spark 4: runtime above 3 x the median of 90% finished, efficiency check",
                || Box::new(SparkDetector::default()),
            ),
            DetectorSpec::new(
                "spark-legacy",
                "Spark before 4.0: runtime above 1.5 x the median of 75% finished",
                || {
                    let params = SparkParams::legacy()
                        .check()
                        .expect("preset parameters are valid");
                    Box::new(SparkDetector::new(params))
                },
            ),
            DetectorSpec::new(
                "late-zaharia",
                "LATE (OSDI 2008): 25th-percentile rate, 10% cap, longest time left first",
                || Box::new(ZahariaLate::default()),
            ),
        ]);
        all.extend(seed004_detectors());
        all
    }
}

/// Seed 004's detectors (Garraghan et al.): the combined, offline and online tests, and
/// the DoS-index rule at 2.5 and at 10.
fn seed004_detectors() -> Vec<DetectorSpec> {
    let garraghan = |mode: GarraghanMode| -> Box<dyn Detector> {
        let params = GarraghanParams {
            mode,
            ..GarraghanParams::default()
        };
        Box::new(GarraghanDetector::new(
            params.check().expect("preset parameters are valid"),
        ))
    };
    vec![
        DetectorSpec::new(
            "garraghan",
            "Garraghan: progress below the fitted model stretched by Diff 0.5 and below half the stage median (seed 004, Sec. 6)",
            move || garraghan(GarraghanMode::Combined),
        ),
        DetectorSpec::new(
            "garraghan-offline",
            "Garraghan offline: progress below the fitted progress model stretched by Diff 0.5 (seed 004, Eq. 3)",
            move || garraghan(GarraghanMode::Offline),
        ),
        DetectorSpec::new(
            "garraghan-online",
            "Garraghan online: progress below half the median progress of the stage (seed 004, Sec. 6.2)",
            move || garraghan(GarraghanMode::Online),
        ),
        DetectorSpec::new(
            "dos-index",
            "DoS-index >= 2.5: time per input byte against the stage's (seed 004, Eq. 1)",
            || Box::new(DosIndex::default()),
        ),
        DetectorSpec::new(
            "dos-index-10",
            "DoS-index >= 10, the extreme stragglers of seed 004's diagnosis (Eq. 1)",
            || {
                let params = DosIndexParams::diagnosis()
                    .check()
                    .expect("preset parameters are valid");
                Box::new(DosIndex::new(params))
            },
        ),
    ]
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalConfig {
    /// Master seed; every run's randomness derives from it.
    pub seed: u64,
    /// Repetitions of every cell (paper: 10).
    pub repetitions: u32,
    /// Homogeneous baseline runs (paper: 10).
    pub baseline_runs: u32,
    /// The quantile X of the baseline times taken as usual time (paper: 0.5).
    pub usual_quantile: f64,
    /// A task is a straggler iff its time exceeds this factor times its usual time (1.2).
    pub straggler_factor: f64,
    /// The quantiles of Table 5.
    pub table5_quantiles: Vec<f64>,
    /// The scenarios (C1..C4).
    pub scenarios: Vec<Scenario>,
    /// The speculation policies (x100 for Table 6, and Shared).
    pub policies: Vec<Policy>,
    /// Platform, job, noise, speculation and models; the policy is set per cell.
    pub sim: SimConfig,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            seed: 2019,
            repetitions: 10,
            baseline_runs: 10,
            usual_quantile: 0.5,
            straggler_factor: 1.2,
            table5_quantiles: vec![0.25, 0.5, 0.6, 0.7, 0.9],
            scenarios: Scenario::paper(),
            policies: vec![Policy::X100, Policy::Shared],
            sim: SimConfig::default(),
        }
    }
}

/// The paper's experiment, ready to run.
#[derive(Debug, Clone)]
pub struct Evaluation {
    config: EvalConfig,
    detectors: Vec<DetectorSpec>,
}

impl Default for Evaluation {
    fn default() -> Self {
        Evaluation::paper()
    }
}

impl Evaluation {
    /// Tables 5 and 6 as in the paper: default configuration, its three detectors.
    pub fn paper() -> Self {
        Evaluation {
            config: EvalConfig::default(),
            detectors: DetectorSpec::paper(),
        }
    }
    /// The same experiment with another configuration.
    pub fn with_config(mut self, config: EvalConfig) -> Self {
        self.config = config;
        self
    }
    /// The same experiment with other detectors.
    pub fn with_detectors(mut self, detectors: Vec<DetectorSpec>) -> Self {
        self.detectors = detectors;
        self
    }
    /// The configuration.
    pub fn config(&self) -> &EvalConfig {
        &self.config
    }
    /// Mutable access to the configuration.
    pub fn config_mut(&mut self) -> &mut EvalConfig {
        &mut self.config
    }

    /// Runs the baselines then every cell, in parallel on rayon's pool.
    pub fn run(&self) -> Result<EvalResults, SimError> {
        let config = &self.config;
        config.sim.check()?;
        let rule = StragglerRule {
            factor: config.straggler_factor,
        }
        .check()?;
        check("repetitions", f64::from(config.repetitions), ">= 1", |v| {
            v >= 1.0
        })?;
        check(
            "baseline_runs",
            f64::from(config.baseline_runs),
            ">= 1",
            |v| v >= 1.0,
        )?;
        check("usual_quantile", config.usual_quantile, "in [0, 1]", |q| {
            (0.0..=1.0).contains(&q)
        })?;
        for &q in &config.table5_quantiles {
            check("table5_quantiles", q, "in [0, 1]", |q| {
                (0.0..=1.0).contains(&q)
            })?;
        }

        let homogeneous = Scenario::homogeneous();
        let baseline_runs: Vec<Run> = (0..config.baseline_runs)
            .into_par_iter()
            .map(|r| {
                simulate(
                    &config.sim,
                    &homogeneous,
                    run_seed(config.seed, "baseline", r),
                    None,
                )
            })
            .collect::<Result<_, _>>()?;
        let usual = UsualTimes::from_runs(&baseline_runs, config.usual_quantile)?;
        // Table 5 is over map executions, as in the paper (21 outliers among 3200 maps).
        let samples: Vec<_> = baseline_samples(&baseline_runs)?
            .into_iter()
            .filter(|(key, _)| key.kind == TaskKind::Map)
            .collect();
        let quantiles = straggler_ratios(&samples, &config.table5_quantiles, rule)?;
        drop(baseline_runs);

        let mut cells: Vec<(Scenario, Policy, &DetectorSpec)> = Vec::new();
        for scenario in &config.scenarios {
            for &policy in &config.policies {
                for detector in &self.detectors {
                    cells.push((scenario.clone(), policy, detector));
                }
            }
        }
        let jobs: Vec<(usize, u32)> = (0..cells.len())
            .flat_map(|c| (0..config.repetitions).map(move |r| (c, r)))
            .collect();
        let per_run: Vec<RunMetrics> = jobs
            .par_iter()
            .map(|&(c, r)| {
                let (scenario, policy, detector) = &cells[c];
                let sim = SimConfig {
                    speculation: crate::Speculation {
                        policy: *policy,
                        ..config.sim.speculation
                    },
                    ..config.sim.clone()
                };
                let mut detector = detector.make();
                let run = simulate(
                    &sim,
                    scenario,
                    run_seed(config.seed, &scenario.name, r),
                    Some(detector.as_mut()),
                )?;
                RunMetrics::of(&run, &usual, rule, &sim)
            })
            .collect::<Result<_, _>>()?;

        let reps = config.repetitions as usize;
        let cells = cells
            .iter()
            .zip(per_run.chunks(reps))
            .map(|((scenario, policy, detector), runs)| Cell {
                experiment: "table6".to_owned(),
                scenario: scenario.name.clone(),
                policy: policy.name(),
                detector: detector.name().to_owned(),
                params: BTreeMap::from([
                    (
                        "speculative_lag_secs".to_owned(),
                        serde_json::json!(config.sim.speculation.lag_secs),
                    ),
                    (
                        "scan_interval_secs".to_owned(),
                        serde_json::json!(config.sim.speculation.scan_interval_secs),
                    ),
                    (
                        "heartbeat_secs".to_owned(),
                        serde_json::json!(config.sim.speculation.heartbeat_secs),
                    ),
                    (
                        "wait_for_pending_tasks".to_owned(),
                        serde_json::json!(config.sim.speculation.wait_for_pending_tasks),
                    ),
                    (
                        "straggler_factor".to_owned(),
                        serde_json::json!(config.straggler_factor),
                    ),
                    (
                        "usual_quantile".to_owned(),
                        serde_json::json!(config.usual_quantile),
                    ),
                    (
                        "killed_original_time".to_owned(),
                        serde_json::json!("estimated_from_progress"),
                    ),
                ]),
                repetitions: config.repetitions,
                metrics: summarize_runs(runs),
            })
            .collect();

        Ok(EvalResults {
            schema: SCHEMA.to_owned(),
            config: config.clone(),
            baseline: Baseline {
                runs: config.baseline_runs,
                usual_times: usual.len(),
                quantiles,
            },
            cells,
        })
    }
}

/// The seed of repetition `repetition` of `scenario`: the same for every detector and
/// policy, so that they are compared on the same draws (common random numbers).
fn run_seed(master: u64, scenario: &str, repetition: u32) -> u64 {
    crate::rng::Stream::new(master, &[label(scenario), u64::from(repetition)]).seed()
}

/// The metrics of one run, by name (`None` where undefined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics(pub BTreeMap<String, Option<f64>>);

impl RunMetrics {
    /// Labels the run's tasks against the usual times and computes every metric.
    pub fn of(
        run: &Run,
        usual: &UsualTimes,
        rule: StragglerRule,
        sim: &SimConfig,
    ) -> Result<Self, SimError> {
        let detections = run.first_detection_secs();
        let mut records = Vec::with_capacity(run.tasks.len());
        let mut estimated = 0usize;
        for ((task, original), first_detection_secs) in
            run.tasks.iter().zip(run.original_times()).zip(detections)
        {
            let original = original.ok_or(SimError::Unlabelled {
                key: task.key,
                reason: "its original attempt never ended",
            })?;
            let usual_secs = usual.get(&task.key).ok_or(SimError::Unlabelled {
                key: task.key,
                reason: "the baseline runs have no usual time for it",
            })?;
            estimated += usize::from(original.source == TimeSource::EstimatedFromProgress);
            records.push(TaskRecord {
                start_secs: original.start_secs,
                exec_secs: original.exec_secs,
                usual_secs,
                straggler: rule.is_straggler(original.exec_secs, usual_secs),
                first_detection_secs,
            });
        }
        let detection = detection_metrics(&records)?;
        let efficiency = efficiency_metrics(run)?;
        let energy = straggler_energy::run_energy_joules(run, &sim.power)?;
        let count = |n: usize| Some(n as f64);
        let stragglers = detection.true_positives + detection.false_negatives;
        Ok(RunMetrics(BTreeMap::from([
            ("precision".to_owned(), detection.precision),
            ("precision_raw".to_owned(), detection.precision_raw),
            ("recall".to_owned(), detection.recall),
            ("detection_latency".to_owned(), detection.detection_latency),
            ("undetected_time".to_owned(), detection.undetected_time),
            ("fake_positive".to_owned(), detection.fake_positive),
            (
                "execution_time_secs".to_owned(),
                Some(efficiency.execution_time_secs),
            ),
            ("energy_joules".to_owned(), Some(energy)),
            (
                "speculative_copies".to_owned(),
                count(efficiency.speculative_copies),
            ),
            (
                "successful_copies".to_owned(),
                count(efficiency.successful_copies),
            ),
            (
                "unsuccessful_copies".to_owned(),
                count(efficiency.unsuccessful_copies),
            ),
            (
                "wasted_container_secs".to_owned(),
                Some(efficiency.wasted_container_secs),
            ),
            ("heavy_tail_ratio".to_owned(), efficiency.heavy_tail_ratio),
            ("stragglers".to_owned(), count(stragglers)),
            (
                "straggler_ratio".to_owned(),
                Some(stragglers as f64 / records.len().max(1) as f64),
            ),
            (
                "detected".to_owned(),
                count(detection.true_positives + detection.false_positives),
            ),
            ("estimated_original_times".to_owned(), count(estimated)),
        ])))
    }
}

fn summarize_runs(runs: &[RunMetrics]) -> BTreeMap<String, Summary> {
    let Some(first) = runs.first() else {
        return BTreeMap::new();
    };
    first
        .0
        .keys()
        .map(|name| {
            let values: Vec<Option<f64>> = runs
                .iter()
                .map(|r| r.0.get(name).copied().flatten())
                .collect();
            (name.clone(), summarize(&values))
        })
        .collect()
}

/// The baseline part of the results: how many homogeneous runs, and Table 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// Homogeneous runs.
    pub runs: u32,
    /// Task keys with a usual time.
    pub usual_times: usize,
    /// Table 5: ratio of stragglers among the baseline executions for each quantile.
    pub quantiles: Vec<QuantileRatio>,
}

/// One cell of the matrix: an experiment, scenario, policy and detector, summarised over
/// its repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// `"table6"`.
    pub experiment: String,
    /// `"C1"` .. `"C4"`.
    pub scenario: String,
    /// `"x100"` or `"shared"`.
    pub policy: String,
    /// `"default"`, `"hierarchical"`, `"late"`.
    pub detector: String,
    /// The parameters the cell ran with.
    pub params: BTreeMap<String, serde_json::Value>,
    /// Repetitions summarised.
    pub repetitions: u32,
    /// Every metric as mean and 95% confidence half-width.
    pub metrics: BTreeMap<String, Summary>,
}

/// The `stragglers.eval/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalResults {
    /// [`SCHEMA`].
    pub schema: String,
    /// What ran.
    pub config: EvalConfig,
    /// Baselines and Table 5.
    pub baseline: Baseline,
    /// Every cell, scenario-major, then policy, then detector.
    pub cells: Vec<Cell>,
}

impl EvalResults {
    /// The cell of the given experiment, scenario, policy and detector.
    pub fn cell(
        &self,
        experiment: &str,
        scenario: &str,
        policy: &str,
        detector: &str,
    ) -> Option<&Cell> {
        self.cells.iter().find(|c| {
            c.experiment == experiment
                && c.scenario == scenario
                && c.policy == policy
                && c.detector == detector
        })
    }
}
