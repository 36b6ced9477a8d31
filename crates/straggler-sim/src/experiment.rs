//! The seed paper's characterisation experiment (Sections 6.1-6.3): homogeneous baseline
//! runs give each task's usual execution time (Table 5), then every detector runs in every
//! scenario and policy, repeated with different seeds, and every metric is reported as a
//! mean with a 95% confidence half-width (Table 6).

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use straggler_detect::{Detector, GarraghanDetector, GarraghanMode, GarraghanParams, OracleParams};
use straggler_energy::FirstOrderInputs;
use straggler_metrics::{
    MetricsError, Summary, TaskRecord, detection_metrics, efficiency_metrics, summarize,
};
use straggler_model::{AttemptStatus, Run, TaskKind, TimeSource};
use straggler_truth::{
    QuantileRatio, StragglerRule, UsualTimes, baseline_samples, straggler_ratios,
};

use crate::error::check;
use crate::limits::{self, at_most};
use crate::oracle::oracle_for;
use crate::rng::label;
use crate::{
    Outcome, Policy, Scenario, SimConfig, SimError, simulate, simulate_outcome, toml_file,
};

/// The schema tag of [`EvalResults`].
pub const SCHEMA: &str = "stragglers.eval/1";

/// A detector to evaluate: its name in results and how to make a fresh one for each run.
#[derive(Clone)]
pub struct DetectorSpec {
    pub(crate) name: String,
    pub(crate) description: String,
    make: Arc<dyn Fn() -> Box<dyn Detector> + Send + Sync>,
    /// Set for the oracle: the evaluation gives it the truth of each run (see
    /// [`DetectorSpec::oracle`]).
    pub(crate) oracle: Option<OracleParams>,
    /// Set for the detectors that learn from past runs (seed 004's offline model): the
    /// evaluation makes them with the progress history of its baseline runs (see
    /// [`simulate_baselines`]); [`DetectorSpec::make`] alone gives one without.
    pub(crate) with_history: Option<Arc<MakeWithHistory>>,
    /// Set for the built-in detectors: their parameters, which [`DetectorSpec::tuned`]
    /// sets.
    pub(crate) tuning: Option<crate::tuning::Tuning>,
}

/// A detector as the results documents record it: its name, its description, and a
/// built-in's parameters ([`DetectorSpec::params`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectorRecord {
    /// [`DetectorSpec::name`], the name of its cells.
    pub name: String,
    /// [`DetectorSpec::description`].
    pub description: String,
    /// Every parameter of a built-in, by its serde name (an optional one left unset is
    /// not written); none for a detector made by [`DetectorSpec::new`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<toml::Table>,
}

/// Makes a detector that starts from a progress history.
pub(crate) type MakeWithHistory =
    dyn Fn(&straggler_detect::garraghan::ProgressHistory) -> Box<dyn Detector> + Send + Sync;

impl std::fmt::Debug for DetectorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetectorSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DetectorSpec {
    /// A detector named `name`, described in one line, made by `make` for every run. The
    /// tables and results name its cells `name`, which [`Evaluation::run`] requires in
    /// lower case without whitespace and given to no other detector of the evaluation; the
    /// detector's own [`Detector::name`], which the errors of its scans give, is best the
    /// same (every built-in's is).
    pub fn new(
        name: &str,
        description: &str,
        make: impl Fn() -> Box<dyn Detector> + Send + Sync + 'static,
    ) -> Self {
        DetectorSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            make: Arc::new(make),
            oracle: None,
            with_history: None,
            tuning: None,
        }
    }

    /// The oracle's parameters if this is the oracle.
    pub fn oracle_params(&self) -> Option<OracleParams> {
        self.oracle
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
    /// What the results documents record of it.
    pub fn record(&self) -> DetectorRecord {
        DetectorRecord {
            name: self.name.clone(),
            description: self.description.clone(),
            params: self.params().cloned(),
        }
    }
}

/// Watches a run for [`simulate_baselines`]: learns as Garraghan et al.'s offline
/// detector does (the progress trajectories of the attempts that succeeded) and flags
/// nothing.
#[derive(Debug)]
struct HistoryRecorder(GarraghanDetector);

impl Detector for HistoryRecorder {
    fn name(&self) -> &str {
        "history-recorder"
    }
    fn scan(&mut self, _: &straggler_model::Snapshot, _: &mut straggler_detect::Findings) {}
    fn observe(&mut self, observation: &straggler_model::Observation) {
        self.0.observe(observation);
    }
    fn reset(&mut self) {
        self.0.reset();
    }
}

/// Baseline run `seed` of `config` on `scenario` replayed with a [`HistoryRecorder`]: the
/// run and the progress history it records. The recorder flags nothing, so no copy is
/// launched, and its scans are put on the heartbeats, so they add no event: the run is the
/// one [`simulate`] gives without a detector, bit for bit.
fn replay_baseline(
    config: &SimConfig,
    scenario: &Scenario,
    seed: u64,
) -> Result<(Run, straggler_detect::garraghan::ProgressHistory), SimError> {
    let mut sim = config.clone();
    sim.speculation.scan_interval_secs = sim.speculation.heartbeat_secs;
    let params = GarraghanParams {
        mode: GarraghanMode::Offline,
        ..GarraghanParams::default()
    }
    .check()?;
    let mut recorder = HistoryRecorder(GarraghanDetector::new(params));
    let run = simulate(&sim, scenario, seed, Some(&mut recorder))?;
    Ok((run, recorder.0.history().clone()))
}

/// The evaluation's homogeneous baseline runs (under x100, whatever policy `config.sim`
/// names: no copy runs without a detector, and no container is held back), in run order,
/// and, `with_history`, their
/// progress history (seed 004, Section 7.2: "statistical models generated from historical
/// data"; framework spec: "an offline progress model from history"); without, an empty
/// one. With the history, every baseline run is replayed as [`replay_baseline`] says,
/// which gives the run itself (bit for bit) and the trajectories of its attempts that
/// succeeded: each run is simulated once. The histories are merged in run order (which
/// matters only past `WINDOW` attempts of a stage, see
/// [`ProgressHistory::merge`](straggler_detect::garraghan::ProgressHistory::merge)). They
/// are keyed by stage, and the simulated job's stages are the same in every run (stage 0
/// its maps, stage 1 its reduces): each stage kind of an evaluated run starts from the
/// baseline's attempts of that kind.
fn simulate_baselines(
    config: &EvalConfig,
    scenario: &Scenario,
    with_history: bool,
) -> Result<(Vec<Run>, straggler_detect::garraghan::ProgressHistory), SimError> {
    // The paper's platform, every container for regular tasks, whatever policy
    // `config.sim` names (each cell sets its own).
    let mut sim = config.sim.clone();
    sim.speculation.policy = Policy::X100;
    let runs: Vec<_> = (0..config.baseline_runs)
        .into_par_iter()
        .map(|r| {
            let seed = run_seed(config.seed, BASELINE_LABEL, r);
            if with_history {
                replay_baseline(&sim, scenario, seed).map(|(run, h)| (run, Some(h)))
            } else {
                simulate(&sim, scenario, seed, None).map(|run| (run, None))
            }
        })
        .collect::<Result<_, _>>()?;
    let mut history = straggler_detect::garraghan::ProgressHistory::new();
    for run_history in runs.iter().filter_map(|(_, h)| h.as_ref()) {
        history.merge(run_history);
    }
    // Sorted once here, not in every evaluated run's copy.
    history.sync();
    Ok((runs.into_iter().map(|(run, _)| run).collect(), history))
}

/// Which execution time labels a task whose original attempt was killed (its copy won).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KilledOriginalTime {
    /// `(kill - start) / progress reached`, as the paper's Table 7 note says (the default).
    #[default]
    EstimatedFromProgress,
    /// The time the simulator's shadow computation gives (see
    /// [`Outcome::killed_original_exact_secs`]).
    Exact,
}

