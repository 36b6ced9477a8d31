//! Ground truth without baselines: which tasks of a log were stragglers, judged against
//! their siblings (seeds 002 and 004), and which attempts were speculative copies.
//!
//! # Copies ([`attempt_roles`])
//!
//! An attempt is a copy when the log says so (`speculative == Some(true)`: jhist
//! `SPECULATIVE`, Spark `Speculative: true`). Otherwise a KILLED attempt that raced a
//! SUCCEEDED attempt of the same task, neither flagged a copy, marks a speculative race,
//! and the copy is the **later-launched** of the two (Hadoop launches a copy only after
//! the original has run; the loser, original or copy, is killed when the winner
//! finishes). So does an attempt the log leaves unfinished (a log cut between the
//! winner's end and the loser's kill). Two attempts raced when their runs overlap in time,
//! or, in a log without flags, as the attempt numbers say (below).
//!
//! In a log that flags no copy (Hadoop 1, Rumen: `speculative == None`), the attempt
//! numbers say more, where both ids are Hadoop attempt ids of the task (`task_<t>`,
//! `attempt_<t>_<n>`). The JobTracker numbers a task's attempts in the order it creates
//! them, on its one clock, while each launch and end time is a TaskTracker's own: the
//! later-launched is the later-numbered. And a KILLED (or unfinished) attempt numbered
//! after a success that stands raced it: the JobTracker creates no attempt for a task
//! whose attempt succeeded but a copy, launched before it heard of the success. (A success
//! it revoked, the map's output lost with its TaskTracker or to fetch failures, which the
//! log records as a kill or failure after the success, [`TraceAttempt::revoked`],
//! is re-run: the attempts after it are re-runs.) The Yahoo log has 32 such late copies
//! (`docs/replay.md`), launched 0.008 to 50.1 s after their original's success ended,
//! by the TaskTrackers' clocks: skew between them, the JobTracker's late hearing of the
//! success, and the TaskTracker's own delay (it sets the start time once it has
//! localised the task) all come in. Where an id has no number, the times decide (on a
//! launch tie, the one listed later is the copy).
//!
//! A log that flags copies (jhist) is read by its flags and times alone: the numbers
//! there also count re-runs after a revoked success (MRv2's retroactive kill of a map
//! whose node was lost), and the application master's one clock dates every event. Two
//! attempts it calls originals both (jhist `VIRGIN`) that raced are judged as above: an
//! application master that restarts recovers every attempt as `VIRGIN`
//! (`TaskImpl.recover`), a copy included, and a copy killed early has a `VIRGIN` attempt
//! launched in its place while the original runs (`TaskImpl.AttemptKilledTransition`).
//! Every other attempt is an original (a failed attempt's re-run is a new original).
//!
//! # Task duration and label ([`label`])
//!
//! A task's *original* is its last original attempt that did not fail, among those
//! launched before the task completed (as `Run::original_times` in the model). Its
//! duration is
//!
//! ```text
//! exec = (end of the task's first succeeded attempt, original or copy) - (launch of its original)
//! ```
//!
//! that is the time the job waited for the task from the original's launch. When the
//! original succeeded this is its own duration; when a copy won, the original was still
//! running at the copy's end, so `exec` is a lower bound of the original's duration (the
//! log does not say how long it would have run). A success the engine revoked later
//! ([`TraceAttempt::revoked`]) still ends the task here: its output was lost after the
//! task had run, and the re-run is recovery from that loss, not the task's straggling. So
//! a copy of the re-run comes after the task's end: [`recorded()`](crate::recorded()) counts
//! it as waste and its launch as a detection after the end. (Rumen writes such a success
//! as the KILLED it became, and so judges the task by its re-run. None of the shared logs
//! has a revoked success.) Labelled like the simulator's tasks:
//!
//! ```text
//! usual_i   = median (or mean) of exec_j over the tasks j of the same job and stage
//!             (optionally per byte of input: DoS-index, seed 004 Eq. 1)
//! straggler <=> exec_i > factor * usual_i        (factor 1.5 as seeds 002 and 004; 1.2 selectable)
//! ```
//!
//! with `straggler_truth::sibling_usual_times_among` and `StragglerRule`. A task an
//! original attempt of which failed ([`LabelledTask::rerun`]) is timed by its re-run, which
//! may redo the failed attempt's work or find part of it done: it is labelled against its
//! siblings but left out of their `usual`, unless every task of the stage was re-run. In
//! a Spark test log (`app-20161115172038-0000`), 8 of the 16 tasks of a stage failed and
//! were re-run in a fraction of the others' time; counted among the siblings, those
//! re-runs pulled the median down so far that the 8 tasks that never failed were labelled
//! stragglers. Times are seconds since the job's first launch. Tasks that cannot be labelled are left out of every
//! metric and counted by reason in [`Labels::unlabelled`].

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, check_range};
use straggler_truth::{SiblingReference, StragglerRule, sibling_usual_times_among};

