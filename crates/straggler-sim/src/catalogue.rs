//! The built-in detectors: the paper's three, the engines' rules, the seeds' detectors and
//! the oracle, each with its parameters, which [`DetectorSpec::tuned`] sets.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use straggler_detect::garraghan::ProgressHistory;
use straggler_detect::hadoop::{
    ExpSmoothedParams, ExponentiallySmoothed, Legacy, RuntimeEstimator, SimpleExpParams,
    SimpleExponential,
};
use straggler_detect::{
    DefaultDetector, DefaultParams, DetectError, Detector, DosIndex, DosIndexParams, Dsb, DsbOver,
    DsbParams, ESplash, ESplashParams, GarraghanDetector, GarraghanMode, GarraghanParams, Hadoop1,
    Hadoop1Params, HadoopParams, HadoopSpeculator, Hierarchical, HierarchicalParams, LateDetector,
    LateParams, Oracle, OracleParams, SparkDetector, SparkParams, ZahariaLate, ZahariaLateParams,
};

use crate::{DetectorSpec, SimError, tuning};

impl DetectorSpec {
    /// The oracle (`"oracle"`): it knows which tasks straggle in the run of the same
    /// configuration, scenario and seed *without a detector* and flags each at
    /// `params.fraction` of its execution time there. [`Evaluation::run`] gives it that
    /// truth ([`oracle_for`](crate::oracle_for())), labelled as the evaluation labels;
    /// [`DetectorSpec::make`] alone gives an oracle that knows no straggler and flags
    /// nothing. It bounds the detectors where copies leave the regular tasks where they
    /// ran without copies (x100: copies start once no task waits); under Shared and the
    /// reservations its copies move the later maps, the run it is scored on has other
    /// stragglers, and it can score below other detectors (`docs/simulation.md`, "What the
    /// oracle bounds").
    ///
    /// [`Evaluation::run`]: crate::Evaluation::run
    ///
    /// # Errors
    ///
    /// `params.fraction` outside `(0, 1)`.
    pub fn oracle(params: OracleParams) -> Result<Self, SimError> {
        params.check()?;
        let preset = DetectorSpec::tunable(OracleParams::default(), &[], oracle_spec);
        let table = toml::Table::try_from(params).expect("parameters are a table");
        let set = tuning::differing(preset.params().expect("a built-in"), &table);
        preset.tuned(&set)
    }

    /// The paper's three detectors, then the oracle at 10% of each straggler's run: what
    /// [`Evaluation::paper`](crate::Evaluation::paper) evaluates.
    pub fn paper_and_oracle() -> Vec<DetectorSpec> {
        let mut specs = DetectorSpec::paper();
        specs.push(default_oracle());
        specs
    }

    /// Every detector of [`DetectorSpec::all`], then the oracle at 10%.
    pub fn all_and_oracle() -> Vec<DetectorSpec> {
        let mut specs = DetectorSpec::all();
        specs.push(default_oracle());
        specs
    }

    /// The paper's three detectors with their default parameters, in its order: Default,
    /// Hierarchical (over Default), LATE.
    pub fn paper() -> Vec<DetectorSpec> {
        vec![
            built_in(
                "default",
                "progress score below the stage's mean minus 0.2 (Dean & Ghemawat, CACM 2008; Phan et al., ACM TOMPECS 2019, Eq. 6)",
                DefaultParams::default(),
                DefaultParams::check,
                DefaultDetector::new,
            ),
            DetectorSpec::tunable(HierarchicalSetting::default(), &[], |setting| {
                let (checked, inner) = (setting.params.check()?, setting.inner.check()?);
                Ok(DetectorSpec::new(
                    "hierarchical",
                    "Default's detections kept on nodes below 0.9 x the mean node speed (Phan et al., Euro-Par 2017; Phan et al., ACM TOMPECS 2019, Sec. 5.5)",
                    move || Box::new(Hierarchical::new(DefaultDetector::new(inner), checked)),
                ))
            }),
            built_in(
                "late",
                "progress rate below the stage's mean minus 1 standard deviation (LATE as in Phan et al., ACM TOMPECS 2019, Eqs. 7-10)",
                LateParams::default(),
                LateParams::check,
                LateDetector::new,
            ),
        ]
    }