impl KilledOriginalTime {
    /// The name used in results.
    pub fn name(self) -> &'static str {
        match self {
            KilledOriginalTime::EstimatedFromProgress => "estimated_from_progress",
            KilledOriginalTime::Exact => "exact",
        }
    }
}

/// Figure 3 (Section 6.2): a detector's Fake Positive ratio against the speculative lag,
/// under x100. One experiment `"fig3"` cell per scenario and lag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Fig3Config {
    /// The lags, in seconds (0, 20, ..., 120; empty: no Figure 3).
    pub lags_secs: Vec<f64>,
    /// The scenarios (the paper does not say which it used: C1..C4).
    pub scenarios: Vec<Scenario>,
    /// The detector, by name (the paper's Default): one of the evaluation's detectors or of
    /// [`DetectorSpec::all`].
    pub detector: String,
}

impl Default for Fig3Config {
    fn default() -> Self {
        Fig3Config {
            lags_secs: (0..=6).map(|i| f64::from(i) * 20.0).collect(),
            scenarios: Scenario::paper(),
            detector: "default".to_owned(),
        }
    }
}

/// Table 7 and Figures 4 to 6 (Section 7): every policy with every detector. One
/// experiment `"table7"` cell per scenario, policy and detector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Table7Config {
    /// The scenarios (the paper's C2).
    pub scenarios: Vec<Scenario>,
    /// The policies (x100, x95, x90, x75, x50, Shared; empty: no Table 7).
    pub policies: Vec<Policy>,
}

impl Default for Table7Config {
    fn default() -> Self {
        Table7Config {
            scenarios: vec![Scenario::c2()],
            policies: Policy::section7(),
        }
    }
}

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalConfig {
    /// Master seed; every run's randomness derives from it.
    pub seed: u64,
    /// Repetitions of every cell (10; the paper does not say how many runs each cell of
    /// its Tables 6 and 7 averages).
    pub repetitions: u32,
    /// Homogeneous baseline runs (paper: 10, Section 6.1).
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
    /// Which time labels a killed original.
    #[serde(default)]
    pub killed_original_time: KilledOriginalTime,
    /// Figure 3.
    #[serde(default)]
    pub fig3: Fig3Config,
    /// Table 7 and Figures 4 to 6.
    #[serde(default)]
    pub table7: Table7Config,
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
            killed_original_time: KilledOriginalTime::default(),
            fig3: Fig3Config::default(),
            table7: Table7Config::default(),
        }
    }
}

impl EvalConfig {
    /// Checks every value an evaluation needs before it runs; the error names the key as
    /// an evaluation file writes it (`sim.speculation.lag_secs`, `scenarios[1].group_percent`).
    ///
    /// # Errors
    ///
    /// [`SimError::InvalidConfig`] naming the first key whose value cannot be used.
    pub fn check(&self) -> Result<(), SimError> {
        self.sim.check().map_err(|error| match error {
            SimError::InvalidConfig {
                field,
                value,
                expected,
            } => SimError::InvalidConfig {
                field: under_sim(&field),
                value,
                expected,
            },
            other => other,
        })?;
        if self.sim.speculation.policy != Policy::X100 {
            return Err(SimError::InvalidConfig {
                field: "sim.speculation.policy".to_owned(),
                value: self.sim.speculation.policy.name(),
                expected: "left at x100: `policies` and `table7.policies` set each cell's".into(),
            });
        }
        // `StragglerRule::check`'s range, the key named as the file writes it.
        check("straggler_factor", self.straggler_factor, ">= 1", |f| {
            f >= 1.0
        })?;
        for (field, count, limit) in [
            ("repetitions", self.repetitions, limits::MAX_REPETITIONS),
            (
                "baseline_runs",
                self.baseline_runs,
                limits::MAX_BASELINE_RUNS,
            ),
        ] {
            check(field, f64::from(count), ">= 1", |v| v >= 1.0)?;
            at_most(field, count, limit)?;
        }
        let workload = &self.sim.workload;
        at_most(
            "baseline_runs * (sim.workload.maps + sim.workload.reduces)",
            u64::from(self.baseline_runs)
                * (u64::from(workload.maps) + u64::from(workload.reduces)),
            limits::MAX_BASELINE_TASKS,
        )?;
        check("usual_quantile", self.usual_quantile, "in [0, 1]", |q| {
            (0.0..=1.0).contains(&q)
        })?;
        for (i, &q) in self.table5_quantiles.iter().enumerate() {
            check(&format!("table5_quantiles[{i}]"), q, "in [0, 1]", |q| {
                (0.0..=1.0).contains(&q)
            })?;
        }
        distinct(
            "table5_quantiles",
            &self.table5_quantiles,
            bits,
            f64::to_string,
        )?;
        for (i, &lag_secs) in self.fig3.lags_secs.iter().enumerate() {
            check(&format!("fig3.lags_secs[{i}]"), lag_secs, ">= 0", |v| {
                v >= 0.0
            })?;
        }
        distinct("fig3.lags_secs", &self.fig3.lags_secs, bits, f64::to_string)?;
        // Each experiment's lists, those of one that does not run (no lag, no policy) left
        // alone.
        let table7_runs = !self.table7.policies.is_empty();
        let experiments = [
            ("", &self.scenarios, &self.policies[..], true),
            (
                "fig3.",
                &self.fig3.scenarios,
                &[][..],
                !self.fig3.lags_secs.is_empty(),
            ),
            (
                "table7.",
                &self.table7.scenarios,
                &self.table7.policies[..],
                table7_runs,
            ),
        ];
        for (prefix, scenarios, policies, runs) in experiments {
            if !runs {
                continue;
            }
            for (i, &policy) in policies.iter().enumerate() {
                // The cells' own configuration: the one `Evaluation::plan` makes.
                let mut sim = self.sim.clone();
                sim.speculation.policy = policy;
                sim.check().map_err(|error| match error {
                    SimError::InvalidConfig { expected, .. } => SimError::InvalidConfig {
                        field: format!("{prefix}policies[{i}]"),
                        value: policy.name(),
                        expected,
                    },
                    other => other,
                })?;
            }
            distinct(
                &format!("{prefix}policies"),
                policies,
                Policy::name,
                Policy::name,
            )?;
            let key = format!("{prefix}scenarios");
            for (i, scenario) in scenarios.iter().enumerate() {
                scenario
                    .active_cores_as(&self.sim.platform, &format!("{key}[{i}].group_percent"))?;
                let name = &scenario.name;
                // A run's seeds derive from its scenario's name, the baselines' from
                // `BASELINE_LABEL`.
                if name.is_empty()
                    || name.chars().any(char::is_whitespace)
                    || name == BASELINE_LABEL
                {
                    return Err(SimError::InvalidConfig {
                        field: format!("{key}[{i}].name"),
                        value: format!("{name:?}"),
                        expected: "a name without whitespace, other than \"baseline\"".into(),
                    });
                }
            }
            distinct(&key, scenarios, |s| s.name.clone(), |s| s.name.clone())?;
        }
        Ok(())
    }

    /// Parses an evaluation file: TOML whose keys are this struct's fields (`seed`,
    /// `scenarios`, `sim.platform.workers`, ...; `stragglers eval --print-config` writes
    /// them), each optional, the paper's value where one is left out; `origin` names the
    /// file in errors. A policy is written as its name (`"x95"`, `"shared"`) or as the
    /// results document writes it. The error of a bad value, an unknown key or a value
    /// [`EvalConfig::check`] refuses names the key, the line and the file. The key
    /// `detectors`, the evaluation's list of detectors, is not the configuration's: it is
    /// read by [`ConfigText::detectors`], and left here.
    ///
    /// # Errors
    ///
    /// [`SimError::ConfigFile`], and [`EvalConfig::check`]'s errors other than
    /// [`SimError::InvalidConfig`].
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, SimError> {
        let file = ConfigText::new(text, origin);
        let config = file.parse()?;
        config.check().map_err(|e| file.locate(e))?;
        Ok(config)
    }

