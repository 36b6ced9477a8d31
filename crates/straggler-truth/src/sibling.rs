//! Reference times from sibling tasks, for runs without homogeneous baselines (seeds 002
//! and 004).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use straggler_model::{AttemptRole, AttemptStatus, Run};

use crate::TruthError;
use crate::quantile::interpolate;

/// Which statistic of the siblings is the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SiblingReference {
    /// The median (linear interpolation, the mean of the two middle values for an even
    /// count), as Garraghan et al. (seed 004) label stragglers against the job median.
    Median,
    /// The mean, as Ouyang et al. (seed 002) label stragglers against the job average (a
    /// duration 50% above it) and normalise durations by the job mean.
    Mean,
}

/// The reference (usual) time of each task from its siblings: the tasks with the same
/// group id (the same job and stage), the task itself included.
///
/// Without `normalise_by`:
///
/// ```text
/// usual_i = median or mean of { exec_j : group_j = group_i }
/// ```
///
/// With `normalise_by` (input sizes), per unit of input:
///
/// ```text
/// Median:  usual_i = size_i * median { exec_j / size_j : group_j = group_i }
/// Mean:    usual_i = size_i * (sum exec_j) / (sum size_j)        over the group
/// ```
///
/// The `Mean` form is the denominator of Garraghan et al.'s DoS-index (seed 004, Eq. 1),
/// `DoS_i = (Dur_i / Inp_i) / (mean Dur / mean Inp)`, so that `exec_i / usual_i` is
/// exactly the DoS-index. Label with [`StragglerRule`](crate::StragglerRule) as usual
/// (seeds 002 and 004 use factor 1.5).
///
/// # Errors
///
/// Slices of different lengths; an execution time that is NaN, infinite or negative; a
/// size that is NaN, infinite or not positive, or so small that the time per unit
/// overflows; [`TruthError::Overflow`] for a usual time beyond binary64's range (sizes and
/// times near its limits).
pub fn sibling_usual_times(
    groups: &[u32],
    exec_secs: &[f64],
    reference: SiblingReference,
    normalise_by: Option<&[f64]>,
) -> Result<Vec<f64>, TruthError> {
    usual_times(groups, exec_secs, reference, normalise_by, None)
}

/// [`sibling_usual_times`] with the reference of each group taken over its tasks `i` with
/// `in_reference[i]` only (every task of the group when none is): the others are given
/// their group's reference without making it. A trace's task re-run after its original
/// failed is left out so: its time is the re-run's, which may redo the work or find part
/// of it done.
///
/// # Errors
///
/// Those of [`sibling_usual_times`], and `in_reference` of another length than `groups`.
pub fn sibling_usual_times_among(
    groups: &[u32],
    exec_secs: &[f64],
    reference: SiblingReference,
    normalise_by: Option<&[f64]>,
    in_reference: &[bool],
) -> Result<Vec<f64>, TruthError> {
    usual_times(
        groups,
        exec_secs,
        reference,
        normalise_by,
        Some(in_reference),
    )
}

/// The usual time of each task of a finished `run`, in [`Run::tasks`] order, from its
/// siblings: [`sibling_usual_times_among`] with the tasks of one stage as a group, each
/// timed by its original attempt ([`Run::original_times`]: the last that did not fail, a
/// killed one's time estimated from its progress), and with `normalise_by_input` per byte
/// of [`Task::input_bytes`](straggler_model::Task::input_bytes). A task an original of
/// which failed is timed by its re-run, which may redo the work or find part of it done:
/// it is labelled against its siblings but left out of their reference, as the trace
/// replay leaves it (unless every task of its stage was re-run).
///
/// ```
/// use straggler_model::*;
/// use straggler_truth::{SiblingReference, sibling_usual_times_of_run};
/// use AttemptStatus::{Failed, Succeeded};
///
/// let task = |i| Task {
///     id: TaskId(i),
///     key: TaskKey { job: JobId(0), kind: TaskKind::Map, index: i },
///     stage: StageId(0),
///     input_bytes: 64,
/// };
/// let original = |i, task, start, end, status| {
///     Attempt::started(AttemptId(i), TaskId(task), NodeId(0), AttemptRole::Original, start)
///         .ended(end, status, if status == Succeeded { 1.0 } else { 0.2 })
/// };
/// let run = Run {
///     tasks: (0..4).map(task).collect(),
///     attempts: vec![
///         original(0, 0, 0.0, 10.0, Succeeded),
///         original(1, 1, 0.0, 30.0, Succeeded),
///         original(2, 2, 0.0, 3.0, Failed), // lost: task 2 runs again
///         original(3, 2, 4.0, 6.0, Succeeded),
///         original(4, 3, 0.0, 11.0, Succeeded),
///     ],
///     end_secs: 30.0,
///     ..Run::default()
/// };
/// // The median of 10, 30 and 11 (the re-run's 2 s left out) for every task.
/// let usual = sibling_usual_times_of_run(&run, SiblingReference::Median, false)?;
/// assert_eq!(usual, [11.0; 4]);
/// # Ok::<(), straggler_truth::TruthError>(())
/// ```
///
/// # Errors
///
/// [`TruthError::BadRun`] (as run 0) for a run whose original times cannot be read
/// ([`Run::original_times`]), [`TruthError::OriginalNotEnded`] (as run 0) for a task whose
/// original never ended, and those of [`sibling_usual_times_among`] (`normalise_by[i]`
/// is task `i`'s input size, which must be above 0).
pub fn sibling_usual_times_of_run(
    run: &Run,
    reference: SiblingReference,
    normalise_by_input: bool,
) -> Result<Vec<f64>, TruthError> {
    let times = run
        .original_times()
        .map_err(|error| TruthError::BadRun { run: 0, error })?;
    let exec_secs = run
        .tasks
        .iter()
        .zip(&times)
        .map(|(task, time)| {
            time.map(|t| t.exec_secs)
                .ok_or(TruthError::OriginalNotEnded {
                    run: 0,
                    key: task.key,
                })
        })
        .collect::<Result<Vec<f64>, _>>()?;
    let mut in_reference = vec![true; run.tasks.len()];
    for attempt in &run.attempts {
        if attempt.role == AttemptRole::Original && attempt.status == AttemptStatus::Failed {
            // original_times checked every attempt's task.
            in_reference[attempt.task.index()] = false;
        }
    }
    let groups: Vec<u32> = run.tasks.iter().map(|task| task.stage.0).collect();
    let sizes: Option<Vec<f64>> = normalise_by_input.then(|| {
        run.tasks
            .iter()
            .map(|task| task.input_bytes as f64)
            .collect()
    });
    sibling_usual_times_among(
        &groups,
        &exec_secs,
        reference,
        sizes.as_deref(),
        &in_reference,
    )
}

