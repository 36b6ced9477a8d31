//! The detection metrics' records of a finished run's tasks, labelled against usual times.

use straggler_model::Run;

use crate::{MetricsError, TaskRecord};

/// One [`TaskRecord`] per task of `run` (in [`Run::tasks`] order), for
/// [`detection_metrics`](crate::detection_metrics): task `i` is timed by its original
/// attempt ([`Run::original_times`]: the last original that did not fail, a killed one's
/// time estimated from its progress), its usual time is `usual_secs[i]`, it is a straggler
/// iff `is_straggler(exec_secs, usual_secs[i])`, and its first detection is
/// [`Run::first_detection_secs`]:
///
/// ```text
/// start_secs           = start of the timed original
/// exec_secs            = its measured (or estimated) execution time
/// straggler            = is_straggler(exec_secs, usual_secs[i])
/// first_detection_secs = max(first detection, start_secs)
/// ```
///
/// A detection before the timed original's start (of a failed original, before its re-run
/// started) counts at that start, latency 0, as the workspace's evaluation and trace
/// replay count it; `detection_metrics` alone refuses a record detected before its start.
///
/// `usual_secs` comes from `straggler-truth`: per key from baseline runs
/// (`UsualTimes::get(&task.key)` for each task) or from the run's siblings
/// (`sibling_usual_times`, one per task); `is_straggler` is its rule
/// (`|exec, usual| rule.is_straggler(exec, usual)`).
///
/// ```
/// use straggler_metrics::{detection_metrics, task_records_of_run};
/// use straggler_model::*;
///
/// let task = |i| Task {
///     id: TaskId(i),
///     key: TaskKey { job: JobId(0), kind: TaskKind::Map, index: i },
///     stage: StageId(0),
///     input_bytes: 0,
/// };
/// let original = |i, end| {
///     Attempt::started(AttemptId(i), TaskId(i), NodeId(0), AttemptRole::Original, 0.0)
///         .ended(end, AttemptStatus::Succeeded, 1.0)
/// };
/// let run = Run {
///     tasks: vec![task(0), task(1)],
///     attempts: vec![original(0, 10.0), original(1, 30.0)],
///     detections: vec![Detection { task: TaskId(1), attempt: AttemptId(1), time_secs: 5.0 }],
///     end_secs: 30.0,
///     ..Run::default()
/// };
/// // Usual time 10 s for both; a straggler takes more than 1.2 times it.
/// let records = task_records_of_run(&run, &[10.0, 10.0], |exec, usual| exec > 1.2 * usual)?;
/// let metrics = detection_metrics(&records)?;
/// assert_eq!((metrics.true_positives, metrics.false_positives), (1, 0));
/// assert_eq!(metrics.detection_latency, Some(0.5)); // (5 - 0) / 10
/// # Ok::<(), straggler_metrics::MetricsError>(())
/// ```
///
/// # Errors
///
/// [`MetricsError::Run`] for a run whose original times or detections cannot be read
/// ([`Run::original_times`], [`Run::first_detection_secs`]: ids that are not indices, an
/// attempt of a task the run does not have, a detection time that is NaN...),
/// [`MetricsError::LengthMismatch`] for a `usual_secs` of another length than
/// `run.tasks`, [`MetricsError::OriginalNotEnded`] for a task whose original never ended
/// (it has no execution time to label).
pub fn task_records_of_run(
    run: &Run,
    usual_secs: &[f64],
    is_straggler: impl Fn(f64, f64) -> bool,
) -> Result<Vec<TaskRecord>, MetricsError> {
    if usual_secs.len() != run.tasks.len() {
        return Err(MetricsError::LengthMismatch {
            field: "usual_secs",
            len: usual_secs.len(),
            expected: run.tasks.len(),
        });
    }
    let originals = run.original_times()?;
    let detections = run.first_detection_secs()?;
    run.tasks
        .iter()
        .zip(originals)
        .zip(detections)
        .zip(usual_secs)
        .map(|(((task, original), detection), &usual_secs)| {
            let original = original.ok_or(MetricsError::OriginalNotEnded { task: task.id })?;
            Ok(TaskRecord {
                start_secs: original.start_secs,
                exec_secs: original.exec_secs,
                usual_secs,
                straggler: is_straggler(original.exec_secs, usual_secs),
                first_detection_secs: detection.map(|d| d.max(original.start_secs)),
            })
        })
        .collect()
}