    /// Reads and parses an evaluation file (see [`EvalConfig::from_toml_str`]), at most
    /// [`MAX_CONFIG_FILE_BYTES`](limits::MAX_CONFIG_FILE_BYTES).
    ///
    /// # Errors
    ///
    /// As [`EvalConfig::from_toml_str`], and [`SimError::Io`] or [`SimError::ConfigFile`]
    /// for a file that cannot be read or is too large.
    pub fn from_toml_file(path: &std::path::Path) -> Result<Self, SimError> {
        let (config, file) = EvalConfig::parse_toml_file(path)?;
        config.check().map_err(|e| file.locate(e))?;
        Ok(config)
    }

    /// Reads and parses an evaluation file as [`EvalConfig::from_toml_file`] does, but
    /// does not check its values, so that they can be changed first (`stragglers eval`'s
    /// flags); the file's text comes back with it, to locate the errors of the check
    /// ([`ConfigText::locate`]).
    ///
    /// # Errors
    ///
    /// As [`EvalConfig::from_toml_file`], but for the check's.
    pub fn parse_toml_file(path: &std::path::Path) -> Result<(Self, ConfigText), SimError> {
        let (text, origin) = toml_file::read(path, "an evaluation file")?;
        let file = ConfigText { text, origin };
        Ok((file.parse()?, file))
    }
}

/// The top-level key of an evaluation file that names its detectors
/// ([`ConfigText::detectors`]).
pub const DETECTORS_KEY: &str = "detectors";

/// The text of an evaluation file, kept to locate the errors of a check made after it was
/// read ([`EvalConfig::parse_toml_file`]).
#[derive(Debug, Clone)]
pub struct ConfigText {
    text: String,
    origin: String,
}

impl ConfigText {
    /// The text of an evaluation file; `origin` names it in errors.
    pub fn new(text: &str, origin: &str) -> Self {
        ConfigText {
            text: text.to_owned(),
            origin: origin.to_owned(),
        }
    }

    /// The configuration the text writes, its values not checked ([`EvalConfig::check`];
    /// [`ConfigText::locate`] places its errors). The key `detectors` is left to
    /// [`ConfigText::detectors`].
    ///
    /// # Errors
    ///
    /// [`SimError::ConfigFile`]: a value of the wrong type, an unknown key, a list where a
    /// table belongs.
    pub fn parse(&self) -> Result<EvalConfig, SimError> {
        toml_file::parse_known(&self.text, &self.origin, &[DETECTORS_KEY]).map_err(in_count_range)
    }

    /// The detectors the text names under the top-level key `detectors` (a list of
    /// strings, each a name as `stragglers eval --detectors` takes one: `"late"`,
    /// `"late(alpha = 0.5)"`, `"paper"`), as written; `None` where the key is not written.
    /// The names are resolved by whoever runs the evaluation (the command line, against
    /// [`DetectorSpec::all_and_oracle`] and its groups).
    ///
    /// # Errors
    ///
    /// [`SimError::ConfigFile`] for a file that is no TOML, or whose `detectors` is not a
    /// list of strings.
    pub fn detectors(&self) -> Result<Option<Vec<String>>, SimError> {
        /// The one key read here; the others are the configuration's.
        #[derive(Deserialize)]
        struct Detectors {
            detectors: Option<Vec<String>>,
        }
        let read: Detectors = toml_file::parse(&self.text, &self.origin)?;
        Ok(read.detectors)
    }

    /// The line of `key` (dotted, `sim.platform.workers`; `detectors`) in the text, from
    /// 1; 0 where the text does not write it.
    pub fn line_of(&self, key: &str) -> usize {
        toml_file::line_of_key(&self.text, key)
    }

    /// `error` located in the file: a [`SimError::InvalidConfig`] becomes a
    /// [`SimError::ConfigFile`] at the line that writes its key (0 where the file leaves
    /// the key at its default); any other error comes back as it is.
    pub fn locate(&self, error: SimError) -> SimError {
        toml_file::at_key(error, &self.text, &self.origin)
    }
}

/// A count of [`limits::EVAL_COUNTS`] that serde refuses as out of `u32`'s range
/// (`repetitions = -3`: "invalid value: integer `-3`, expected u32"), refused with the
/// count's range, in the words of the flag that sets it (`-3 is not in 1..=1000`); any
/// other error comes back as it is.
fn in_count_range(error: SimError) -> SimError {
    let SimError::ConfigFile {
        file,
        line,
        key,
        message,
    } = error
    else {
        return error;
    };
    let range = limits::EVAL_COUNTS.iter().find(|(count, ..)| *count == key);
    let value = (message.strip_prefix("invalid value: integer `"))
        .and_then(|rest| rest.strip_suffix("`, expected u32"));
    let message = match (range, value) {
        (Some((_, least, most)), Some(value)) => format!("{value} is not in {least}..={most}"),
        _ => message,
    };
    SimError::ConfigFile {
        file,
        line,
        key,
        message,
    }
}

/// Checks that no two items of the list `field` have one name (`name_of`): a repeated
/// policy, scenario or lag would run its cells twice, or print them twice.
fn distinct<T, K: Eq + std::hash::Hash>(
    field: &str,
    items: &[T],
    key_of: impl Fn(&T) -> K,
    name_of: impl Fn(&T) -> String,
) -> Result<(), SimError> {
    let mut keys = std::collections::HashSet::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if !keys.insert(key_of(item)) {
            return Err(SimError::InvalidConfig {
                field: format!("{field}[{i}]"),
                value: name_of(item),
                expected: "one no other item of the list is".into(),
            });
        }
    }
    Ok(())
}

/// A number's bits as a key of [`distinct`], `-0.0` as `0.0`.
fn bits(value: &f64) -> u64 {
    (value + 0.0).to_bits()
}

/// A key of [`SimConfig::check`] as an evaluation file writes it, under `sim`: each key of
/// an expression too (`platform.workers * platform.containers`:
/// `sim.platform.workers * sim.platform.containers`).
fn under_sim(field: &str) -> String {
    let mut out = String::with_capacity(field.len() + 8);
    let mut in_key = false;
    for c in field.chars() {
        if !in_key && c.is_ascii_alphabetic() {
            out.push_str("sim.");
        }
        in_key = c.is_ascii_alphanumeric() || "_.[]".contains(c);
        out.push(c);
    }
    out
}

