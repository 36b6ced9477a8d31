//! The error type of the simulator.

use std::borrow::Cow;

use straggler_energy::EnergyError;
use straggler_model::ValueError;

/// Why a simulation or an experiment could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// A configuration value cannot be used.
    #[error("invalid configuration: {field} = {value}: must be {expected}")]
    InvalidConfig {
        /// The configuration key, dotted (`speculation.lag_secs`).
        field: String,
        /// The value given, as text.
        value: String,
        /// What it must be.
        expected: Cow<'static, str>,
    },
    /// No preset has this name.
    #[error("unknown scenario preset {name:?}; known: {known}")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The presets that exist.
        known: String,
    },
    /// A scenario file or an evaluation file cannot be used.
    #[error("{file}: {}{}{message}", line_label(*line), key_label(key))]
    ConfigFile {
        /// The file (or the origin given for a string).
        file: String,
        /// The line of the error, 1-based; 0 when the file does not write the key (a
        /// missing table, or a value left at a default that another value makes invalid).
        line: usize,
        /// The dotted key (`cluster.nodes`).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A detector's parameters cannot be set as asked ([`DetectorSpec::tuned`]).
    ///
    /// [`DetectorSpec::tuned`]: crate::DetectorSpec::tuned
    #[error("detector {detector}: {message}")]
    DetectorParams {
        /// The detector's name.
        detector: String,
        /// The parameter at fault, dotted (`inner.gap`), where one is.
        parameter: Option<String>,
        /// What is wrong, the parameter and its value included.
        message: String,
    },
    /// A list of detectors (`late, mad(k = 3)`) cannot be split into its items
    /// ([`split_list`]): a parenthesis, bracket, brace or quote is left open, or closed
    /// where another is due.
    ///
    /// [`split_list`]: crate::split_list
    #[error("{list:?}: {message}")]
    UnbalancedList {
        /// The list.
        list: String,
        /// What is left open or closed out of turn, and where (a byte offset in the list).
        message: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// Why, which the message includes (so that a chain of causes does not print it
        /// twice).
        error: std::io::Error,
    },
    /// The simulated job did not finish within the time limit.
    #[error(
        "the job did not finish within {limit_secs} simulated seconds ({done} of {total} tasks done)"
    )]
    DidNotFinish {
        /// The limit.
        limit_secs: f64,
        /// Tasks finished.
        done: usize,
        /// Tasks in all.
        total: usize,
    },
    /// A task of a run could not be labelled straggler or not.
    #[error("task {key} cannot be labelled: {reason}")]
    Unlabelled {
        /// The task.
        key: straggler_model::TaskKey,
        /// Why.
        reason: &'static str,
    },
    /// A model invariant was broken while building a snapshot (a bug in the engine).
    #[error(transparent)]
    Model(#[from] straggler_model::ModelError),
    /// Ground truth could not be computed.
    #[error(transparent)]
    Truth(#[from] straggler_truth::TruthError),
    /// Metrics could not be computed.
    #[error(transparent)]
    Metrics(#[from] straggler_metrics::MetricsError),
    /// A metric of an evaluation cell cannot be summarised over its repetitions (a NaN or
    /// infinite value, which no metric gives: a bug upstream).
    #[error("{cell}: metric {metric}: {source}")]
    Summary {
        /// The cell: experiment, scenario, policy and detector.
        cell: String,
        /// The metric's name.
        metric: String,
        /// Why.
        source: straggler_metrics::MetricsError,
    },
    /// A run of an evaluation cell failed (a detector's findings out of range, a job that
    /// did not finish). The cell, the repetition and the run's seed name it, so that it can
    /// be run again alone: [`crate::simulate`] with that seed, the cell's scenario and its
    /// configuration.
    #[error("{cell}, repetition {repetition} (seed {seed}): {error}")]
    Run {
        /// The cell: experiment, scenario, policy and detector.
        cell: String,
        /// The repetition, from 0.
        repetition: u32,
        /// The run's seed.
        seed: u64,
        /// Why, which the message includes (not a source, so that a chain of causes does
        /// not print it twice).
        error: Box<SimError>,
    },
    /// A run panicked: a detector's `scan` or `observe`, most likely (the panic's own
    /// message and place are printed by the panic hook before this error is returned).
    #[error("the run panicked: {message}")]
    Panicked {
        /// The panic's message.
        message: String,
    },
    /// An energy or slowdown parameter cannot be used.
    #[error(transparent)]
    Energy(#[from] straggler_energy::EnergyError),
    /// A detector parameter cannot be used.
    #[error(transparent)]
    Detect(#[from] straggler_detect::DetectError),
}

/// Checks that `value` is finite and satisfies `ok`, or names `field` in the error (which
/// expects `a finite number` of a value that is not, whatever `expected` says).
pub(crate) fn check(
    field: &str,
    value: f64,
    expected: &'static str,
    ok: impl FnOnce(f64) -> bool,
) -> Result<(), SimError> {
    if value.is_finite() && ok(value) {
        return Ok(());
    }
    Err(SimError::InvalidConfig {
        field: field.to_owned(),
        value: value.to_string(),
        expected: if value.is_finite() {
            expected
        } else {
            "a finite number"
        }
        .into(),
    })
}

/// An energy model's error under the table that holds the model (`power`, `slowdown`): a
/// bad value becomes the [`SimError::InvalidConfig`] of its dotted key (`power.idle_watts`),
/// as every other key's, so that a scenario file's error names its line; any other error
/// is kept as it is.
pub(crate) fn in_table(table: &str, error: EnergyError) -> SimError {
    let (field, value, expected) = match error {
        EnergyError::Value(ValueError::NotFinite { field, value }) => {
            (field, value, "a finite number")
        }
        EnergyError::Value(ValueError::OutOfRange {
            field,
            value,
            range,
        }) => (field, value, range),
        other => return SimError::Energy(other),
    };
    SimError::InvalidConfig {
        field: format!("{table}.{field}"),
        value: value.to_string(),
        expected: expected.into(),
    }
}

/// `line N: `, or nothing for line 0 (no line of the file).
fn line_label(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}: ")
    }
}

/// ``key `k`: ``, or nothing for no key (a syntax error between keys).
fn key_label(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("key `{key}`: ")
    }
}