use crate::{AttemptOutcome, ReplayError, StageKind, TraceAttempt, TraceJob, TraceTask};

/// How tasks are labelled.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TruthConfig {
    /// A task is a straggler iff its duration exceeds `factor` times its reference
    /// (1.5 by default, as seeds 002 and 004; the seed paper's 1.2 is selectable).
    pub factor: f64,
    /// The siblings' median (seed 004) or mean (seed 002).
    pub reference: SiblingReference,
    /// Compare durations per byte of input (Garraghan et al.'s DoS-index, seed 004).
    pub normalise_by_input: bool,
}

impl Default for TruthConfig {
    fn default() -> Self {
        TruthConfig {
            factor: 1.5,
            reference: SiblingReference::Median,
            normalise_by_input: false,
        }
    }
}

impl TruthConfig {
    /// Checks the factor (finite, `>= 1`).
    pub fn check(self) -> Result<Self, ReplayError> {
        check_range("factor", self.factor, 1.0, f64::MAX, ">= 1")?;
        Ok(self)
    }
}

/// One labelled task.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelledTask {
    /// Index of its job in the slice given to [`label`].
    pub job: usize,
    /// Index of the task in its job.
    pub task: usize,
    /// Index of its original attempt in the task.
    pub original: usize,
    /// Launch of the original, seconds since the job's first launch.
    pub start_secs: f64,
    /// The task's duration from the original's launch (see the module docs).
    pub exec_secs: f64,
    /// The siblings' reference time (`> 0`).
    pub usual_secs: f64,
    /// Whether the task is a straggler: `exec_secs > factor * usual_secs`.
    pub straggler: bool,
    /// Whether an original attempt of the task failed before its original (the one it is
    /// timed by) was launched, so that its duration is a re-run's: it is labelled against
    /// its siblings but is not one of their reference (see the module docs).
    pub rerun: bool,
}

/// The labels of a trace: the labelled tasks, the attempts' roles and what was left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Labels {
    /// The configuration used.
    pub config: TruthConfig,
    /// Labelled tasks, in job then task order.
    pub tasks: Vec<LabelledTask>,
    /// Tasks left out, by reason: `"setup or cleanup task"`, `"no succeeded attempt"`,
    /// `"no original attempt"`, `"no input size"`, `"invalid times"`,
    /// `"zero reference time"`.
    pub unlabelled: BTreeMap<String, u64>,
    /// Each job's first launch (trace clock), the origin of its times; 0 for a job without
    /// attempts.
    pub job_origin_secs: Vec<f64>,
    /// `roles[job][task][attempt]`: original or copy (see [`attempt_roles`]).
    pub roles: Vec<Vec<Vec<AttemptRole>>>,
    /// `index[job][task]`: the task's position in `tasks`, if labelled.
    pub index: Vec<Vec<Option<usize>>>,
}

impl Labels {
    /// Number of labelled stragglers.
    pub fn stragglers(&self) -> usize {
        self.tasks.iter().filter(|t| t.straggler).count()
    }
}

/// The role of each attempt of `task` (see the module docs): a copy where the log flags
/// it so, and the later-launched of a KILLED (or unfinished) attempt and a SUCCEEDED one
/// that raced, neither flagged a copy.
pub fn attempt_roles(task: &TraceTask) -> Vec<AttemptRole> {
    let mut roles: Vec<AttemptRole> = task
        .attempts
        .iter()
        .map(|a| match a.speculative {
            Some(true) => AttemptRole::Speculative,
            _ => AttemptRole::Original,
        })
        .collect();
    let attempts = &task.attempts;
    for (k, killed) in attempts.iter().enumerate() {
        if !matches!(
            killed.outcome,
            AttemptOutcome::Killed | AttemptOutcome::Unfinished
        ) {
            continue;
        }
        for (s, succeeded) in attempts.iter().enumerate() {
            if succeeded.outcome != AttemptOutcome::Succeeded {
                continue;
            }
            // The attempt numbers, in a log without flags (see the module docs).
            let numbered_later = (killed.speculative.is_none() && succeeded.speculative.is_none())
                .then(|| numbered_after(&task.id, killed, succeeded))
                .flatten();
            // Numbered after a success that stands: a copy.
            let late_copy = numbered_later == Some(true) && !succeeded.revoked;
            if !(late_copy || overlap(killed, succeeded)) {
                continue;
            }
            let killed_later = numbered_later.unwrap_or(
                killed.start_secs > succeeded.start_secs
                    || (killed.start_secs == succeeded.start_secs && k > s),
            );
            if killed.speculative != Some(true) && succeeded.speculative != Some(true) {
                roles[if killed_later { k } else { s }] = AttemptRole::Speculative;
            }
        }
    }
    roles
}