/// The count of runs an evaluation keeps before it summarises them, as an expression of the
/// evaluation file's keys ([`Evaluation::check`]): each repetition runs every cell of
/// Table 6 and Table 7 (a scenario, a policy, a detector) and of Figure 3 (a scenario, a
/// lag), so that an error names the keys that set it and is placed at the first the file
/// writes.
const CELL_RUNS: &str = "repetitions * (detectors * (scenarios * policies + table7.scenarios \
                         * table7.policies) + fig3.scenarios * fig3.lags_secs)";

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
    /// The paper's matrix: Tables 5 and 6, Figure 3, Table 7 and Figures 4 to 6, with the
    /// default configuration, its three detectors and the oracle (the stragglers of the
    /// run without copies, flagged early).
    pub fn paper() -> Self {
        Evaluation {
            config: EvalConfig::default(),
            detectors: DetectorSpec::paper_and_oracle(),
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
    /// The detectors, in the order their cells run.
    pub fn detectors(&self) -> &[DetectorSpec] {
        &self.detectors
    }
    /// Mutable access to the configuration.
    pub fn config_mut(&mut self) -> &mut EvalConfig {
        &mut self.config
    }

    /// Checks what [`Evaluation::run`] checks before any run: the detectors' names, the
    /// count of runs, the configuration ([`EvalConfig::check`]) and Figure 3's detector.
    ///
    /// # Errors
    ///
    /// [`SimError::InvalidConfig`] naming the first value that cannot be used.
    pub fn check(&self) -> Result<(), SimError> {
        let config = &self.config;
        check_detector_names(&self.detectors)?;
        // Every run's metrics are kept until its cell is summarised: checked first, from
        // the lists' lengths alone.
        at_most(
            CELL_RUNS,
            u64::from(config.repetitions).saturating_mul(self.cell_count()),
            limits::MAX_EVALUATED_RUNS,
        )?;
        config.check()?;
        if !config.fig3.lags_secs.is_empty() {
            self.fig3_detector()?;
        }
        Ok(())
    }

    /// Runs the baselines then every cell, in parallel on rayon's pool.
    pub fn run(&self) -> Result<EvalResults, SimError> {
        let config = &self.config;
        self.check()?;
        let rule = StragglerRule {
            factor: config.straggler_factor,
        }
        .check()?;

        let homogeneous = Scenario::homogeneous_on(&config.sim.platform)?;
        let cells = self.plan()?;
        debug_assert_eq!(cells.len() as u64, self.cell_count());
        let mut detectors: Vec<DetectorRecord> = Vec::new();
        for cell in &cells {
            if detectors.iter().all(|d| d.name != cell.detector.name()) {
                detectors.push(cell.detector.record());
            }
        }
        // Seed 004's offline model learns from past runs: the baseline runs' progress,
        // recorded in the baseline runs themselves (no second simulation).
        let with_history = cells.iter().any(|c| c.detector.with_history.is_some());
        let (baseline_runs, history) = simulate_baselines(config, &homogeneous, with_history)?;
        let usual = UsualTimes::from_runs(&baseline_runs, config.usual_quantile)?;
        // Table 5 is over map executions, as in the paper (21 outliers among 3200 maps).
        let samples: Vec<_> = baseline_samples(&baseline_runs)?
            .into_iter()
            .filter(|(key, _)| key.kind == TaskKind::Map)
            .collect();
        let quantiles = straggler_ratios(&samples, &config.table5_quantiles, rule)?;
        let mut baseline_energy = 0.0;
        for run in &baseline_runs {
            baseline_energy += straggler_energy::run_energy_joules(run, &config.sim.power)?;
        }
        let labels = Labelling {
            usual: &usual,
            rule,
            killed_original_time: config.killed_original_time,
            baseline_energy_joules: baseline_energy / baseline_runs.len().max(1) as f64,
        };
        drop(baseline_runs);

        // A cell identical to an earlier one (Table 7's x100 and Shared cells are Table 6's
        // in C2, Figure 3 at the configured lag is Table 6's Default) runs once: same
        // scenario, configuration, detector and seeds give the same runs.
        let same_as: Vec<usize> = cells
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                cells[..c]
                    .iter()
                    .position(|earlier| earlier.same_runs_as(cell))
                    .unwrap_or(c)
            })
            .collect();
        // The cells that run, each `reps` times: run `j` is repetition `j % reps` of
        // `computed_cells[j / reps]`.
        let reps = config.repetitions as usize;
        let computed_cells: Vec<usize> = (0..cells.len()).filter(|&c| same_as[c] == c).collect();
        let computed: Vec<RunMetrics> = (0..computed_cells.len() * reps)
            .into_par_iter()
            .map(|j| {
                let (c, r) = (computed_cells[j / reps], (j % reps) as u32);
                let plan = &cells[c];
                let seed = run_seed(config.seed, &plan.scenario.name, r);
                let run = || {
                    let mut detector: Box<dyn Detector> = match plan.detector.oracle_params() {
                        Some(params) => Box::new(oracle_for(
                            &plan.sim,
                            &plan.scenario,
                            seed,
                            &usual,
                            rule,
                            params,
                        )?),
                        None => match &plan.detector.with_history {
                            Some(make) => make(&history),
                            None => plan.detector.make(),
                        },
                    };
                    let outcome =
                        simulate_outcome(&plan.sim, &plan.scenario, seed, Some(detector.as_mut()))?;
                    RunMetrics::of_outcome(&outcome, &labels, &plan.sim)
                };
                // A detector of the user's that panics (on an observation it did not expect,
                // say) fails its run with an error naming the cell and seed, as any other
                // failure does, rather than unwinding through the pool and ending the
                // process with a backtrace that names neither. Nothing of the run is used
                // after a panic: the detector and the simulation are the run's own.
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
                caught
                    .unwrap_or_else(|panic| {
                        Err(SimError::Panicked {
                            message: panic_message(panic.as_ref()),
                        })
                    })
                    .map_err(|error| SimError::Run {
                        cell: plan.label(),
                        repetition: r,
                        seed,
                        error: Box::new(error),
                    })
            })
            .collect::<Result<_, _>>()?;
        let mut first_job = vec![0usize; cells.len()];
        for (k, &c) in computed_cells.iter().enumerate() {
            first_job[c] = k * reps;
        }
        let mut per_run: Vec<RunMetrics> = Vec::with_capacity(cells.len() * reps);
        for &source in &same_as {
            let start = first_job[source];
            per_run.extend_from_slice(&computed[start..start + reps]);
        }
        normalise(&cells, &mut per_run, reps, config.sim.speculation.lag_secs);
        let cells = cells
            .iter()
            .zip(per_run.chunks(reps))
            .map(|(plan, runs)| {
                Ok(Cell {
                    experiment: plan.experiment.to_owned(),
                    scenario: plan.scenario.name.clone(),
                    policy: plan.sim.speculation.policy.name(),
                    detector: plan.detector.name().to_owned(),
                    params: params(config, &plan.sim),
                    repetitions: config.repetitions,
                    metrics: summarize_runs(runs).map_err(|(metric, source)| {
                        SimError::Summary {
                            cell: plan.label(),
                            metric,
                            source,
                        }
                    })?,
                })
            })
            .collect::<Result<_, SimError>>()?;

        Ok(EvalResults {
            schema: SCHEMA.to_owned(),
            config: config.clone(),
            detectors,
            baseline: Baseline {
                runs: config.baseline_runs,
                usual_times: usual.len(),
                quantiles,
            },
            cells,
        })
    }

    /// Every cell to run, in the results' order: Table 6 (scenario, policy, detector),
    /// Figure 3 (scenario, lag), Table 7 (scenario, policy, detector).
    /// How many cells [`Evaluation::plan`] makes, from the lengths of the lists alone.
    fn cell_count(&self) -> u64 {
        let config = &self.config;
        let count = |n: usize| n as u64;
        let detectors = count(self.detectors.len());
        let table6 = count(config.scenarios.len())
            .saturating_mul(count(config.policies.len()))
            .saturating_mul(detectors);
        let fig3 =
            count(config.fig3.scenarios.len()).saturating_mul(count(config.fig3.lags_secs.len()));
        let table7 = count(config.table7.scenarios.len())
            .saturating_mul(count(config.table7.policies.len()))
            .saturating_mul(detectors);
        table6.saturating_add(fig3).saturating_add(table7)
    }

    /// Figure 3's detector: the one `fig3.detector` names among the evaluation's and
    /// [`DetectorSpec::all`], or such a detector with parameters set as `--detectors`
    /// sets them (`late(alpha = 0.5)`), the evaluation's if it has one of that name.
    fn fig3_detector(&self) -> Result<DetectorSpec, SimError> {
        let name = &self.config.fig3.detector;
        let all = DetectorSpec::all();
        let named = |wanted: &str| {
            (self.detectors.iter().chain(&all))
                .find(|d| d.name() == wanted)
                .cloned()
        };
        let refused = |expected: String| SimError::InvalidConfig {
            field: "fig3.detector".to_owned(),
            value: format!("{name:?}"),
            expected: expected.into(),
        };
        if let Some(spec) = named(name) {
            return Ok(spec);
        }
        let unknown = || {
            refused(
                "the name of a detector of the evaluation or of `stragglers detectors`, \
                 parameters in parentheses or not"
                    .to_owned(),
            )
        };
        let Some((base, Some(set))) = crate::split_params(name) else {
            return Err(unknown());
        };
        let tuned = named(base)
            .ok_or_else(unknown)?
            .tuned_from(set)
            .map_err(|e| refused(format!("parameters a detector takes ({e})")))?;
        Ok(named(tuned.name()).unwrap_or(tuned))
    }

    fn plan(&self) -> Result<Vec<CellPlan>, SimError> {
        let config = &self.config;
        let with = |policy: Policy, lag_secs: f64| {
            let mut sim = config.sim.clone();
            sim.speculation.policy = policy;
            sim.speculation.lag_secs = lag_secs;
            sim.check().map(|()| sim)
        };
        let lag = config.sim.speculation.lag_secs;
        let mut cells = Vec::new();
        for scenario in &config.scenarios {
            for &policy in &config.policies {
                for detector in &self.detectors {
                    cells.push(CellPlan {
                        experiment: "table6",
                        scenario: scenario.clone(),
                        detector: detector.clone(),
                        sim: with(policy, lag)?,
                    });
                }
            }
        }
        if !config.fig3.lags_secs.is_empty() {
            let detector = self.fig3_detector()?;
            for scenario in &config.fig3.scenarios {
                for &lag_secs in &config.fig3.lags_secs {
                    check("fig3.lags_secs", lag_secs, ">= 0", |v| v >= 0.0)?;
                    cells.push(CellPlan {
                        experiment: "fig3",
                        scenario: scenario.clone(),
                        detector: detector.clone(),
                        sim: with(Policy::X100, lag_secs)?,
                    });
                }
            }
        }
        for scenario in &config.table7.scenarios {
            for &policy in &config.table7.policies {
                for detector in &self.detectors {
                    cells.push(CellPlan {
                        experiment: "table7",
                        scenario: scenario.clone(),
                        detector: detector.clone(),
                        sim: with(policy, lag)?,
                    });
                }
            }
        }
        Ok(cells)
    }
}