    /// The paper's three detectors, then the engines' own rules for comparison: Hadoop 1,
    /// Hadoop 2's speculator over its three runtime estimators, Spark with the 4.0 and the
    /// older defaults, and LATE as Zaharia published it; then the node-level detectors of
    /// seeds 001 and 002 (eSplash, DSB and DSB with number 3), and seed 004's Garraghan et
    /// al. and DoS-index rules.
    pub fn all() -> Vec<DetectorSpec> {
        let mut all = DetectorSpec::paper();
        all.push(built_in(
            "hadoop1",
            "Hadoop 1: progress 0.2 below the mean of all the stage's tasks, 60 s into the job, one attempt running",
            Hadoop1Params::default(),
            Hadoop1Params::check,
            Hadoop1::new,
        ));
        all.extend(hadoop_speculators());
        all.extend([
            built_in(
                "spark",
                "Spark 4: runtime above 3 x the median of the finished tasks once 90% finished, efficiency check",
                SparkParams::default(),
                SparkParams::check,
                SparkDetector::new,
            ),
            built_in(
                "spark-legacy",
                "Spark before 4.0: runtime above 1.5 x the median of the finished tasks once 75% finished",
                SparkParams::legacy(),
                SparkParams::check,
                SparkDetector::new,
            ),
            built_in(
                "late-zaharia",
                "LATE (Zaharia et al., OSDI 2008): 25th-percentile rate, 10% cap, longest time left first, no copy on slow nodes",
                ZahariaLateParams::default(),
                ZahariaLateParams::check,
                ZahariaLate::new,
            ),
        ]);
        all.extend(node_level_detectors());
        all.extend(seed004_detectors());
        all
    }
}

/// A built-in detector `name` made by `make` from its parameters, `preset` or others, once
/// `check` passed them.
fn built_in<P, C, D>(
    name: &'static str,
    description: &'static str,
    preset: P,
    check: fn(P) -> Result<C, DetectError>,
    make: fn(C) -> D,
) -> DetectorSpec
where
    P: Serialize + for<'de> Deserialize<'de> + 'static,
    C: Copy + Send + Sync + 'static,
    D: Detector + 'static,
{
    DetectorSpec::tunable(preset, &[], move |params| {
        let checked = check(params)?;
        Ok(DetectorSpec::new(name, description, move || {
            Box::new(make(checked))
        }))
    })
}

/// The oracle with `params`, which [`DetectorSpec::oracle`] has checked.
fn oracle_spec(params: OracleParams) -> Result<DetectorSpec, DetectError> {
    let checked = params.check()?;
    let percent = params.fraction * 100.0;
    let mut spec = DetectorSpec::new(
        "oracle",
        &format!(
            "knows the stragglers of the run without copies: flags each at {percent}% of its time there (a bound under x100 only)"
        ),
        move || Box::new(Oracle::new(checked, []).expect("no straggler to check")),
    );
    spec.oracle = Some(params);
    Ok(spec)
}

fn default_oracle() -> DetectorSpec {
    DetectorSpec::oracle(OracleParams::default()).expect("default parameters are valid")
}

/// Hierarchical's parameters and those of the Default detector it wraps (`inner`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct HierarchicalSetting {
    #[serde(flatten)]
    params: HierarchicalParams,
    inner: DefaultParams,
}

/// The parameters of Hadoop 2's speculator and of its runtime estimator, side by side.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct SpeculatorSetting<E> {
    #[serde(flatten)]
    speculator: HadoopParams,
    #[serde(flatten)]
    estimator: E,
}

/// The legacy estimator's parameters: it has none.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct NoParams {}

/// Hadoop 2's DefaultSpeculator over its three runtime estimators.
fn hadoop_speculators() -> [DetectorSpec; 3] {
    const RULE: &str = "Hadoop 2 DefaultSpeculator: per stage and scan, the task whose estimated end lies furthest past a new copy's, once 5% of the stage finished, none waiting; estimate";
    [
        speculator_spec::<NoParams, Legacy>(
            "hadoop-legacy",
            format!("{RULE} elapsed / progress (legacy)"),
            |_| Ok(Legacy),
        ),
        speculator_spec::<ExpSmoothedParams, ExponentiallySmoothed>(
            "hadoop-exp-smoothed",
            format!("{RULE} from the progress rate smoothed over reports (lambda 60 s)"),
            |params| Ok(ExponentiallySmoothed::new(params.check()?)),
        ),
        speculator_spec::<SimpleExpParams, SimpleExponential>(
            "hadoop-simple-exp",
            format!(
                "{RULE} from the rate by simple exponential smoothing (tau 120 s; Hussein et al., A Comprehensive Review of Speculation for Hadoop Ecosystem, Alg. 1-2)"
            ),
            |params| Ok(SimpleExponential::new(params.check()?)),
        ),
    ]
}

/// Hadoop 2's speculator over the estimator `estimator_of` makes from its parameters `P`.
fn speculator_spec<P, E>(
    name: &'static str,
    description: String,
    estimator_of: fn(P) -> Result<E, DetectError>,
) -> DetectorSpec
where
    P: Serialize + for<'de> Deserialize<'de> + Default + Copy + Send + Sync + 'static,
    E: RuntimeEstimator + Clone + Send + Sync + 'static,
{
    DetectorSpec::tunable(SpeculatorSetting::<P>::default(), &[], move |setting| {
        let checked = setting.speculator.check()?;
        let estimator = estimator_of(setting.estimator)?;
        Ok(DetectorSpec::new(name, &description, move || {
            Box::new(HadoopSpeculator::new(estimator.clone(), checked))
        }))
    })
}