/// Whether `a` has a higher attempt number than `b`, where both ids are Hadoop attempt ids
/// of the task `task_id` (`task_<t>` and `attempt_<t>_<n>`, `n` in decimal digits);
/// `None` otherwise.
fn numbered_after(task_id: &str, a: &TraceAttempt, b: &TraceAttempt) -> Option<bool> {
    let task = task_id.strip_prefix("task_")?;
    let number = |id: &str| {
        let n = id
            .strip_prefix("attempt_")?
            .strip_prefix(task)?
            .strip_prefix('_')?;
        let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        digits.then(|| n.parse::<u64>().ok()).flatten()
    };
    let (a_n, b_n) = (number(&a.id)?, number(&b.id)?);
    (a_n != b_n).then_some(a_n > b_n)
}

/// Whether two attempts ran at the same time for a while (open intervals intersect). An
/// attempt the log leaves unfinished runs on past its last record: it overlaps whatever
/// ends after its launch.
fn overlap(a: &TraceAttempt, b: &TraceAttempt) -> bool {
    let end = |x: &TraceAttempt| match (x.outcome, x.end_secs) {
        (AttemptOutcome::Unfinished, _) => Some(f64::INFINITY),
        (_, end) => end,
    };
    let (Some(a_end), Some(b_end)) = (end(a), end(b)) else {
        return false;
    };
    a.start_secs < b_end && b.start_secs < a_end
}

/// A task's original and duration, or why it has none.
fn task_time(task: &TraceTask, roles: &[AttemptRole]) -> Result<(usize, f64, f64), &'static str> {
    let completion = task
        .attempts
        .iter()
        .filter(|a| a.outcome == AttemptOutcome::Succeeded)
        .filter_map(|a| a.end_secs)
        .filter(|end| end.is_finite())
        .fold(None, |first: Option<f64>, end| {
            Some(first.map_or(end, |f| f.min(end)))
        });
    let Some(completion) = completion else {
        return Err("no succeeded attempt");
    };
    let original = task
        .attempts
        .iter()
        .zip(roles)
        .enumerate()
        .rev()
        .find(|(_, (a, role))| {
            // Launched before the completion, or the attempt that completed the task at its
            // launch (a zero-duration task): one launched at the completion instant did not
            // run for the task, and would make its duration 0.
            let completed_it =
                a.outcome == AttemptOutcome::Succeeded && a.end_secs == Some(completion);
            **role == AttemptRole::Original
                && a.outcome != AttemptOutcome::Failed
                && (a.start_secs < completion || completed_it)
        })
        .map(|(i, (a, _))| (i, a.start_secs));
    let Some((original, start)) = original else {
        return Err("no original attempt");
    };
    let exec = completion - start;
    if !(start.is_finite() && exec.is_finite() && exec >= 0.0) {
        return Err("invalid times");
    }
    Ok((original, start, exec))
}

/// Each job's first launch, the origin of its times (0 without a finite launch).
pub fn job_origin_secs(job: &TraceJob) -> f64 {
    job.tasks
        .iter()
        .flat_map(|t| &t.attempts)
        .map(|a| a.start_secs)
        .filter(|s| s.is_finite())
        .fold(None, |first: Option<f64>, s| {
            Some(first.map_or(s, |f| f.min(s)))
        })
        .unwrap_or(0.0)
}