/// One cell to run.
struct CellPlan {
    experiment: &'static str,
    scenario: Scenario,
    detector: DetectorSpec,
    sim: SimConfig,
}

impl CellPlan {
    /// The cell in an error: experiment, scenario, policy and detector, and for Figure 3,
    /// whose cells differ by their speculative lag alone, the lag.
    fn label(&self) -> String {
        let lag = match self.experiment {
            "fig3" => format!(" lag {} s", self.sim.speculation.lag_secs),
            _ => String::new(),
        };
        format!(
            "{} {} {} {}{lag}",
            self.experiment,
            self.scenario.name,
            self.sim.speculation.policy.name(),
            self.detector.name()
        )
    }

    /// Whether `other` runs exactly the same simulations (its experiment aside).
    fn same_runs_as(&self, other: &CellPlan) -> bool {
        self.scenario == other.scenario
            && self.sim == other.sim
            && self.detector.name() == other.detector.name()
    }
}

/// The message of a panic's payload (a `&str` or a `String`, as `panic!` gives).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a payload that is not text".to_owned())
}

/// Checks that every detector is named in lower case without whitespace (as the
/// conformance kit requires of [`Detector::name`]) and that no two have one name: the
/// cells are told apart by their detector's name, and the cells of a second detector of
/// one name would repeat the first's without running it.
fn check_detector_names(detectors: &[DetectorSpec]) -> Result<(), SimError> {
    let mut names = std::collections::HashSet::new();
    for spec in detectors {
        let name = spec.name();
        let expected =
            if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_uppercase()) {
                "a name in lower case without whitespace"
            } else if !names.insert(name) {
                "a name no other detector has"
            } else {
                continue;
            };
        return Err(SimError::InvalidConfig {
            field: "detectors".to_owned(),
            value: format!("{name:?}"),
            expected: expected.into(),
        });
    }
    Ok(())
}

/// The parameters a cell ran with, as its `params`.
fn params(config: &EvalConfig, sim: &SimConfig) -> BTreeMap<String, serde_json::Value> {
    let speculation = &sim.speculation;
    BTreeMap::from([
        (
            "speculative_lag_secs".to_owned(),
            serde_json::json!(speculation.lag_secs),
        ),
        (
            "scan_interval_secs".to_owned(),
            serde_json::json!(speculation.scan_interval_secs),
        ),
        (
            "heartbeat_secs".to_owned(),
            serde_json::json!(speculation.heartbeat_secs),
        ),
        (
            "wait_for_pending_tasks".to_owned(),
            serde_json::json!(speculation.wait_for_pending_tasks),
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
            serde_json::json!(config.killed_original_time.name()),
        ),
        (
            "copies".to_owned(),
            serde_json::to_value(&sim.copies).unwrap_or(serde_json::Value::Null),
        ),
    ])
}

/// Adds `execution_time_norm` and `energy_norm` to every run: its time and energy divided
/// by those of the same repetition of the reference cell, the Default detector under x100
/// in the same experiment and scenario at the configured lag (the paper's Figures 4 and
/// 5). `None` where there is no reference cell.
fn normalise(cells: &[CellPlan], per_run: &mut [RunMetrics], reps: usize, lag_secs: f64) {
    let reference: Vec<Option<usize>> = cells
        .iter()
        .map(|cell| {
            cells.iter().position(|r| {
                r.experiment == cell.experiment
                    && r.scenario.name == cell.scenario.name
                    && r.sim.speculation.policy == Policy::X100
                    && r.sim.speculation.lag_secs == lag_secs
                    && r.detector.name() == "default"
            })
        })
        .collect();
    let value = |runs: &[RunMetrics], r: usize, name: &str| runs[r].0.get(name).copied().flatten();
    for (c, reference) in reference.iter().enumerate() {
        for r in 0..reps {
            let ratio = |name: &str| {
                let own = value(per_run, c * reps + r, name)?;
                let base = value(per_run, (*reference)? * reps + r, name)?;
                (base > 0.0).then(|| own / base)
            };
            let time = ratio("execution_time_secs");
            let energy = ratio("energy_joules");
            let metrics = &mut per_run[c * reps + r].0;
            metrics.insert("execution_time_norm".to_owned(), time);
            metrics.insert("energy_norm".to_owned(), energy);
        }
    }
}

/// What labels the tasks of a run and what its costs are compared with.
#[derive(Debug, Clone, Copy)]
pub struct Labelling<'a> {
    /// The usual time of every task key.
    pub usual: &'a UsualTimes,
    /// The straggler rule.
    pub rule: StragglerRule,
    /// Which time labels a killed original.
    pub killed_original_time: KilledOriginalTime,
    /// The mean energy of the homogeneous baseline runs (no straggler, no copy), for the
    /// simulated energy overhead.
    pub baseline_energy_joules: f64,
}

/// The label of the baseline runs' seeds, which no scenario may take as its name.
const BASELINE_LABEL: &str = "baseline";

/// The seed of repetition `repetition` of `scenario`: the same for every detector and
/// policy, so that they are compared on the same draws (common random numbers).
fn run_seed(master: u64, scenario: &str, repetition: u32) -> u64 {
    crate::rng::Stream::new(master, &[label(scenario), u64::from(repetition)]).seed()
}

/// The metrics of one run, by name (`None` where undefined).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics(pub BTreeMap<String, Option<f64>>);

