//! Reference times from sibling tasks, for runs without homogeneous baselines (seeds 002
//! and 004).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