/// The node-level detectors of seeds 001 and 002: eSplash, DSB without and with number,
/// and DSB beside YARN's speculator.
fn node_level_detectors() -> [DetectorSpec; 4] {
    let dsb = |name: &'static str, description: &'static str, preset: DsbParams| {
        DetectorSpec::tunable(preset, &["blacklist_size"], move |params| {
            let checked = params.check()?;
            Ok(DetectorSpec::new(name, description, move || {
                Box::new(Dsb::new(checked))
            }))
        })
    };
    [
        built_in(
            "esplash",
            "eSplash (Wang et al., IPCCC 2016): tasks on nodes slow for their k-means level (SV > 3) whose copy pays (minL); those nodes host no copy",
            ESplashParams::default(),
            ESplashParams::check,
            ESplash::new,
        ),
        dsb(
            "dsb",
            "DSB (Ouyang et al., FGCS 2019): tasks on nodes blacklisted by P-Cores over 95% t-intervals of normalised durations, every 60 s; no new task or copy there",
            DsbParams::default(),
        ),
        dsb(
            "dsb-top3",
            "DSB with number (Ouyang et al., FGCS 2019): at most 3 blacklisted nodes, by sd and mean of normalised durations",
            DsbParams::top(3),
        ),
        DetectorSpec::tunable(DsbYarnSetting::default(), &["blacklist_size"], |setting| {
            let (checked, inner) = (setting.params.check()?, setting.inner.check()?);
            Ok(DetectorSpec::new(
                "dsb-yarn",
                "DSB as the paper runs it (Ouyang et al., FGCS 2019, Sec. 5): Hadoop 2's DefaultSpeculator (legacy estimator) picks the copies; DSB's blacklist hosts no new task or copy",
                move || Box::new(DsbOver::new(HadoopSpeculator::new(Legacy, inner), checked)),
            ))
        }),
    ]
}

/// DSB's parameters and those of the speculator it runs beside (`inner`): YARN's, Hadoop
/// 2's `DefaultSpeculator` over the legacy estimator, its default.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct DsbYarnSetting {
    #[serde(flatten)]
    params: DsbParams,
    inner: HadoopParams,
}

/// Seed 004's detectors (Garraghan et al.): the combined, offline and online tests, and
/// the DoS-index rule at 2.5 and at 10.
fn seed004_detectors() -> Vec<DetectorSpec> {
    vec![
        garraghan_spec(
            "garraghan",
            "Garraghan et al. (IEEE TSC 2019, Sec. 6): progress below the median progress model stretched by Diff 0.5 and below half the stage median",
            GarraghanMode::Combined,
        ),
        garraghan_spec(
            "garraghan-offline",
            "Garraghan et al. offline (IEEE TSC 2019, Eq. 3): progress below the median progress model stretched by Diff 0.5",
            GarraghanMode::Offline,
        ),
        garraghan_spec(
            "garraghan-online",
            "Garraghan et al. online (IEEE TSC 2019, Sec. 6.2): progress below half the median progress of the stage",
            GarraghanMode::Online,
        ),
        built_in(
            "dos-index",
            "DoS-index >= 2.5: time per input byte against the stage's (Garraghan et al., IEEE TSC 2019, Eq. 1)",
            DosIndexParams::default(),
            DosIndexParams::check,
            DosIndex::new,
        ),
        built_in(
            "dos-index-10",
            "DoS-index >= 10, the extreme stragglers of Garraghan et al.'s diagnosis (IEEE TSC 2019, Eq. 1)",
            DosIndexParams::diagnosis(),
            DosIndexParams::check,
            DosIndex::new,
        ),
    ]
}

/// Garraghan et al.'s detector in `mode`. The modes with the offline model (combined,
/// offline) learn from past runs: in an [`Evaluation`](crate::Evaluation) they start from
/// the progress history of its baseline runs; made alone, from none.
fn garraghan_spec(
    name: &'static str,
    description: &'static str,
    mode: GarraghanMode,
) -> DetectorSpec {
    let preset = GarraghanParams {
        mode,
        ..GarraghanParams::default()
    };
    DetectorSpec::tunable(preset, &[], move |params| {
        let checked = params.check()?;
        let mut spec = DetectorSpec::new(name, description, move || {
            Box::new(GarraghanDetector::new(checked))
        });
        if params.mode != GarraghanMode::Online {
            let make = move |history: &ProgressHistory| -> Box<dyn Detector> {
                Box::new(GarraghanDetector::new(checked).with_history(history.clone()))
            };
            spec.with_history = Some(Arc::new(make));
        }
        Ok(spec)
    })
}