impl RunMetrics {
    /// Labels the run's tasks against the usual times (killed originals by their estimated
    /// time) and computes every metric; the metrics that need the simulator's knowledge
    /// (the exact times of killed originals, the baseline energy) are `None`.
    pub fn of(
        run: &Run,
        usual: &UsualTimes,
        rule: StragglerRule,
        sim: &SimConfig,
    ) -> Result<Self, SimError> {
        let outcome = Outcome {
            run: run.clone(),
            killed_original_exact_secs: Vec::new(),
        };
        let labels = Labelling {
            usual,
            rule,
            killed_original_time: KilledOriginalTime::EstimatedFromProgress,
            baseline_energy_joules: f64::NAN,
        };
        Self::of_outcome(&outcome, &labels, sim)
    }

    /// Labels the run's tasks and computes every metric, with the killed originals timed
    /// as `labels.killed_original_time` says.
    ///
    /// Beyond the detection and efficiency metrics: `killed_original_time_gap`, the mean
    /// over killed originals of `|exact - estimated| / usual`; `label_disagreements`, the
    /// tasks whose straggler label differs between the two times; the Section 4.2
    /// predictor's `predicted_time_overhead` and `predicted_energy_overhead` (from the
    /// run's straggler ratio, raw precision, recall, Detection Latency and Undetected
    /// Time) next to the simulated `simulated_time_overhead` (the mean over tasks of the
    /// time from their original's start to their end over their usual time, minus 1: per
    /// task and in units of its usual time, as the predictor's overheads are) and
    /// `simulated_energy_overhead` (energy over the homogeneous baseline's, minus 1).
    pub fn of_outcome(
        outcome: &Outcome,
        labels: &Labelling<'_>,
        sim: &SimConfig,
    ) -> Result<Self, SimError> {
        let run = &outcome.run;
        let rule = labels.rule;
        let detections = run.first_detection_secs()?;
        let mut records = Vec::with_capacity(run.tasks.len());
        let mut estimated = 0usize;
        let (mut gap_sum, mut killed, mut disagreements) = (0.0, 0usize, 0usize);
        // Each ended task's time over its usual time, summed, and how many ended.
        let (mut time_ratios, mut ended) = (0.0, 0usize);
        let ends = task_end_secs(run);
        for (((task, original), first_detection_secs), end_secs) in run
            .tasks
            .iter()
            .zip(run.original_times()?)
            .zip(detections)
            .zip(ends)
        {
            let original = original.ok_or(SimError::Unlabelled {
                key: task.key,
                reason: "its original attempt never ended",
            })?;
            let usual_secs = labels.usual.get(&task.key).ok_or(SimError::Unlabelled {
                key: task.key,
                reason: "the baseline runs have no usual time for it",
            })?;
            let mut exec_secs = original.exec_secs;
            if original.source == TimeSource::EstimatedFromProgress {
                estimated += 1;
                let exact = outcome
                    .killed_original_exact_secs
                    .get(task.id.index())
                    .copied()
                    .flatten();
                if let Some(exact) = exact {
                    killed += 1;
                    gap_sum += (exact - original.exec_secs).abs() / usual_secs;
                    disagreements += usize::from(
                        rule.is_straggler(exact, usual_secs)
                            != rule.is_straggler(original.exec_secs, usual_secs),
                    );
                    if labels.killed_original_time == KilledOriginalTime::Exact {
                        exec_secs = exact;
                    }
                } else if labels.killed_original_time == KilledOriginalTime::Exact {
                    return Err(SimError::Unlabelled {
                        key: task.key,
                        reason: "its original was killed and the run has no exact time for it",
                    });
                }
            }
            if let Some(end_secs) = end_secs {
                time_ratios += (end_secs - original.start_secs) / usual_secs;
                ended += 1;
            }
            records.push(TaskRecord {
                start_secs: original.start_secs,
                exec_secs,
                usual_secs,
                straggler: rule.is_straggler(exec_secs, usual_secs),
                // The timed original is the last that did not fail: a detection of a failed
                // one before the re-run's start counts at that start, as the replay counts
                // it (`straggler_trace::task_records`).
                first_detection_secs: first_detection_secs.map(|d| d.max(original.start_secs)),
            });
        }
        let detection = detection_metrics(&records)?;
        let efficiency = efficiency_metrics(run)?;
        let energy = straggler_energy::run_energy_joules(run, &sim.power)?;
        let count = |n: usize| Some(n as f64);
        let stragglers = detection.true_positives + detection.false_negatives;
        let straggler_ratio = stragglers as f64 / records.len().max(1) as f64;
        let prediction = predict(
            straggler_ratio,
            detection.precision_raw,
            detection.recall,
            detection.detection_latency,
            detection.undetected_time,
        );
        let have_exact = !outcome.killed_original_exact_secs.is_empty();
        let baseline_energy = labels.baseline_energy_joules;
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
            ("straggler_ratio".to_owned(), Some(straggler_ratio)),
            (
                "detected".to_owned(),
                count(detection.true_positives + detection.false_positives),
            ),
            ("estimated_original_times".to_owned(), count(estimated)),
            (
                "killed_original_time_gap".to_owned(),
                (killed > 0).then(|| gap_sum / killed as f64),
            ),
            (
                "label_disagreements".to_owned(),
                have_exact.then_some(disagreements as f64),
            ),
            (
                "predicted_time_overhead".to_owned(),
                prediction.map(|p| p.time_overhead),
            ),
            (
                "predicted_energy_overhead".to_owned(),
                prediction.map(|p| p.energy_overhead),
            ),
            (
                "simulated_time_overhead".to_owned(),
                (ended > 0).then(|| time_ratios / ended as f64 - 1.0),
            ),
            (
                "simulated_energy_overhead".to_owned(),
                (baseline_energy > 0.0).then(|| energy / baseline_energy - 1.0),
            ),
        ])))
    }
}

/// When each task ended: the end of its attempt that succeeded (`None` if none did).
fn task_end_secs(run: &Run) -> Vec<Option<f64>> {
    let mut ends = vec![None; run.tasks.len()];
    for attempt in &run.attempts {
        if attempt.status == AttemptStatus::Succeeded
            && let Some(slot) = ends.get_mut(attempt.task.index())
        {
            *slot = attempt.end_secs;
        }
    }
    ends
}

/// The Section 4.2 first-order prediction from a run's metrics, whose inputs that do not
/// matter may be undefined ([`FirstOrderInputs::from_metrics`]). `None` if a needed input
/// is undefined or the predictor rejects them.
fn predict(
    straggler_ratio: f64,
    precision_raw: Option<f64>,
    recall: Option<f64>,
    detection_latency: Option<f64>,
    undetected_time: Option<f64>,
) -> Option<straggler_energy::Prediction> {
    FirstOrderInputs::from_metrics(
        straggler_ratio,
        precision_raw,
        recall,
        detection_latency,
        undetected_time,
    )
    .ok()?
    .predict()
    .ok()
}

