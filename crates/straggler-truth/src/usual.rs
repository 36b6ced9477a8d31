//! Usual execution times of tasks, from repeated baseline runs (Section 6.1).

use std::collections::BTreeMap;

use straggler_model::{Run, TaskKey, check_range};

use crate::TruthError;
use crate::quantile::interpolate;

/// The usual execution time of each task key: the X-quantile of its execution times over
/// repeated runs of the same job on a homogeneous platform (seed paper, Section 6.1; the
/// paper uses X = 0.5 over 10 runs). Quantiles interpolate linearly, as
/// [`quantile`](crate::quantile()).
#[derive(Debug, Clone, PartialEq)]
pub struct UsualTimes {
    quantile: f64,
    times: BTreeMap<TaskKey, f64>,
}

impl UsualTimes {
    /// The usual time of each key from `(key, execution time in seconds)` samples, at
    /// `quantile` X in `[0, 1]`.
    ///
    /// # Errors
    ///
    /// `quantile` not in `[0, 1]`; an execution time that is NaN, infinite or negative
    /// ([`TruthError::BadExecTime`], naming the key).
    pub fn from_samples(
        samples: impl IntoIterator<Item = (TaskKey, f64)>,
        quantile: f64,
    ) -> Result<Self, TruthError> {
        check_range("quantile", quantile, 0.0, 1.0, "in [0, 1]")?;
        let groups = group_samples(samples)?;
        Ok(Self::from_groups(&groups, quantile))
    }

    /// The usual time of each key from baseline runs: every task of every run contributes
    /// the execution time of its original attempt ([`Run::original_times`], measured or
    /// estimated from progress for a killed original) under its [`TaskKey`].
    ///
    /// # Errors
    ///
    /// As [`UsualTimes::from_samples`], plus [`TruthError::OriginalNotEnded`] for a task
    /// whose original attempt never ended.
    pub fn from_runs(runs: &[Run], quantile: f64) -> Result<Self, TruthError> {
        check_range("quantile", quantile, 0.0, 1.0, "in [0, 1]")?;
        Self::from_samples(baseline_samples(runs)?, quantile)
    }

    pub(crate) fn from_groups(groups: &BTreeMap<TaskKey, Vec<f64>>, quantile: f64) -> Self {
        let times = groups
            .iter()
            .filter_map(|(key, sorted)| Some((*key, interpolate(sorted, quantile)?)))
            .collect();
        UsualTimes { quantile, times }
    }

    /// The quantile X the usual times were taken at.
    pub fn quantile(&self) -> f64 {
        self.quantile
    }

    /// The usual execution time of `key` in seconds, if any sample had that key.
    pub fn get(&self, key: &TaskKey) -> Option<f64> {
        self.times.get(key).copied()
    }

    /// Number of task keys.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether there is no task key.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The usual time of each task of `run`, in [`Run::tasks`] order: what the detection
    /// metrics label the run's tasks against (`straggler_metrics::task_records_of_run`).
    ///
    /// ```
    /// use straggler_model::*;
    /// use straggler_truth::UsualTimes;
    ///
    /// let key = |index| TaskKey { job: JobId(0), kind: TaskKind::Map, index };
    /// let usual = UsualTimes::from_samples([(key(0), 9.0), (key(0), 11.0), (key(1), 4.0)], 0.5)?;
    /// let task = |i| Task { id: TaskId(i), key: key(i), stage: StageId(0), input_bytes: 0 };
    /// let run = Run { tasks: vec![task(0), task(1)], ..Run::default() };
    /// assert_eq!(usual.of_run(&run)?, [10.0, 4.0]); // (9 + 11) / 2 and 4
    /// # Ok::<(), straggler_truth::TruthError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`TruthError::NoUsualTime`] naming the first task whose key no sample had.
    pub fn of_run(&self, run: &Run) -> Result<Vec<f64>, TruthError> {
        run.tasks
            .iter()
            .map(|task| {
                self.get(&task.key)
                    .ok_or(TruthError::NoUsualTime { key: task.key })
            })
            .collect()
    }

    /// The keys and their usual times in seconds, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (TaskKey, f64)> + '_ {
        self.times.iter().map(|(key, time)| (*key, *time))
    }
}

/// The `(key, execution time)` samples of baseline runs: for every task of every run, the
/// execution time of its original attempt ([`Run::original_times`]) under the task's key.
///
/// # Errors
///
/// [`TruthError::OriginalNotEnded`] for a task whose original attempt never ended,
/// [`TruthError::BadRun`] for a run whose original times cannot be read
/// ([`Run::original_times`]).
pub fn baseline_samples(runs: &[Run]) -> Result<Vec<(TaskKey, f64)>, TruthError> {
    let mut samples = Vec::new();
    for (run_index, run) in runs.iter().enumerate() {
        let times = run.original_times().map_err(|error| TruthError::BadRun {
            run: run_index,
            error,
        })?;
        for (task, original) in run.tasks.iter().zip(times) {
            let original = original.ok_or(TruthError::OriginalNotEnded {
                run: run_index,
                key: task.key,
            })?;
            samples.push((task.key, original.exec_secs));
        }
    }
    Ok(samples)
}

/// Groups samples by key, each group sorted, after checking every time.
pub(crate) fn group_samples(
    samples: impl IntoIterator<Item = (TaskKey, f64)>,
) -> Result<BTreeMap<TaskKey, Vec<f64>>, TruthError> {
    let mut groups: BTreeMap<TaskKey, Vec<f64>> = BTreeMap::new();
    for (key, value) in samples {
        if !value.is_finite() || value < 0.0 {
            return Err(TruthError::BadExecTime { key, value });
        }
        groups.entry(key).or_default().push(value);
    }
    for times in groups.values_mut() {
        times.sort_by(f64::total_cmp);
    }
    Ok(groups)
}
