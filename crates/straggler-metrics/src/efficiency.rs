//! The existing efficiency and characterising metrics of Table 2.

use serde::{Deserialize, Serialize};
use straggler_model::{Attempt, AttemptRole, AttemptStatus, Run};

use crate::MetricsError;
use crate::mean::finite_mean;

/// The metrics of Table 2 of the seed paper for one run (energy is computed by
/// `straggler-energy`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EfficiencyMetrics {
    /// Job execution time (makespan), seconds.
    pub execution_time_secs: f64,
    /// Longest task time / mean task time over completed tasks ("heavy-tail
    /// reduction"); `None` without completed task or if the mean is 0.
    pub heavy_tail_ratio: Option<f64>,
    /// Resource consumption: the run time of every attempt, summed, container-seconds.
    pub container_secs: f64,
    /// Wasteful resource occupation: the run time of the unsuccessful (killed or failed)
    /// speculative copies, summed, container-seconds.
    pub wasted_container_secs: f64,
    /// Number of speculative copies launched.
    pub speculative_copies: usize,
    /// Speculative copies that succeeded (finished first).
    pub successful_copies: usize,
    /// Speculative copies that were killed or failed.
    pub unsuccessful_copies: usize,
    /// Tasks left out of the heavy-tail ratio: no succeeded attempt, or no original one.
    pub incomplete_tasks: usize,
}

/// The Table 2 metrics of `run`:
///
/// ```text
/// execution_time_secs   = run.end_secs
/// container_secs        = sum over attempts of (end - start)
/// wasted_container_secs = sum over killed or failed speculative attempts of (end - start)
/// task time             = end of its succeeded attempt (original or copy)
///                         - start of its first original attempt
/// heavy_tail_ratio      = max task time / mean task time     (completed tasks only)
/// ```
///
/// An attempt still running counts until `run.end_secs` (none is left in a finished run).
/// A task without a succeeded attempt, or without an original attempt, is counted in
/// `incomplete_tasks` and left out of the heavy-tail ratio; a mean task time of 0 (every
/// completed task took no time) leaves the ratio `None`. The mean cannot overflow: task
/// times above `f64::MAX` in total are averaged scaled by the longest (the plain
/// `sum / count` otherwise), so the ratio is finite: two tasks of `f64::MAX` seconds give 1.
///
/// # Errors
///
/// [`MetricsError::BadRun`] for a `run.end_secs` that is NaN, infinite or negative;
/// [`MetricsError::BadAttempt`] for an attempt whose start or end is NaN, infinite or
/// negative, whose end is before its start, or whose start or end is after
/// `run.end_secs`; [`MetricsError::MissingEnd`] for an attempt that succeeded, was killed
/// or failed but has no end; [`MetricsError::UnknownTask`] for an attempt of a task the
/// run does not have; [`MetricsError::TotalOverflow`] if the attempts' times add up to
/// more than `f64::MAX` container-seconds.
pub fn efficiency_metrics(run: &Run) -> Result<EfficiencyMetrics, MetricsError> {
    if !(run.end_secs.is_finite() && run.end_secs >= 0.0) {
        return Err(MetricsError::BadRun {
            field: "end_secs",
            value: run.end_secs,
            range: "finite and >= 0",
        });
    }
    let tasks = run.tasks.len();
    let mut first_original_start: Vec<Option<f64>> = vec![None; tasks];
    let mut completion: Vec<Option<f64>> = vec![None; tasks];
    let mut container_secs = 0.0;
    let mut wasted_container_secs = 0.0;
    let mut speculative_copies = 0;
    let mut successful_copies = 0;
    let mut unsuccessful_copies = 0;
    for attempt in &run.attempts {
        let task = attempt.task.index();
        if task >= tasks {
            return Err(MetricsError::UnknownTask {
                attempt: attempt.id,
                task: attempt.task,
                tasks,
            });
        }
        let end = check_attempt(attempt, run.end_secs)?;
        let ran = end.unwrap_or(run.end_secs) - attempt.start_secs;
        container_secs = add_total("container_secs", container_secs, ran, attempt)?;
        match attempt.role {
            AttemptRole::Original => {
                let first = &mut first_original_start[task];
                *first = Some(first.map_or(attempt.start_secs, |s: f64| s.min(attempt.start_secs)));
            }
            AttemptRole::Speculative => {
                speculative_copies += 1;
                match attempt.status {
                    AttemptStatus::Succeeded => successful_copies += 1,
                    AttemptStatus::Killed | AttemptStatus::Failed => {
                        unsuccessful_copies += 1;
                        wasted_container_secs = add_total(
                            "wasted_container_secs",
                            wasted_container_secs,
                            ran,
                            attempt,
                        )?;
                    }
                    AttemptStatus::Running => {}
                }
            }
        }
        if attempt.status == AttemptStatus::Succeeded
            && let Some(end) = end
        {
            let done = &mut completion[task];
            *done = Some(done.map_or(end, |d: f64| d.min(end)));
        }
    }
    let task_secs: Vec<f64> = first_original_start
        .iter()
        .zip(&completion)
        .filter_map(|(start, end)| Some((end.as_ref()? - start.as_ref()?).max(0.0)))
        .collect();
    let incomplete_tasks = tasks - task_secs.len();
    let heavy_tail_ratio = finite_mean(&task_secs).and_then(|mean| {
        let longest = task_secs.iter().copied().fold(0.0, f64::max);
        (mean > 0.0).then(|| longest / mean)
    });
    Ok(EfficiencyMetrics {
        execution_time_secs: run.end_secs,
        heavy_tail_ratio,
        container_secs,
        wasted_container_secs,
        speculative_copies,
        successful_copies,
        unsuccessful_copies,
        incomplete_tasks,
    })
}

/// `total + secs`, or [`MetricsError::TotalOverflow`] naming `attempt` if that is above
/// `f64::MAX` (`total` and `secs` are finite and non-negative).
fn add_total(
    name: &'static str,
    total: f64,
    secs: f64,
    attempt: &Attempt,
) -> Result<f64, MetricsError> {
    let sum = total + secs;
    if sum.is_finite() {
        Ok(sum)
    } else {
        Err(MetricsError::TotalOverflow {
            total: name,
            attempt: attempt.id,
        })
    }
}

/// Checks an attempt's times against each other, its status and the run's end
/// `run_end_secs` (already checked); returns its end.
fn check_attempt(attempt: &Attempt, run_end_secs: f64) -> Result<Option<f64>, MetricsError> {
    let bad = |field, value, range| MetricsError::BadAttempt {
        attempt: attempt.id,
        field,
        value,
        range,
    };
    let start = attempt.start_secs;
    if !(start.is_finite() && start >= 0.0) {
        return Err(bad("start_secs", start, "finite and >= 0"));
    }
    if start > run_end_secs {
        return Err(bad("start_secs", start, "<= run.end_secs"));
    }
    match attempt.end_secs {
        Some(end) if !(end.is_finite() && end >= start) => {
            Err(bad("end_secs", end, "finite and >= start_secs"))
        }
        Some(end) if end > run_end_secs => Err(bad("end_secs", end, "<= run.end_secs")),
        None if attempt.status != AttemptStatus::Running => Err(MetricsError::MissingEnd {
            attempt: attempt.id,
            status: attempt.status,
        }),
        end => Ok(end),
    }
}