/// Each metric's summary over the repetitions (`None` where it is undefined); a NaN or
/// infinite value, which no metric gives, is an error naming the metric rather than left
/// out.
fn summarize_runs(
    runs: &[RunMetrics],
) -> Result<BTreeMap<String, Summary>, (String, MetricsError)> {
    let Some(first) = runs.first() else {
        return Ok(BTreeMap::new());
    };
    first
        .0
        .keys()
        .map(|name| {
            let values: Vec<Option<f64>> = runs
                .iter()
                .map(|r| r.0.get(name).copied().flatten())
                .collect();
            let summary = summarize(&values).map_err(|e| (name.clone(), e))?;
            Ok((name.clone(), summary))
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
    /// The detector's name ([`DetectorSpec::name`]): `"default"`, `"late"`, a tuned one's
    /// `"late(alpha=0.5)"`.
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
    /// The detectors of the cells, each once, in the evaluation's order, with their
    /// parameters (none in a document written before they were recorded).
    #[serde(default)]
    pub detectors: Vec<DetectorRecord>,
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

#[cfg(test)]
mod seed004_history_tests {
    use straggler_model::StageId;

    use super::*;

    #[test]
    fn a_replayed_baseline_run_is_the_baseline_run_and_records_both_stages() {
        let config = SimConfig::default();
        let homogeneous = Scenario::homogeneous();
        let baseline = simulate(&config, &homogeneous, 5, None).expect("runs");
        let (replayed, history) = replay_baseline(&config, &homogeneous, 5).expect("runs");
        assert_eq!(replayed, baseline);
        // One trajectory per success: every task, maps in stage 0, reduces in stage 1.
        let successes = |kind: TaskKind| {
            baseline
                .attempts
                .iter()
                .filter(|a| {
                    a.status == AttemptStatus::Succeeded
                        && baseline.tasks[a.task.index()].key.kind == kind
                })
                .count() as u64
        };
        assert_eq!(history.attempts(StageId(0)), successes(TaskKind::Map));
        assert_eq!(history.attempts(StageId(1)), successes(TaskKind::Reduce));
        assert_eq!(baseline.stages[0].kind, TaskKind::Map);
        assert_eq!(baseline.stages[1].kind, TaskKind::Reduce);
        // A usable model: progress grows with time.
        let model = history.model(StageId(0), 3).expect("fitted");
        assert!(model.overall().is_some_and(|line| line.slope > 0.0));
    }

    /// C2 under x100 only, two baseline runs, neither Figure 3 nor Table 7.
    fn c2_x100_only(repetitions: u32) -> EvalConfig {
        EvalConfig {
            repetitions,
            baseline_runs: 2,
            scenarios: vec![Scenario::c2()],
            policies: vec![Policy::X100],
            fig3: Fig3Config {
                lags_secs: Vec::new(),
                ..Fig3Config::default()
            },
            table7: Table7Config {
                policies: Vec::new(),
                ..Table7Config::default()
            },
            ..EvalConfig::default()
        }
    }

    #[test]
    fn garraghan_cells_are_the_same_on_one_thread_and_on_two() {
        let garraghan: Vec<DetectorSpec> = DetectorSpec::all()
            .into_iter()
            .filter(|d| d.name().starts_with("garraghan"))
            .collect();
        assert!(garraghan[..2].iter().all(|d| d.with_history.is_some()));
        let evaluation = Evaluation::paper()
            .with_detectors(garraghan)
            .with_config(c2_x100_only(2));
        let on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let results = pool.install(|| evaluation.run()).expect("runs");
            serde_json::to_string(&results).expect("serialises")
        };
        assert_eq!(on(1), on(2));
    }

    #[test]
    fn the_baselines_recorded_for_the_history_are_the_plain_baselines() {
        // With a Garraghan detector the baseline runs are simulated once, with the recorder:
        // the baseline, Table 5 and the Default cells are those of an evaluation without.
        let config = c2_x100_only(1);
        let run = |names: &[&str]| {
            let detectors = DetectorSpec::all()
                .into_iter()
                .filter(|d| names.contains(&d.name()))
                .collect();
            Evaluation::paper()
                .with_detectors(detectors)
                .with_config(config.clone())
                .run()
                .expect("runs")
        };
        let (plain, with_history) = (run(&["default"]), run(&["default", "garraghan"]));
        assert_eq!(
            serde_json::to_string(&plain.baseline).expect("serialises"),
            serde_json::to_string(&with_history.baseline).expect("serialises")
        );
        let default = |results: &EvalResults| {
            let cell = results
                .cell("table6", "C2", "x100", "default")
                .expect("a cell");
            serde_json::to_string(cell).expect("serialises")
        };
        assert_eq!(default(&plain), default(&with_history));
    }
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    fn run(recall: Option<f64>) -> RunMetrics {
        RunMetrics(BTreeMap::from([("recall".to_owned(), recall)]))
    }

    #[test]
    fn an_undefined_metric_is_left_out_and_a_non_finite_one_named() {
        let summaries = summarize_runs(&[run(Some(0.5)), run(None), run(Some(1.0))]).unwrap();
        assert_eq!(summaries["recall"].n, 2);
        assert_eq!(summaries["recall"].mean, Some(0.75));
        let (metric, error) = summarize_runs(&[run(Some(0.5)), run(Some(f64::NAN))]).unwrap_err();
        assert_eq!(metric, "recall");
        assert!(
            matches!(error, MetricsError::BadValue { index: 1, .. }),
            "{error}"
        );
    }
}

#[cfg(test)]
mod file_tests {
    use super::*;

    fn read(text: &str) -> Result<EvalConfig, String> {
        EvalConfig::from_toml_str(text, "eval.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn an_empty_file_is_the_papers_configuration_and_keys_change_it() {
        assert_eq!(read("").unwrap(), EvalConfig::default());
        let config = read(
            "seed = 7\npolicies = [\"x95\", \"shared\", { reserved = { regular_percent = 50 } }]\n\
             [[scenarios]]\nname = \"half\"\ngroup_percent = [50, 0, 0, 50]\n\
             [sim.platform]\nworkers = 40\n",
        )
        .unwrap();
        assert_eq!(config.seed, 7);
        let names: Vec<String> = config.policies.iter().map(Policy::name).collect();
        assert_eq!(names, ["x95", "shared", "x50"]);
        assert_eq!(
            config.scenarios,
            [Scenario::new("half", &[50.0, 0.0, 0.0, 50.0])]
        );
        assert_eq!(config.sim.platform.workers, 40);
        // What was left out keeps the paper's value.
        assert_eq!(config.sim.platform.cores, 4);
        assert_eq!(config.table7, Table7Config::default());
    }

    #[test]
    fn the_simulations_keys_are_named_under_sim() {
        assert_eq!(
            under_sim("speculation.lag_secs"),
            "sim.speculation.lag_secs"
        );
        assert_eq!(
            under_sim("platform.workers * platform.containers"),
            "sim.platform.workers * sim.platform.containers"
        );
        assert_eq!(
            under_sim("copies.placement.blacklist[2]"),
            "sim.copies.placement.blacklist[2]"
        );
    }

    #[test]
    fn what_the_results_document_writes_reads_back() {
        let config = EvalConfig {
            policies: vec![
                Policy::Reserved {
                    regular_percent: 75,
                },
                Policy::Shared,
            ],
            ..EvalConfig::default()
        };
        let json = serde_json::to_string(&config).unwrap();
        assert!(json.contains(r#""policies":[{"reserved":{"regular_percent":75}},"shared"]"#));
        assert_eq!(serde_json::from_str::<EvalConfig>(&json).unwrap(), config);
    }

    #[test]
    fn a_files_detectors_are_read_apart_from_its_configuration() {
        // `detectors` is read by `ConfigText::detectors`, as written, and left by the
        // configuration, whose other unknown keys are still refused; a top-level key only.
        let text = "seed = 3\ndetectors = [\"late(alpha = 0.5)\", \"paper\"]\n[sim]\ntime_limit_secs = 9.0\n";
        let file = ConfigText::new(text, "eval.toml");
        assert_eq!(
            file.detectors().unwrap(),
            Some(vec!["late(alpha = 0.5)".to_owned(), "paper".to_owned()])
        );
        assert_eq!(file.line_of(DETECTORS_KEY), 2);
        let config = EvalConfig::from_toml_str(text, "eval.toml").unwrap();
        assert_eq!((config.seed, config.sim.time_limit_secs), (3, 9.0));
        let none = ConfigText::new("seed = 3\n", "eval.toml");
        assert_eq!(
            (none.detectors().unwrap(), none.line_of(DETECTORS_KEY)),
            (None, 0)
        );
        for (text, says) in [
            (
                "detectors = [1]\n",
                "eval.toml: line 1: key `detectors`: invalid type: integer `1`, expected a string",
            ),
            (
                "detectors = \"late\"\n",
                "eval.toml: line 1: key `detectors`: invalid type: string \"late\", expected a sequence",
            ),
        ] {
            let error = ConfigText::new(text, "eval.toml").detectors().unwrap_err();
            assert_eq!(error.to_string(), says);
        }
        let nested = "[sim]\ndetectors = [\"late\"]\n";
        let error = EvalConfig::from_toml_str(nested, "eval.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("eval.toml: line 2: key `sim.detectors`: unknown key"),
            "{error}"
        );
        let misspelt = "detector = [\"late\"]\n";
        let error = EvalConfig::from_toml_str(misspelt, "eval.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("eval.toml: line 1: key `detector`: unknown key"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_file_is_refused_naming_the_line_and_the_key() {
        let cases = [
            (
                "seed = 1\n[sim.platfrom]\nworkers = 4\n",
                "eval.toml: line 2: key `sim.platfrom`: unknown key; the known keys here include `copies`, `noise`, `platform`, `power`, `slowdown`, `speculation`, `time_limit_secs`, `workload`",
            ),
            (
                "[sim.noise]\nsigma = 0.1\nsigmas = 0.2\n",
                "eval.toml: line 3: key `sim.noise.sigmas`: unknown field `sigmas`, expected one of `sigma`, `outlier_probability`, `outlier_min`, `outlier_max`",
            ),
            (
                "[[scenarios]]\nname = \"a\"\ngroup_percent = [0, 0, 0, 100]\ncolour = 1\n",
                "eval.toml: line 4: key `scenarios[0].colour`: unknown key; the known keys here include `group_percent`, `name`",
            ),
            (
                "[sim.platform]\nworkers = \"many\"\n",
                "eval.toml: line 2: key `sim.platform.workers`: invalid type: string \"many\", expected u32",
            ),
            // A multi-line string closed by four quotes (the first one its own) leaves no
            // bracket open: the next line's key is a key.
            (
                "scenarios = [{ name = \"\"\"C9\"\"\"\", group_percent = [50.0, 50.0, 0.0, 0.0] }]\nusual_quantile = 2.0\n",
                "eval.toml: line 2: key `usual_quantile`: 2: must be in [0, 1]",
            ),
            (
                "[[scenarios]]\nname = \"a\"\ngroup_percent = [10, 0, 0, 80]\n",
                "eval.toml: line 3: key `scenarios[0].group_percent (sum)`: 90: must be 100",
            ),
            (
                "[[scenarios]]\nname = \"a\"\ngroup_percent = [0, 0, 100]\n",
                "eval.toml: line 3: key `scenarios[0].group_percent`: 3 groups: must be one group per core of the platform",
            ),
            (
                "[[scenarios]]\nname = \"a\"\ngroup_percent = [0, 0, 0, 100]\n[[scenarios]]\nname = \"a\"\ngroup_percent = [0, 0, 0, 100]\n",
                "eval.toml: line 4: key `scenarios[1]`: a: must be one no other item of the list is",
            ),
            (
                "policies = [\"x0\"]\n",
                "eval.toml: line 1: key `policies`: invalid value: string \"x0\", expected a policy: \"shared\" or \"xN\" (N from 1 to 100)",
            ),
            (
                "[sim.speculation]\npolicy = \"shared\"\n",
                "eval.toml: line 2: key `sim.speculation.policy`: shared: must be left at x100: `policies` and `table7.policies` set each cell's",
            ),
            (
                "straggler_factor = 0.5\n",
                "eval.toml: line 1: key `straggler_factor`: 0.5: must be >= 1",
            ),
            (
                "[sim.speculation]\nlag_secs = -1\n",
                "eval.toml: line 2: key `sim.speculation.lag_secs`: -1: must be >= 0",
            ),
            (
                "repetitions = 0\n",
                "eval.toml: line 1: key `repetitions`: 0: must be >= 1",
            ),
            (
                "seed = 1\nrepetitions = -3\n",
                "eval.toml: line 2: key `repetitions`: -3 is not in 1..=1000",
            ),
            (
                "[sim.workload]\nreduces = 4294967296\n",
                "eval.toml: line 2: key `sim.workload.reduces`: 4294967296 is not in 0..=1000000",
            ),
            (
                "sim = [1]\n",
                "eval.toml: line 1: key `sim`: invalid type: integer `1`, expected a table",
            ),
            (
                "[sim]\nplatform = 4\n",
                "eval.toml: line 2: key `sim.platform`: invalid type: integer `4`, expected a table",
            ),
            (
                "[[scenarios]]\nname = \"baseline\"\ngroup_percent = [0, 0, 0, 100]\n",
                "eval.toml: line 2: key `scenarios[0].name`: \"baseline\": must be a name without whitespace, other than \"baseline\"",
            ),
            (
                "policies = [\"x095\"]\n",
                "eval.toml: line 1: key `policies`: invalid value: string \"x095\", expected a policy: \"shared\" or \"xN\" (N from 1 to 100)",
            ),
            (
                "policies = [\"x90\", \"shared\", \"x90\"]\n",
                "eval.toml: line 1: key `policies[2]`: x90: must be one no other item of the list is",
            ),
            (
                "[fig3]\nlags_secs = [20, 20]\n",
                "eval.toml: line 2: key `fig3.lags_secs[1]`: 20: must be one no other item of the list is",
            ),
            (
                "[fig3]\nlags_secs = [20, -20]\n",
                "eval.toml: line 2: key `fig3.lags_secs[1]`: -20: must be >= 0",
            ),
            (
                "table5_quantiles = [0.5, 1.5]\n",
                "eval.toml: line 1: key `table5_quantiles[1]`: 1.5: must be in [0, 1]",
            ),
            (
                "[sim.platform]\nworkers = 1\ncontainers = 1\n",
                "eval.toml: key `table7.policies[1]`: x95: must be large enough to leave regular tasks at least one container per node",
            ),
            (
                "[sim]\nspeculation = [30]\n",
                "eval.toml: line 2: key `sim.speculation`: a list where a table belongs",
            ),
            (
                "scenarios = [[\"x\", [0, 0, 0, 100]]]\n",
                "eval.toml: line 1: key `scenarios[0]`: a list where a table belongs",
            ),
            (
                "scenarios = [\n  { name = \"a\", group_percent = \"x\" },\n]\n",
                "eval.toml: line 2: key `scenarios`: invalid type: string \"x\", expected a sequence",
            ),
            (
                "table5_quantiles = [\n  0.5,\n  [2],\n]\nrepetitions = 0\n",
                "eval.toml: line 3: key `table5_quantiles`: invalid type: sequence, expected f64",
            ),
            (
                "[fig3]\ndetector = \"\"\"\nlate(alpha = 0.5) [x\n\"\"\"\nlags_secs = [1, \"x\"]\n",
                "eval.toml: line 5: key `fig3.lags_secs`: invalid type: string \"x\", expected f64",
            ),
            (
                "[fig3]\ndetector = \"\"\"\nlate [x\"\"\"\n[sim.platform]\nworkers = 0\n",
                "eval.toml: line 5: key `sim.platform.workers`: 0: must be >= 1",
            ),
            (
                "[sim]\n\"a/b\" = 1\n",
                "eval.toml: line 2: key `sim.a/b`: unknown key; the known keys here include `copies`, `noise`, `platform`, `power`, `slowdown`, `speculation`, `time_limit_secs`, `workload`",
            ),
            (
                "[sim.platform]\nworkers = 1000000\ncontainers = 10000\n",
                "eval.toml: line 2: key `sim.platform.workers * sim.platform.containers`: 10000000000: must be at most 10000000 (see docs/simulation.md, Limits)",
            ),
            (
                "[sim]\nplatform = { workers = 0 }\n",
                "eval.toml: line 2: key `sim.platform.workers`: 0: must be >= 1",
            ),
            (
                "scenarios = [{ name = \"a\", group_percent = [0, 0, 100] }]\n",
                "eval.toml: line 1: key `scenarios[0].group_percent`: 3 groups: must be one group per core of the platform",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(read(text).unwrap_err(), expected, "{text}");
        }
    }
}