/// Labels every map and reduce task of `jobs` against its siblings (same job, same stage).
///
/// # Errors
///
/// A factor that is NaN, infinite or below 1.
pub fn label(jobs: &[TraceJob], config: TruthConfig) -> Result<Labels, ReplayError> {
    let config = config.check()?;
    let rule = StragglerRule {
        factor: config.factor,
    };
    let mut unlabelled: BTreeMap<String, u64> = BTreeMap::new();
    let mut skip = |reason: &str| *unlabelled.entry(reason.to_owned()).or_insert(0) += 1;
    let mut candidates: Vec<LabelledTask> = Vec::new();
    let mut groups: Vec<u32> = Vec::new();
    let mut sizes: Vec<f64> = Vec::new();
    let mut group_ids: HashMap<(usize, &str), u32> = HashMap::new();
    let mut roles = Vec::with_capacity(jobs.len());
    let mut job_origins = Vec::with_capacity(jobs.len());
    for (j, job) in jobs.iter().enumerate() {
        let origin = job_origin_secs(job);
        job_origins.push(origin);
        let mut job_roles = Vec::with_capacity(job.tasks.len());
        for (t, task) in job.tasks.iter().enumerate() {
            let task_roles = attempt_roles(task);
            let timed = task_time(task, &task_roles);
            job_roles.push(task_roles);
            // A task of no known kind that never completed is counted by its timing: a
            // Spark task whose end record was lost is of no kind yet, not a setup task.
            if task.kind == StageKind::Other && timed != Err("no succeeded attempt") {
                skip("setup or cleanup task");
                continue;
            }
            let (original, start, exec) = match timed {
                Ok(timed) => timed,
                Err(reason) => {
                    skip(reason);
                    continue;
                }
            };
            let size = if config.normalise_by_input {
                match task.input_bytes {
                    Some(bytes) if bytes > 0 => bytes as f64,
                    _ => {
                        skip("no input size");
                        continue;
                    }
                }
            } else {
                1.0
            };
            let next = group_ids.len() as u32;
            let group = *group_ids.entry((j, task.stage.as_str())).or_insert(next);
            groups.push(group);
            sizes.push(size);
            // Timed by a re-run: an original failed before the timed one was launched (a
            // failure after it, of a copy taken for an original where the log flags none
            // or of a re-run after the task's success, leaves its time as it is). Where
            // the log flags no copy and both ids are numbered, the numbers tell which came
            // first, as the JobTracker numbers attempts on its one clock while each launch
            // time is a TaskTracker's own; otherwise the launch times.
            let timed = &task.attempts[original];
            let rerun = (task.attempts.iter().zip(&job_roles[t])).any(|(attempt, role)| {
                let before = match (
                    attempt.speculative,
                    numbered_after(&task.id, timed, attempt),
                ) {
                    (None, Some(after)) => after,
                    _ => attempt.start_secs < start,
                };
                *role == AttemptRole::Original
                    && attempt.outcome == AttemptOutcome::Failed
                    && before
            });
            candidates.push(LabelledTask {
                job: j,
                task: t,
                original,
                start_secs: (start - origin).max(0.0),
                exec_secs: exec,
                usual_secs: 0.0,
                straggler: false,
                rerun,
            });
        }
        roles.push(job_roles);
    }
    let exec: Vec<f64> = candidates.iter().map(|c| c.exec_secs).collect();
    let first_runs: Vec<bool> = candidates.iter().map(|c| !c.rerun).collect();
    let usual = sibling_usual_times_among(
        &groups,
        &exec,
        config.reference,
        config.normalise_by_input.then_some(sizes.as_slice()),
        &first_runs,
    )?;
    let mut index: Vec<Vec<Option<usize>>> =
        jobs.iter().map(|job| vec![None; job.tasks.len()]).collect();
    let mut tasks = Vec::with_capacity(candidates.len());
    for (mut candidate, usual_secs) in candidates.into_iter().zip(usual) {
        if !(usual_secs.is_finite() && usual_secs > 0.0) {
            skip("zero reference time");
            continue;
        }
        candidate.usual_secs = usual_secs;
        candidate.straggler = rule.is_straggler(candidate.exec_secs, usual_secs);
        index[candidate.job][candidate.task] = Some(tasks.len());
        tasks.push(candidate);
    }
    Ok(Labels {
        config,
        tasks,
        unlabelled,
        job_origin_secs: job_origins,
        roles,
        index,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An attempt launched at `start`, ended at `end` with `outcome`.
    pub(crate) fn attempt(
        id: &str,
        start: f64,
        end: Option<f64>,
        outcome: AttemptOutcome,
        speculative: Option<bool>,
    ) -> TraceAttempt {
        TraceAttempt {
            id: id.to_owned(),
            host: Some(format!("host-{}", id.len() % 3)),
            start_secs: start,
            end_secs: end,
            outcome,
            speculative,
            progress: Vec::new(),
            revoked: false,
            line: 1,
        }
    }

    /// A map task with one succeeded original from `start` to `end`.
    pub(crate) fn plain_task(id: &str, stage: &str, start: f64, end: f64) -> TraceTask {
        TraceTask {
            id: id.to_owned(),
            stage: stage.to_owned(),
            kind: StageKind::Map,
            input_bytes: Some(100),
            input_records: None,
            attempts: vec![attempt(
                &format!("{id}_0"),
                start,
                Some(end),
                AttemptOutcome::Succeeded,
                Some(false),
            )],
        }
    }

    pub(crate) fn job(id: &str, tasks: Vec<TraceTask>) -> TraceJob {
        TraceJob {
            id: id.to_owned(),
            name: None,
            submit_secs: None,
            tasks,
            speculation: None,
            speculation_line: None,
        }
    }

    use AttemptOutcome::{Failed, Killed, Succeeded};

    #[test]
    fn tasks_re_run_after_a_failure_are_labelled_but_not_part_of_the_reference() {
        // Four maps: two ran once, in 10 and 12 s; two failed at 7 s and were re-run in
        // 1 s. Against the tasks that ran once the usual time is median(10, 12) = 11, and
        // nobody exceeds 1.5 x 11 = 16.5. Counted among them, the re-runs would make the
        // median of [1, 1, 10, 12] = 5.5, and both tasks that never failed (10 and 12 >
        // 8.25) stragglers.
        let mut tasks = vec![
            plain_task("m0", "map", 0.0, 10.0),
            plain_task("m1", "map", 0.0, 12.0),
        ];
        for id in ["m2", "m3"] {
            let mut task = plain_task(id, "map", 0.0, 0.0);
            task.attempts = vec![
                attempt(&format!("{id}_0"), 0.0, Some(7.0), Failed, Some(false)),
                attempt(&format!("{id}_1"), 7.0, Some(8.0), Succeeded, Some(false)),
            ];
            tasks.push(task);
        }
        let labels = label(&[job("j", tasks.clone())], TruthConfig::default()).unwrap();
        let got: Vec<(f64, f64, bool, bool)> = (labels.tasks.iter())
            .map(|t| (t.exec_secs, t.usual_secs, t.rerun, t.straggler))
            .collect();
        assert_eq!(
            got,
            [
                (10.0, 11.0, false, false),
                (12.0, 11.0, false, false),
                (1.0, 11.0, true, false),
                (1.0, 11.0, true, false)
            ]
        );
        // Every task of the stage re-run: all of them make the reference, median 1.
        let labels = label(&[job("j", tasks[2..].to_vec())], TruthConfig::default()).unwrap();
        assert!(labels.tasks.iter().all(|t| t.usual_secs == 1.0 && t.rerun));
        // A failed copy is no re-run: its original's time stands. So is an attempt that
        // failed after the timed original's launch where the log flags no copy (Hadoop 1,
        // Rumen: a copy that failed reads as an original), during its run (4 to 6 s) or
        // after its success (a late copy at 10.5 s).
        let mut copied = plain_task("m4", "map", 0.0, 10.0);
        copied
            .attempts
            .push(attempt("m4_1", 2.0, Some(5.0), Failed, Some(true)));
        let labels = label(&[job("j", vec![copied])], TruthConfig::default()).unwrap();
        assert!(!labels.tasks[0].rerun);
        // A failed attempt numbered before the timed one is a re-run's cause whatever the
        // TaskTrackers' clocks say (here its launch dated 2 s after the re-run's).
        let mut skewed = plain_task("task_1_m_000007", "map", 0.0, 0.0);
        skewed.attempts = vec![
            attempt("attempt_1_m_000007_0", 3.0, Some(4.0), Failed, None),
            attempt("attempt_1_m_000007_1", 1.0, Some(9.0), Succeeded, None),
        ];
        let labels = label(&[job("j", vec![skewed])], TruthConfig::default()).unwrap();
        assert!(labels.tasks[0].rerun);
        for (start, end) in [(4.0, 6.0), (10.5, 12.0)] {
            let mut task = plain_task("m5", "map", 0.0, 10.0);
            task.attempts = vec![
                attempt("m5_0", 0.0, Some(10.0), Succeeded, None),
                attempt("m5_1", start, Some(end), Failed, None),
            ];
            let labels = label(&[job("j", vec![task])], TruthConfig::default()).unwrap();
            let labelled = labels.tasks[0];
            assert_eq!(
                (labelled.exec_secs, labelled.rerun),
                (10.0, false),
                "{start}"
            );
        }
    }

    #[test]
    fn the_later_launched_of_a_killed_and_a_succeeded_overlapping_attempt_is_the_copy() {
        // Original 0..100 killed, copy 40..70 succeeded: the copy launched later.
        let mut task = plain_task("t", "map", 0.0, 0.0);
        task.attempts = vec![
            attempt("a0", 0.0, Some(70.0), Killed, None),
            attempt("a1", 40.0, Some(70.0), Succeeded, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        // The original won: the killed later one is the copy.
        task.attempts = vec![
            attempt("a0", 0.0, Some(50.0), Succeeded, None),
            attempt("a1", 30.0, Some(50.0), Killed, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        // A killed attempt before the succeeded one (no overlap) is a re-run, not a race.
        task.attempts = vec![
            attempt("a0", 0.0, Some(10.0), Killed, None),
            attempt("a1", 10.0, Some(50.0), Succeeded, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Original]
        );
        // The log's own flag wins over inference.
        task.attempts = vec![
            attempt("a0", 0.0, Some(70.0), Killed, Some(false)),
            attempt("a1", 40.0, Some(70.0), Succeeded, Some(true)),
            attempt("a2", 45.0, Some(70.0), Killed, Some(false)),
        ];
        assert_eq!(
            attempt_roles(&task),
            [
                AttemptRole::Original,
                AttemptRole::Speculative,
                AttemptRole::Original
            ]
        );
        // Two attempts the log calls originals (an application master's restart recovers
        // a copy as `VIRGIN`) that race: the later-launched is the copy, and the task ran
        // 30 s from the original's launch, not the copy's 12.
        task.attempts = vec![
            attempt("a0", 0.0, Some(30.0), Killed, Some(false)),
            attempt("a1", 18.0, Some(30.0), Succeeded, Some(false)),
        ];
        let roles = attempt_roles(&task);
        assert_eq!(roles, [AttemptRole::Original, AttemptRole::Speculative]);
        assert_eq!(task_time(&task, &roles), Ok((0, 0.0, 30.0)));
    }

    #[test]
    fn hadoop_attempt_numbers_order_the_launches() {
        let id = |n: u32| format!("attempt_200904211745_0004_m_000015_{n}");
        let mut task = plain_task("task_200904211745_0004_m_000015", "map", 0.0, 0.0);
        // The Yahoo log's task m_000015: the original ran 871.992..912.072 s, the copy was
        // launched at 921.125 by its TaskTracker's clock and killed at 954.463. No overlap
        // in time, but numbered after the success: a copy launched before the JobTracker
        // heard of it.
        task.attempts = vec![
            attempt(&id(0), 871.992, Some(912.072), Succeeded, None),
            attempt(&id(1), 921.125, Some(954.463), Killed, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        // Clocks that disagree: the copy (attempt 1) launched 2 s "before" its original by
        // the times, and won. The numbers say which is the copy.
        task.attempts = vec![
            attempt(&id(0), 10.0, Some(80.0), Killed, None),
            attempt(&id(1), 8.0, Some(50.0), Succeeded, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        // Numbered before the success and ended before it launched: a re-run, no race.
        task.attempts = vec![
            attempt(&id(0), 0.0, Some(10.0), Killed, None),
            attempt(&id(1), 12.0, Some(50.0), Succeeded, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Original]
        );
        // A log cut before the late copy's kill: still a copy.
        task.attempts = vec![
            attempt(&id(0), 871.992, Some(912.072), Succeeded, None),
            attempt(&id(1), 921.125, None, AttemptOutcome::Unfinished, None),
        ];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        // A success revoked (its map output lost with its TaskTracker, the log writing a
        // kill after the success) is re-run: the killed attempt numbered after it is a
        // re-run, not a copy.
        let mut revoked = attempt(&id(0), 962.0, Some(972.0), Succeeded, None);
        revoked.revoked = true;
        task.attempts = vec![revoked, attempt(&id(1), 1605.0, Some(1620.0), Killed, None)];
        assert_eq!(
            attempt_roles(&task),
            [AttemptRole::Original, AttemptRole::Original]
        );
        // A log that flags copies (jhist) is read by its flags and times alone: a `VIRGIN`
        // re-run numbered after a success, the copy of it flagged.
        task.attempts = vec![
            attempt(&id(0), 0.0, Some(10.0), Succeeded, Some(false)),
            attempt(&id(1), 600.0, Some(640.0), Killed, Some(false)),
            attempt(&id(2), 620.0, Some(635.0), Succeeded, Some(true)),
        ];
        assert_eq!(
            attempt_roles(&task),
            [
                AttemptRole::Original,
                AttemptRole::Original,
                AttemptRole::Speculative
            ]
        );
        // Ids of another form, of two tasks, of another task than this one, or with a
        // number that is not plain digits leave it to the times: no overlap, no race.
        for ids in [
            ["a0", "a1"],
            ["attempt_x_m_1_0", "attempt_x_m_2_1"],
            ["attempt_1_2_m_3_0", "attempt_1_2_m_3_1"],
            [id(0).as_str(), &format!("{}+2", &id(0)[..id(0).len() - 1])],
        ] {
            task.attempts = vec![
                attempt(ids[0], 0.0, Some(10.0), Succeeded, None),
                attempt(ids[1], 12.0, Some(20.0), Killed, None),
            ];
            assert_eq!(
                attempt_roles(&task),
                [AttemptRole::Original, AttemptRole::Original],
                "{ids:?}"
            );
        }
    }

    #[test]
    fn an_unfinished_attempt_beside_a_success_is_a_race() {
        // A log cut after a winner's end and before its loser's kill (no flags: Hadoop 1,
        // Rumen). Maps of 10 s, 10 s, 10 s and:
        // - "late": original 0..50 succeeded, copy launched at 45 never ended. The copy is
        //   the later-launched: exec = 50 - 0 = 50 > 1.5 x median(10, 10, 10, 50, 40) = 15,
        //   a straggler detected at 45. (Taken for the original, the copy made exec
        //   50 - 45 = 5, and the task no straggler.)
        // - "cut": original launched at 0 never ended, copy 20..40 succeeded: exec
        //   40 - 0 = 40, a straggler won by its copy, detected at 20 (before: the success
        //   was the original, exec 20, no detection).
        let mut late = plain_task("late", "map", 0.0, 0.0);
        late.attempts = vec![
            attempt("l0", 0.0, Some(50.0), Succeeded, None),
            attempt("l1", 45.0, None, AttemptOutcome::Unfinished, None),
        ];
        let mut cut = plain_task("cut", "map", 0.0, 0.0);
        cut.attempts = vec![
            attempt("c0", 0.0, None, AttemptOutcome::Unfinished, None),
            attempt("c1", 20.0, Some(40.0), Succeeded, None),
        ];
        assert_eq!(
            attempt_roles(&late),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        assert_eq!(
            attempt_roles(&cut),
            [AttemptRole::Original, AttemptRole::Speculative]
        );
        let jobs = vec![job(
            "j",
            vec![
                plain_task("a", "map", 0.0, 10.0),
                plain_task("b", "map", 0.0, 10.0),
                plain_task("c", "map", 0.0, 10.0),
                late,
                cut,
            ],
        )];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let timed: Vec<(usize, f64, f64, bool)> = labels
            .tasks
            .iter()
            .map(|t| (t.original, t.start_secs, t.exec_secs, t.straggler))
            .collect();
        assert_eq!(timed[3..], [(0, 0.0, 50.0, true), (0, 0.0, 40.0, true)]);
        assert_eq!(labels.tasks[3].usual_secs, 10.0);
        let recorded = crate::recorded(&jobs, &labels);
        assert_eq!(
            recorded.detections,
            [None, None, None, Some(45.0), Some(20.0)]
        );
        assert_eq!(recorded.won_by_copy, [false, false, false, false, true]);
        // Two copies: one succeeded, one the log leaves unfinished (neither).
        assert_eq!(
            (
                recorded.total.speculative_copies,
                recorded.total.successful_copies,
                recorded.total.unsuccessful_copies
            ),
            (2, 1, 0)
        );
        // A copy launched after the success ended is no race: a re-run, an original.
        let mut after = plain_task("after", "map", 0.0, 10.0);
        after
            .attempts
            .push(attempt("a1", 10.0, None, AttemptOutcome::Unfinished, None));
        assert_eq!(
            attempt_roles(&after),
            [AttemptRole::Original, AttemptRole::Original]
        );
    }

    #[test]
    fn an_attempt_launched_as_its_task_completes_is_not_its_original() {
        // "t": original 0..30 succeeded; a re-run launched at 30, the instant the task
        // completed, killed at 35 (Hadoop 1 launches such attempts before the task's record
        // closes). It does not overlap the success (30 < 30 is false): an original, but not
        // the task's: exec = 30 - 0 = 30, not 30 - 30 = 0. Siblings 10 s and 10 s: median
        // of (10, 10, 30) = 10, 30 > 15, a straggler. A zero-duration task (5..5) keeps its
        // own attempt as original.
        let mut t = plain_task("t", "map", 0.0, 30.0);
        t.attempts
            .push(attempt("t1", 30.0, Some(35.0), Killed, None));
        let jobs = vec![job(
            "j",
            vec![
                plain_task("a", "map", 0.0, 10.0),
                plain_task("b", "map", 0.0, 10.0),
                t,
                plain_task("z", "reduce", 5.0, 5.0),
            ],
        )];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let t = labels.tasks[2];
        assert_eq!((t.original, t.start_secs, t.exec_secs), (0, 0.0, 30.0));
        assert!(t.straggler);
        // The reduce "z" (0 s, alone in its stage) has a zero reference: timed, then left
        // out for that reason, not for want of an original.
        assert_eq!(labels.unlabelled["zero reference time"], 1);
        assert!(!labels.unlabelled.contains_key("no original attempt"));
    }

    #[test]
    fn siblings_median_times_one_and_a_half() {
        // Stage "map": durations 10, 10, 12, 20 -> median 11, 1.5 x 11 = 16.5: the 20 s task
        // is a straggler. Stage "reduce": 30 alone -> its own reference, not a straggler.
        // The copy-rescued task: original 0..(killed at 26), copy 15..26 succeeded -> exec 26
        // from the original's launch, but its group is "map2" with 10 -> median 18, 27 > 26.
        let mut rescued = plain_task("r", "map2", 0.0, 0.0);
        rescued.attempts = vec![
            attempt("r0", 0.0, Some(26.0), Killed, None),
            attempt("r1", 15.0, Some(26.0), Succeeded, None),
        ];
        let mut reduce = plain_task("d", "reduce", 5.0, 35.0);
        reduce.kind = StageKind::Reduce;
        let mut setup = plain_task("s", "setup", 0.0, 1.0);
        setup.kind = StageKind::Other;
        let mut failed = plain_task("f", "map", 0.0, 0.0);
        failed.attempts = vec![attempt("f0", 0.0, Some(3.0), Failed, None)];
        let jobs = vec![
            job(
                "j",
                vec![
                    plain_task("m0", "map", 2.0, 12.0),
                    plain_task("m1", "map", 2.0, 12.0),
                    plain_task("m2", "map", 2.0, 14.0),
                    plain_task("m3", "map", 2.0, 22.0),
                    reduce,
                    setup,
                    failed,
                ],
            ),
            job("k", vec![rescued, plain_task("q", "map2", 100.0, 110.0)]),
        ];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let straggler: Vec<(usize, usize, bool)> = labels
            .tasks
            .iter()
            .map(|t| (t.job, t.task, t.straggler))
            .collect();
        assert_eq!(
            straggler,
            [
                (0, 0, false),
                (0, 1, false),
                (0, 2, false),
                (0, 3, true),
                (0, 4, false),
                (1, 0, false),
                (1, 1, false)
            ]
        );
        assert_eq!(labels.tasks[3].usual_secs, 11.0);
        assert_eq!(labels.tasks[3].exec_secs, 20.0);
        // Job j starts at 0 (the setup task); m3's original starts 2 s later.
        assert_eq!(labels.tasks[3].start_secs, 2.0);
        assert_eq!(labels.tasks[5].exec_secs, 26.0);
        assert_eq!(labels.tasks[5].usual_secs, 18.0);
        // Job k's origin is its first launch, 0; q starts at 100.
        assert_eq!(labels.tasks[6].start_secs, 100.0);
        assert_eq!(labels.unlabelled["setup or cleanup task"], 1);
        assert_eq!(labels.unlabelled["no succeeded attempt"], 1);
        assert_eq!(labels.index[0][5], None);
        assert_eq!(labels.index[1][0], Some(5));
        assert_eq!(labels.stragglers(), 1);

        // With factor 1.2 and the mean: map mean 13, 1.2 x 13 = 15.6 -> only the 20 s task;
        // map2 mean 18, 21.6 < 26 -> the rescued task too.
        let config = TruthConfig {
            factor: 1.2,
            reference: SiblingReference::Mean,
            normalise_by_input: false,
        };
        let labels = label(&jobs, config).unwrap();
        assert_eq!(labels.stragglers(), 2);
        assert!(labels.tasks[5].straggler);
    }

    #[test]
    fn dos_index_normalises_by_input() {
        // Durations 10 s and 40 s, inputs 100 and 200 bytes. By time: median 25,
        // 40 > 1.5 x 25 = 37.5, a straggler. Per byte: 0.1 and 0.2 s/B, median 0.15, usual of
        // the big task 200 x 0.15 = 30 s, 40 <= 1.5 x 30 = 45: not a straggler.
        let mut big = plain_task("b", "map", 0.0, 40.0);
        big.input_bytes = Some(200);
        let mut unknown = plain_task("u", "map", 0.0, 40.0);
        unknown.input_bytes = None;
        let jobs = vec![job("j", vec![plain_task("s", "map", 0.0, 10.0), big])];
        assert_eq!(
            label(&jobs, TruthConfig::default()).unwrap().stragglers(),
            1
        );
        let config = TruthConfig {
            normalise_by_input: true,
            ..TruthConfig::default()
        };
        let labels = label(&jobs, config).unwrap();
        assert_eq!(labels.stragglers(), 0);
        assert!((labels.tasks[1].usual_secs - 30.0).abs() < 1e-9);
        let jobs = vec![job("j", vec![plain_task("s", "map", 0.0, 10.0), unknown])];
        let labels = label(&jobs, config).unwrap();
        assert_eq!(labels.unlabelled["no input size"], 1);
        assert_eq!(labels.tasks.len(), 1);
    }

    #[test]
    fn a_task_of_no_kind_is_a_setup_task_only_if_it_completed() {
        // A setup task that succeeded; a task of no known kind whose only attempt never
        // ended (a Spark task whose end record was lost).
        let mut setup = plain_task("s", "setup", 0.0, 1.0);
        setup.kind = StageKind::Other;
        let mut lost = plain_task("l", "0.0", 0.0, 1.0);
        lost.kind = StageKind::Other;
        lost.attempts[0].end_secs = None;
        lost.attempts[0].outcome = AttemptOutcome::Unfinished;
        let labels = label(&[job("j", vec![setup, lost])], TruthConfig::default()).unwrap();
        assert_eq!(labels.unlabelled["setup or cleanup task"], 1);
        assert_eq!(labels.unlabelled["no succeeded attempt"], 1);
    }

    #[test]
    fn a_factor_below_one_is_refused() {
        let config = TruthConfig {
            factor: 0.9,
            ..TruthConfig::default()
        };
        assert!(matches!(label(&[], config), Err(ReplayError::Parameter(_))));
    }
}