/// [`sibling_usual_times_among`], every task in the reference without `in_reference`.
fn usual_times(
    groups: &[u32],
    exec_secs: &[f64],
    reference: SiblingReference,
    normalise_by: Option<&[f64]>,
    in_reference: Option<&[bool]>,
) -> Result<Vec<f64>, TruthError> {
    let expected = groups.len();
    if let Some(flags) = in_reference
        && flags.len() != expected
    {
        return Err(TruthError::LengthMismatch {
            field: "in_reference",
            len: flags.len(),
            expected,
        });
    }
    if exec_secs.len() != expected {
        return Err(TruthError::LengthMismatch {
            field: "exec_secs",
            len: exec_secs.len(),
            expected,
        });
    }
    for (index, &value) in exec_secs.iter().enumerate() {
        if !value.is_finite() || value < 0.0 {
            return Err(TruthError::BadElement {
                field: "exec_secs",
                index,
                value,
                range: "finite and >= 0",
            });
        }
    }
    if let Some(sizes) = normalise_by {
        if sizes.len() != expected {
            return Err(TruthError::LengthMismatch {
                field: "normalise_by",
                len: sizes.len(),
                expected,
            });
        }
        for (index, &value) in sizes.iter().enumerate() {
            if !value.is_finite() || value <= 0.0 {
                return Err(TruthError::BadElement {
                    field: "normalise_by",
                    index,
                    value,
                    range: "finite and > 0",
                });
            }
            if !(exec_secs[index] / value).is_finite() {
                return Err(TruthError::BadElement {
                    field: "normalise_by",
                    index,
                    value,
                    range: "large enough that exec_secs / normalise_by is finite",
                });
            }
        }
    }
    let size = |i: usize| normalise_by.map_or(1.0, |sizes| sizes[i]);

    let mut members: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, &group) in groups.iter().enumerate() {
        members.entry(group).or_default().push(i);
    }
    // Each group's reference tasks: those in the reference, or all when it has none.
    if let Some(flags) = in_reference {
        for tasks in members.values_mut() {
            if tasks.iter().any(|&i| flags[i]) {
                tasks.retain(|&i| flags[i]);
            }
        }
    }
    let mut per_unit: BTreeMap<u32, f64> = BTreeMap::new();
    for (group, tasks) in &members {
        let value = match reference {
            SiblingReference::Median => {
                let mut rates: Vec<f64> = tasks.iter().map(|&i| exec_secs[i] / size(i)).collect();
                rates.sort_by(f64::total_cmp);
                interpolate(&rates, 0.5).unwrap_or(0.0)
            }
            SiblingReference::Mean => {
                let total_exec: f64 = tasks.iter().map(|&i| exec_secs[i]).sum();
                let total_size: f64 = tasks.iter().map(|&i| size(i)).sum();
                if total_exec.is_finite() && total_size.is_finite() {
                    total_exec / total_size
                } else {
                    // Sums beyond binary64's range: the same ratio of means, each value
                    // divided by the count before it is added.
                    let n = tasks.len() as f64;
                    let mean_exec: f64 = tasks.iter().map(|&i| exec_secs[i] / n).sum();
                    let mean_size: f64 = tasks.iter().map(|&i| size(i) / n).sum();
                    mean_exec / mean_size
                }
            }
        };
        per_unit.insert(*group, value);
    }
    groups
        .iter()
        .enumerate()
        .map(|(index, group)| {
            let usual = per_unit[group] * size(index);
            if usual.is_finite() {
                Ok(usual)
            } else {
                Err(TruthError::Overflow {
                    what: "the usual time",
                    index,
                })
            }
        })
        .collect()
}
