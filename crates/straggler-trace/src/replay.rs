//! Any detector of the workspace replayed over a log: the snapshots and observations an
//! engine would have given it, rebuilt from the attempts the log holds.
//!
//! Each job is replayed on its own (the detector is reset before it), on its own clock:
//! seconds since its first launch, and at its own scan interval (one for all jobs in
//! [`replay`], each job's in [`replay_each`]: its engine's, see
//! [`ScanInterval`](crate::ScanInterval)). Scans happen at `k * interval`, `k = 0, 1, ...`,
//! skipping the idle gaps where nothing runs. Before the scan at `now`, in time order, the
//! detector observes (as `docs/writing-a-detector.md` says an engine does):
//!
//! - `JobSubmitted` once, at the job's submission where the log gives it, in time order
//!   among the ends (before the first scan when it is at or before the first launch);
//! - `AttemptEnded` for every attempt that ended in `(previous scan, now]`, in end order;
//! - a `Progress` report at `now` for every attempt running at `now`
//!   (`start <= now < end`): the scan interval is the heartbeat.
//!
//! The snapshot holds those running attempts (originals and the copies the log shows: the
//! detector sees the cluster as it ran), except those of a task that has already succeeded:
//! in a log, the original is killed a moment after its copy wins (or the reverse), and no
//! engine judges an attempt it is killing (Hadoop's is no longer `RUNNING`); such an
//! attempt gets no progress report either, and its end is observed as any other. The
//! attempts listed have
//!
//! ```text
//! progress(now) = piecewise-linear interpolation of the attempt's progress splits,
//!                 from (0, 0) to (end - start, 1) for a succeeded attempt,
//!                 flat after the last split otherwise                 (where the log has splits)
//!               = (now - start) / (end - start)                        (otherwise: linear)
//! ```
//!
//! so an attempt without splits reaches 1 at its end, whatever its outcome (the log does not
//! say how far a killed attempt got). An attempt the log leaves unfinished runs until the
//! job's last event and is then dropped without an `AttemptEnded`. A stage's pending count
//! is the number of its tasks waiting to be scheduled, as the engines count them: not
//! launched yet, or launched, not succeeded and running no attempt (a failed or killed
//! attempt's task before its next attempt, or to the job's end if none comes). Each host the log names is a node, and the
//! attempts that name none share one. Setup and cleanup tasks are not replayed.
//!
//! A task is detected at the first scan whose findings hold a row of its original (the
//! attempt [`label`](crate::label) timed); rows of copies and of earlier failed originals
//! are ignored.
//!
//! The sweep visits each attempt's launch and end once (both sorted once), and each scan
//! costs the attempts running at that scan: `O(A log A + sum over scans of running)`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use straggler_detect::{Detector, Findings};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, Observation, ProgressReport,
    Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind, check_range,
};

use crate::{AttemptOutcome, Labels, ReplayError, StageKind, TraceAttempt, TraceJob};

/// The most scans a job's replay may take by default ([`ReplayConfig::max_scans_per_job`]):
/// its span over the scan interval. The bound turns a damaged time (an end years after the
/// launch) into a job skipped ([`ReplayOutcome::skipped_jobs`]) rather than minutes of
/// scans for every detector: 10^7 scans is a year at 3 s (Hadoop's), 10^6 s (11.6 days)
/// at Spark's default 0.1 s; a week's job every 0.1 s is 6 x 10^6. Default took 18.3 s over 9.7 x 10^7 scans of one running attempt
/// (`stragglers replay` of a three-line Alibaba log whose one attempt ran 2.9 x 10^8 s,
/// with the bound raised), so about 2 s at this bound.
pub const MAX_SCANS_PER_JOB: u64 = 10_000_000;

/// How a replay scans.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplayConfig {
    /// Seconds between two scans (and two progress reports) of every job in [`replay`];
    /// 3 s by default, the simulator's heartbeat and Hadoop's progress reports. A Spark log
    /// is scanned as Spark checks, every 0.1 s by default: see [`replay_each`].
    pub scan_interval_secs: f64,
    /// The most scans one job's replay may take ([`MAX_SCANS_PER_JOB`] by default); a job
    /// that would take more is skipped ([`ReplayOutcome::skipped_jobs`]).
    pub max_scans_per_job: u64,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            scan_interval_secs: 3.0,
            max_scans_per_job: MAX_SCANS_PER_JOB,
        }
    }
}

impl ReplayConfig {
    /// Checks the scan interval (finite, `> 0`; at least a millisecond). Any bound on the
    /// scans is valid (0 skips every job that runs past its first launch).
    pub fn check(self) -> Result<Self, ReplayError> {
        check_range(
            "scan_interval_secs",
            self.scan_interval_secs,
            1e-3,
            f64::MAX,
            ">= 0.001",
        )?;
        Ok(self)
    }
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayOutcome {
    /// For each labelled task (`labels.tasks` order), its first detection, seconds since
    /// its job's first launch.
    pub detections: Vec<Option<f64>>,
    /// Scans run, over all jobs.
    pub scans: u64,
    /// Attempts left out because their launch time is not finite.
    pub attempts_without_launch: u64,
    /// Jobs not replayed, with why: the rest of the replay goes on without them, and their
    /// labelled tasks have no detection.
    pub skipped_jobs: Vec<SkippedJob>,
}

/// A job replay left out: it would take more than [`ReplayConfig::max_scans_per_job`]
/// scans, because its log holds a time far from the others (a broken clock or a damaged
/// record) or the scan interval is far too short for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedJob {
    /// The job id as the log writes it.
    pub job: String,
    /// From the job's first launch to its last end, seconds.
    pub span_secs: f64,
    /// The scan interval, seconds.
    pub interval_secs: f64,
    /// The scans the span would take: the span over the interval, rounded up (at most
    /// `u64::MAX`, which no log's times reach: the readers refuse a time past 10^10 s).
    pub scans: u64,
    /// The bound it is over ([`ReplayConfig::max_scans_per_job`]).
    pub max_scans: u64,
}

impl std::fmt::Display for SkippedJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "job {} not replayed: it runs {:.1} s after its first launch, {} scans every {} \
             s, more than {}; check its times, or use a longer --scan-interval or a larger \
             --max-scans-per-job",
            self.job, self.span_secs, self.scans, self.interval_secs, self.max_scans
        )
    }
}

/// One attempt as the replay sees it.
#[derive(Debug)]
struct Replayed<'a> {
    attempt: &'a TraceAttempt,
    task: u32,
    stage: u32,
    node: u32,
    role: AttemptRole,
    start: f64,
    end: f64,
    status: Option<AttemptStatus>,
    input_bytes: u64,
    splits_usable: bool,
    labelled: Option<usize>,
}

impl Replayed<'_> {
    /// Progress at `now` (see the module docs).
    fn progress(&self, now: f64) -> f64 {
        let elapsed = now - self.start;
        let duration = self.end - self.start;
        let splits = &self.attempt.progress;
        let value = if self.splits_usable {
            let next = splits.partition_point(|&(t, _)| t < elapsed);
            let (t0, p0) = if next == 0 {
                (0.0, 0.0)
            } else {
                splits[next - 1]
            };
            let (t1, p1) = match splits.get(next) {
                Some(&point) => point,
                None if self.status == Some(AttemptStatus::Succeeded) && duration > t0 => {
                    (duration, 1.0)
                }
                None => return p0,
            };
            if t1 > t0 {
                p0 + (p1 - p0) * (elapsed - t0) / (t1 - t0)
            } else {
                p1
            }
        } else if duration > 0.0 {
            elapsed / duration
        } else {
            1.0
        };
        value.clamp(0.0, 1.0)
    }
}

/// Whether an attempt's progress splits can be interpolated: finite, times non-decreasing
/// and non-negative, progress in `[0, 1]`.
fn usable_splits(splits: &[(f64, f64)]) -> bool {
    !splits.is_empty()
        && splits
            .iter()
            .all(|&(t, p)| t.is_finite() && t >= 0.0 && (0.0..=1.0).contains(&p))
        && splits.windows(2).all(|w| w[0].0 <= w[1].0)
}

/// Replays `detector` over every job of `jobs`, each scanned every
/// [`ReplayConfig::scan_interval_secs`], and returns its first detections of the labelled
/// tasks. `labels` must come from [`label`](crate::label) on the same jobs.
/// [`replay_each`] scans each job at its own interval (its engine's).
///
/// A job that would take more than [`ReplayConfig::max_scans_per_job`] scans is not
/// replayed: it is listed in [`ReplayOutcome::skipped_jobs`] and the other jobs are
/// replayed.
///
/// # Errors
///
/// A scan interval that is not finite or below a millisecond; a snapshot row refused
/// (which the construction rules out); findings that break their contract.
pub fn replay(
    jobs: &[TraceJob],
    labels: &Labels,
    detector: &mut dyn Detector,
    config: ReplayConfig,
) -> Result<ReplayOutcome, ReplayError> {
    let config = config.check()?;
    let intervals = vec![config.scan_interval_secs; jobs.len()];
    replay_each(jobs, labels, detector, &intervals, config.max_scans_per_job)
}

/// Replays `detector` over every job of `jobs` as [`replay`] does, job `j` scanned every
/// `intervals_secs[j]` seconds: its engine's ([`ScanInterval::engine`]), or one for all
/// ([`ScanInterval::given`]). A job whose span over its interval is more than
/// `max_scans_per_job` is not replayed ([`ReplayOutcome::skipped_jobs`]).
///
/// # Errors
///
/// As [`replay`]'s, and a number of intervals other than the number of jobs.
///
/// [`ScanInterval::engine`]: crate::ScanInterval::engine
/// [`ScanInterval::given`]: crate::ScanInterval::given
pub fn replay_each(
    jobs: &[TraceJob],
    labels: &Labels,
    detector: &mut dyn Detector,
    intervals_secs: &[f64],
    max_scans_per_job: u64,
) -> Result<ReplayOutcome, ReplayError> {
    if intervals_secs.len() != jobs.len() {
        return Err(ReplayError::Intervals {
            jobs: jobs.len(),
            intervals: intervals_secs.len(),
        });
    }
    // Every interval checked before any job is replayed.
    let configs = (intervals_secs.iter())
        .map(|&scan_interval_secs| {
            ReplayConfig {
                scan_interval_secs,
                max_scans_per_job,
            }
            .check()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut outcome = ReplayOutcome {
        detections: vec![None; labels.tasks.len()],
        scans: 0,
        attempts_without_launch: 0,
        skipped_jobs: Vec::new(),
    };
    for (j, (job, config)) in jobs.iter().zip(configs).enumerate() {
        replay_job(j, job, labels, detector, config, &mut outcome)?;
    }
    Ok(outcome)
}

fn replay_job(
    j: usize,
    job: &TraceJob,
    labels: &Labels,
    detector: &mut dyn Detector,
    config: ReplayConfig,
    outcome: &mut ReplayOutcome,
) -> Result<(), ReplayError> {
    let origin = labels.job_origin_secs.get(j).copied().unwrap_or(0.0);
    let job_id = JobId(j as u32);
    let mut stage_ids: HashMap<&str, u32> = HashMap::new();
    let mut stages: Vec<Stage> = Vec::new();
    let mut stage_tasks: Vec<u32> = Vec::new();
    let mut node_ids: HashMap<Option<&str>, u32> = HashMap::new();
    let mut attempts: Vec<Replayed<'_>> = Vec::new();
    let mut task_stage: Vec<u32> = Vec::new();
    for (t, task) in job.tasks.iter().enumerate() {
        let kind = match task.kind {
            StageKind::Map => TaskKind::Map,
            StageKind::Reduce => TaskKind::Reduce,
            StageKind::Other => continue,
        };
        let stage = *stage_ids.entry(task.stage.as_str()).or_insert_with(|| {
            stages.push(Stage { job: job_id, kind });
            stage_tasks.push(0);
            stages.len() as u32 - 1
        });
        let task_id = task_stage.len() as u32;
        let labelled = labels
            .index
            .get(j)
            .and_then(|i| i.get(t).copied().flatten());
        let roles = labels.roles.get(j).and_then(|r| r.get(t));
        let mut launched = false;
        for (a, attempt) in task.attempts.iter().enumerate() {
            if !attempt.start_secs.is_finite() {
                outcome.attempts_without_launch += 1;
                continue;
            }
            launched = true;
            let next_node = node_ids.len() as u32;
            let node = *node_ids.entry(attempt.host.as_deref()).or_insert(next_node);
            let start = attempt.start_secs - origin;
            let status = match attempt.outcome {
                AttemptOutcome::Succeeded => Some(AttemptStatus::Succeeded),
                AttemptOutcome::Killed => Some(AttemptStatus::Killed),
                AttemptOutcome::Failed => Some(AttemptStatus::Failed),
                AttemptOutcome::Unfinished => None,
            };
            let end = attempt
                .end_secs
                .filter(|e| e.is_finite() && status.is_some())
                .map(|e| (e - origin).max(start));
            attempts.push(Replayed {
                attempt,
                task: task_id,
                stage,
                node,
                role: roles
                    .and_then(|r| r.get(a).copied())
                    .unwrap_or(AttemptRole::Original),
                start,
                end: end.unwrap_or(f64::NAN),
                status: if end.is_some() { status } else { None },
                input_bytes: task.input_bytes.unwrap_or(0),
                splits_usable: usable_splits(&attempt.progress),
                labelled: labelled
                    .filter(|&i| labels.tasks.get(i).is_some_and(|l| l.original == a)),
            });
        }
        if launched {
            stage_tasks[stage as usize] += 1;
        }
        task_stage.push(stage);
    }
    if attempts.is_empty() {
        return Ok(());
    }
    let job_end = attempts
        .iter()
        .map(|a| if a.end.is_nan() { a.start } else { a.end })
        .fold(0.0, f64::max);
    let scans = job_end / config.scan_interval_secs;
    if scans > config.max_scans_per_job as f64 {
        outcome.skipped_jobs.push(SkippedJob {
            job: job.id.clone(),
            span_secs: job_end,
            interval_secs: config.scan_interval_secs,
            // A float past u64::MAX converts to u64::MAX.
            scans: scans.ceil() as u64,
            max_scans: config.max_scans_per_job,
        });
        return Ok(());
    }
    for attempt in &mut attempts {
        if attempt.end.is_nan() {
            attempt.end = job_end;
        }
    }
    let node_count = node_ids.len() as u32;

    let mut by_start: Vec<u32> = (0..attempts.len() as u32).collect();
    by_start.sort_by(|&a, &b| {
        attempts[a as usize]
            .start
            .total_cmp(&attempts[b as usize].start)
    });
    let mut by_end = by_start.clone();
    by_end.sort_by(|&a, &b| {
        attempts[a as usize]
            .end
            .total_cmp(&attempts[b as usize].end)
    });

    const NOT_ACTIVE: u32 = u32::MAX;
    let mut slot = vec![NOT_ACTIVE; attempts.len()];
    let mut active: Vec<u32> = Vec::new();
    let mut task_launched = vec![false; task_stage.len()];
    let mut task_succeeded = vec![false; task_stage.len()];
    // The attempts of the snapshot's rows, in row order.
    let mut listed: Vec<u32> = Vec::new();
    let mut stage_launched = vec![0u32; stages.len()];
    // Each task's running attempts, and per stage the tasks launched, not succeeded and
    // running none: a failed attempt's task waiting to run again, pending as the engines
    // count it (`Snapshot::pending`: waiting to be scheduled).
    let mut task_running = vec![0u32; task_stage.len()];
    let mut stage_waiting_again = vec![0u32; stages.len()];
    let mut next_start = 0usize;
    let mut next_end = 0usize;
    let mut findings = Findings::default();
    let bad_row = |now_secs: f64, source| ReplayError::Snapshot {
        job: job.id.clone(),
        now_secs,
        source,
    };
    let mut snapshot =
        Snapshot::new(0.0, node_count, stages.clone()).map_err(|e| bad_row(0.0, e))?;
    detector.reset();
    // The job's submission, where the log dates it, observed in time order among the ends
    // (a host's clock behind the submitter's can date launches before it).
    let mut submission = job
        .submit_secs
        .map(|s| s - origin)
        .filter(|t| t.is_finite());
    let mut submit_by = |upto: f64, detector: &mut dyn Detector| {
        if let Some(time_secs) = submission.filter(|&t| t <= upto) {
            detector.observe(&Observation::JobSubmitted {
                job: job_id,
                time_secs,
            });
            submission = None;
        }
    };
    let interval = config.scan_interval_secs;
    let mut k: u64 = 0;
    loop {
        let now = k as f64 * interval;
        while let Some(&a) = by_start.get(next_start) {
            let attempt = &attempts[a as usize];
            if attempt.start > now {
                break;
            }
            slot[a as usize] = active.len() as u32;
            active.push(a);
            let task = attempt.task as usize;
            if !task_launched[task] {
                task_launched[task] = true;
                stage_launched[attempt.stage as usize] += 1;
            } else if task_running[task] == 0 && !task_succeeded[task] {
                stage_waiting_again[attempt.stage as usize] -= 1;
            }
            task_running[task] += 1;
            next_start += 1;
        }
        while let Some(&a) = by_end.get(next_end) {
            let attempt = &attempts[a as usize];
            if attempt.end > now {
                break;
            }
            let at = slot[a as usize] as usize;
            active.swap_remove(at);
            if let Some(&moved) = active.get(at) {
                slot[moved as usize] = at as u32;
            }
            slot[a as usize] = NOT_ACTIVE;
            let task = attempt.task as usize;
            task_running[task] -= 1;
            if attempt.status == Some(AttemptStatus::Succeeded) {
                task_succeeded[task] = true;
            } else if task_running[task] == 0 && !task_succeeded[task] {
                stage_waiting_again[attempt.stage as usize] += 1;
            }
            if let Some(status) = attempt.status {
                submit_by(attempt.end, detector);
                detector.observe(&Observation::AttemptEnded(AttemptEnd {
                    attempt: AttemptId(a),
                    task: TaskId(attempt.task),
                    stage: StageId(attempt.stage),
                    node: NodeId(attempt.node),
                    role: attempt.role,
                    start_secs: attempt.start,
                    end_secs: attempt.end,
                    status,
                    input_bytes: attempt.input_bytes,
                }));
            }
            next_end += 1;
        }
        submit_by(now, detector);
        if active.is_empty() {
            // Nothing runs: jump to the first scan at or after the next launch, or stop.
            let Some(&a) = by_start.get(next_start) else {
                break;
            };
            let next = (attempts[a as usize].start / interval).ceil() as u64;
            k = next.max(k + 1);
            continue;
        }
        snapshot.clear(now).map_err(|e| bad_row(now, e))?;
        let counts = stage_launched.iter().zip(&stage_waiting_again);
        for (s, (&total, (&launched, &again))) in stage_tasks.iter().zip(counts).enumerate() {
            snapshot
                .set_pending(StageId(s as u32), total.saturating_sub(launched) + again)
                .map_err(|e| bad_row(now, e))?;
        }
        listed.clear();
        for &a in &active {
            let attempt = &attempts[a as usize];
            if task_succeeded[attempt.task as usize] {
                continue;
            }
            listed.push(a);
            let progress = attempt.progress(now);
            detector.observe(&Observation::Progress(ProgressReport {
                attempt: AttemptId(a),
                task: TaskId(attempt.task),
                stage: StageId(attempt.stage),
                node: NodeId(attempt.node),
                time_secs: now,
                progress,
            }));
            snapshot
                .push(SnapshotRow {
                    attempt: AttemptId(a),
                    task: TaskId(attempt.task),
                    stage: StageId(attempt.stage),
                    node: NodeId(attempt.node),
                    role: attempt.role,
                    start_secs: attempt.start,
                    progress,
                    input_bytes: attempt.input_bytes as f64,
                })
                .map_err(|e| bad_row(now, e))?;
        }
        findings.clear();
        detector.scan(&snapshot, &mut findings);
        findings.check(detector.name(), &snapshot)?;
        outcome.scans += 1;
        for &row in findings.rows() {
            let Some(&a) = listed.get(row as usize) else {
                continue;
            };
            let attempt = &attempts[a as usize];
            if attempt.role != AttemptRole::Original {
                continue;
            }
            if let Some(slot) = attempt.labelled.and_then(|i| outcome.detections.get_mut(i)) {
                slot.get_or_insert(now);
            }
        }
        k += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truth::tests::{attempt, job, plain_task};
    use crate::{TruthConfig, label};
    use AttemptOutcome::{Failed, Killed, Succeeded};

    /// Flags every row whose progress is below `threshold`, and records what it saw.
    #[derive(Debug, Default)]
    struct Slow {
        threshold: f64,
        seen: Vec<String>,
    }

    impl Detector for Slow {
        fn name(&self) -> &str {
            "slow"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            let rows: Vec<String> = (0..snapshot.len())
                .filter_map(|i| snapshot.row(i))
                .map(|r| format!("{}:{:.2}", r.attempt, r.progress))
                .collect();
            let pending: Vec<u32> = (0..snapshot.stages().len())
                .map(|s| snapshot.pending(StageId(s as u32)))
                .collect();
            self.seen.push(format!(
                "scan {} [{}] pending {:?}",
                snapshot.now_secs(),
                rows.join(" "),
                pending
            ));
            for (row, &p) in snapshot.progress().iter().enumerate() {
                if p < self.threshold {
                    findings.push_row(row as u32);
                }
            }
        }
        fn observe(&mut self, observation: &Observation) {
            match observation {
                Observation::AttemptEnded(end) => self
                    .seen
                    .push(format!("end {} at {}", end.attempt, end.end_secs)),
                Observation::JobSubmitted { job, time_secs } => self
                    .seen
                    .push(format!("submitted {} at {time_secs}", job.0)),
                Observation::Progress(_) => {}
                _ => {}
            }
        }
        fn reset(&mut self) {
            self.seen.push("reset".to_owned());
        }
    }

    #[test]
    fn scans_see_running_attempts_with_linear_or_split_progress() {
        // Job origin 100. Attempts (times since origin):
        //   0 "a": 0..10 succeeded, linear;
        //   1 "b": 0..20 succeeded, splits (5 s, 0.1), (10 s, 0.2): 0.1 at 5, 0.2 at 10,
        //          then linear to 1 at 20: 0.2 + 0.8 x 5/10 = 0.6 at 15;
        //   2 "c": copy of b, 12..20 killed (linear: 3/8 = 0.375 at 15);
        //   then nothing until "d": 40..46 succeeded (an idle gap skipped).
        // Scan interval 5: scans at 0, 5, 10, 15 (a ended at 10), then 40, 45; d's end is
        // observed at 50, when nothing is left to scan.
        let mut b = plain_task("b", "map", 100.0, 120.0);
        b.attempts[0].progress = vec![(5.0, 0.1), (10.0, 0.2)];
        b.attempts
            .push(attempt("c", 112.0, Some(120.0), Killed, Some(true)));
        let jobs = vec![job(
            "j",
            vec![
                plain_task("a", "map", 100.0, 110.0),
                b,
                plain_task("d", "map", 140.0, 146.0),
            ],
        )];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let mut slow = Slow {
            threshold: 0.3,
            seen: Vec::new(),
        };
        let config = ReplayConfig {
            scan_interval_secs: 5.0,
            ..ReplayConfig::default()
        };
        let outcome = replay(&jobs, &labels, &mut slow, config).unwrap();
        assert_eq!(
            slow.seen,
            [
                "reset",
                "scan 0 [0:0.00 1:0.00] pending [1]",
                "scan 5 [0:0.50 1:0.10] pending [1]",
                "end 0 at 10",
                "scan 10 [1:0.20] pending [1]",
                "scan 15 [1:0.60 2:0.38] pending [1]",
                "end 1 at 20",
                "end 2 at 20",
                "scan 40 [3:0.00] pending [0]",
                "scan 45 [3:0.83] pending [0]",
                "end 3 at 46",
            ]
        );
        assert_eq!(outcome.scans, 6);
        // Below 0.3: a at 0 (first detection 0), b at 0, d at 40. The copy's 0.38 is not
        // below; a copy's row would not count anyway.
        assert_eq!(outcome.detections, [Some(0.0), Some(0.0), Some(40.0)]);
    }

    #[test]
    fn a_jobs_submission_is_observed_in_time_order() {
        // Origin 100 (the first launch). Submitted at 98: observed before the first scan,
        // at -2. Submitted at 112, after the first launch (a launch dated on a clock
        // behind the submitter's): observed after the scan at 10, before the one at 15.
        let run = |submit_secs: f64| {
            let mut jobs = vec![job(
                "j",
                vec![
                    plain_task("a", "map", 100.0, 110.0),
                    plain_task("b", "map", 100.0, 120.0),
                ],
            )];
            jobs[0].submit_secs = Some(submit_secs);
            let labels = label(&jobs, TruthConfig::default()).unwrap();
            let mut slow = Slow::default();
            let config = ReplayConfig {
                scan_interval_secs: 5.0,
                ..ReplayConfig::default()
            };
            replay(&jobs, &labels, &mut slow, config).unwrap();
            slow.seen
        };
        assert_eq!(
            run(98.0)[..3],
            [
                "reset",
                "submitted 0 at -2",
                "scan 0 [0:0.00 1:0.00] pending [0]"
            ]
        );
        assert_eq!(
            run(112.0)[3..7],
            [
                "end 0 at 10",
                "scan 10 [1:0.50] pending [0]",
                "submitted 0 at 12",
                "scan 15 [1:0.75] pending [0]",
            ]
        );
    }

    /// Flags every row of the scans from `.0` seconds on.
    #[derive(Debug)]
    struct FlagFrom(f64);

    impl Detector for FlagFrom {
        fn name(&self) -> &str {
            "flag-from"
        }

        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            if snapshot.now_secs() >= self.0 {
                for row in 0..snapshot.len() {
                    findings.push_row(row as u32);
                }
            }
        }
    }

    /// One job of one map: its original, run from 0 to `original_end` and killed, and a
    /// copy run over `copy` that succeeded; and the job's labels.
    fn killed_original_and_copy(original_end: f64, copy: (f64, f64)) -> (Vec<TraceJob>, Labels) {
        let mut task = plain_task("t", "map", 0.0, 0.0);
        task.attempts = vec![
            attempt("o", 0.0, Some(original_end), Killed, None),
            attempt("c", copy.0, Some(copy.1), Succeeded, None),
        ];
        let jobs = vec![job("j", vec![task])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        (jobs, labels)
    }

    #[test]
    fn a_task_waiting_to_run_again_is_pending() {
        // Task a 0..12 succeeds; task b's first attempt fails at 5, its second is killed at
        // 9 (the task waits again), its third runs 14..20. Scans every 3 s: b is pending
        // from 6 to 9 and from 9 to 12, not at 3 or 15.
        let mut b = plain_task("b", "map", 0.0, 0.0);
        b.attempts = vec![
            attempt("b1", 0.0, Some(5.0), Failed, None),
            attempt("b2", 7.0, Some(9.0), Killed, None),
            attempt("b3", 14.0, Some(20.0), Succeeded, None),
        ];
        let jobs = vec![job("j", vec![plain_task("a", "map", 0.0, 12.0), b])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let mut slow = Slow::default();
        replay(&jobs, &labels, &mut slow, ReplayConfig::default()).unwrap();
        let scans: Vec<&str> = slow
            .seen
            .iter()
            .filter(|seen| seen.starts_with("scan"))
            .map(String::as_str)
            .collect();
        assert_eq!(
            scans,
            [
                "scan 0 [0:0.00 1:0.00] pending [0]",
                "scan 3 [0:0.25 1:0.60] pending [0]",
                "scan 6 [0:0.50] pending [1]",
                "scan 9 [0:0.75] pending [1]",
                "scan 15 [3:0.17] pending [0]",
                "scan 18 [3:0.67] pending [0]",
            ]
        );
    }

    #[test]
    fn a_task_with_an_attempt_running_or_succeeded_is_not_waiting_again() {
        // a 0..15 succeeds. b's original 0..10 succeeds while its copy fails at 5 (the
        // original still runs), and an attempt after its success, 13..13, fails. c's first
        // attempt fails at 3, as its second starts. d's first fails at 4, its second runs
        // from 7, unfinished. Scans every 3 s: only d waits, at 6.
        let mut b = plain_task("b", "map", 0.0, 0.0);
        b.attempts = vec![
            attempt("b0", 0.0, Some(10.0), Succeeded, None),
            attempt("bc", 2.0, Some(5.0), Failed, Some(true)),
            attempt("bl", 13.0, Some(13.0), Failed, None),
        ];
        let mut c = plain_task("c", "map", 0.0, 0.0);
        c.attempts = vec![
            attempt("c1", 0.0, Some(3.0), Failed, None),
            attempt("c2", 3.0, Some(8.0), Succeeded, None),
        ];
        let mut d = plain_task("d", "map", 0.0, 0.0);
        d.attempts = vec![
            attempt("d1", 0.0, Some(4.0), Failed, None),
            attempt("d2", 7.0, None, AttemptOutcome::Unfinished, None),
        ];
        let jobs = vec![job("j", vec![plain_task("a", "map", 0.0, 15.0), b, c, d])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let mut slow = Slow::default();
        replay(&jobs, &labels, &mut slow, ReplayConfig::default()).unwrap();
        let pending: Vec<(&str, &str)> = slow
            .seen
            .iter()
            .filter(|seen| seen.starts_with("scan"))
            .filter_map(|seen| seen.split_once(" ["))
            .map(|(scan, rest)| (scan, rest.rsplit_once(' ').map_or("", |(_, p)| p)))
            .collect();
        assert_eq!(
            pending,
            [
                ("scan 0", "[0]"),
                ("scan 3", "[0]"),
                ("scan 6", "[1]"),
                ("scan 9", "[0]"),
                ("scan 12", "[0]"),
            ],
            "{:?}",
            slow.seen
        );
    }

    /// Checks at each scan that every launched task of a stage is counted once: succeeded
    /// (an end observed), running (a row) or pending, and that Spark's `numTasks` (tasks
    /// seen, plus pending, less the seen ones whose last end failed and that have no row
    /// since) is the stage's tasks.
    #[derive(Debug, Default)]
    struct Accounting {
        /// Per stage, the tasks with a launched attempt.
        tasks: Vec<u32>,
        seen: std::collections::HashSet<(u32, u32)>,
        succeeded: std::collections::HashSet<(u32, u32)>,
        waiting: std::collections::HashSet<(u32, u32)>,
        scans: usize,
        wrong: Vec<String>,
    }

    impl Detector for Accounting {
        fn name(&self) -> &str {
            "accounting"
        }
        fn scan(&mut self, snapshot: &Snapshot, _: &mut Findings) {
            self.scans += 1;
            let rows: std::collections::HashSet<(u32, u32)> = snapshot
                .stage_indices()
                .iter()
                .zip(snapshot.tasks())
                .map(|(&stage, task)| (stage, task.0))
                .collect();
            self.seen.extend(&rows);
            self.waiting.retain(|pair| !rows.contains(pair));
            for (stage, &tasks) in self.tasks.iter().enumerate() {
                let count = |set: &std::collections::HashSet<(u32, u32)>| {
                    set.iter().filter(|&&(s, _)| s as usize == stage).count() as u32
                };
                let pending = snapshot.pending(StageId(stage as u32));
                let (running, done) = (count(&rows), count(&self.succeeded));
                let spark = count(&self.seen) + pending - count(&self.waiting);
                if done + running + pending != tasks || spark != tasks {
                    self.wrong.push(format!(
                        "{} stage {stage}: {done} + {running} + {pending}, spark {spark}, of {tasks}",
                        snapshot.now_secs()
                    ));
                }
            }
        }
        fn observe(&mut self, observation: &Observation) {
            if let Observation::AttemptEnded(end) = observation {
                let pair = (end.stage.0, end.task.0);
                self.seen.insert(pair);
                if end.status == AttemptStatus::Succeeded {
                    self.succeeded.insert(pair);
                    self.waiting.remove(&pair);
                } else if !self.succeeded.contains(&pair) {
                    self.waiting.insert(pair);
                }
            }
        }
    }

    #[test]
    fn each_launched_task_is_counted_once_whatever_the_order_of_its_attempts() {
        // Random jobs of two stages, each task with one to three attempts at whole seconds
        // (same-instant starts and ends, copies, attempts after a success, unfinished ones).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut below = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 33) % n
        };
        let mut replayed = 0;
        for j in 0..300 {
            let mut tasks = Vec::new();
            for t in 0..1 + below(6) {
                let stage = if t % 2 == 0 { "map" } else { "reduce" };
                let mut task = plain_task(&format!("t{t}"), stage, 0.0, 0.0);
                task.attempts = (0..1 + below(3))
                    .map(|a| {
                        let start = below(12) as f64;
                        let end = start + below(6) as f64;
                        let (outcome, end) = match below(4) {
                            0 => (Succeeded, Some(end)),
                            1 => (Killed, Some(end)),
                            2 => (Failed, Some(end)),
                            _ => (AttemptOutcome::Unfinished, None),
                        };
                        attempt(&format!("t{t}a{a}"), start, end, outcome, None)
                    })
                    .collect();
                tasks.push(task);
            }
            let jobs = vec![job(&format!("j{j}"), tasks)];
            let Ok(labels) = label(&jobs, TruthConfig::default()) else {
                continue;
            };
            let mut stages: Vec<&str> = Vec::new();
            for task in &jobs[0].tasks {
                if !stages.contains(&task.stage.as_str()) {
                    stages.push(&task.stage);
                }
            }
            let mut accounting = Accounting {
                tasks: stages
                    .iter()
                    .map(|&s| jobs[0].tasks.iter().filter(|t| t.stage == s).count() as u32)
                    .collect(),
                ..Accounting::default()
            };
            let config = ReplayConfig {
                scan_interval_secs: [1.0, 2.0, 3.0][j % 3],
                ..ReplayConfig::default()
            };
            replay(&jobs, &labels, &mut accounting, config).unwrap();
            assert!(
                accounting.wrong.is_empty(),
                "job {j}: {:?}",
                accounting.wrong
            );
            replayed += accounting.scans;
        }
        assert!(replayed > 1000, "{replayed} scans");
    }

    #[test]
    fn only_the_timed_original_is_detected_and_copies_are_ignored() {
        // Original 0..30 killed, copy 10..30 succeeded: the detector flags everything
        // below 0.5. At 10 the original is at 1/3 (linear to its kill at 30), the copy at 0.
        // First detection of the task: 0 (original at 0).
        let (jobs, labels) = killed_original_and_copy(30.0, (10.0, 30.0));
        let mut slow = Slow {
            threshold: 0.5,
            ..Slow::default()
        };
        let outcome = replay(&jobs, &labels, &mut slow, ReplayConfig::default()).unwrap();
        assert_eq!(outcome.detections, [Some(0.0)]);

        // A detector that flags only rows from 20 s on sees the original at 21 (0.7).
        let outcome = replay(&jobs, &labels, &mut FlagFrom(20.0), ReplayConfig::default());
        let outcome = outcome.unwrap();
        assert_eq!(outcome.detections, [Some(21.0)]);
    }

    #[test]
    fn attempts_of_a_succeeded_task_are_not_listed() {
        // The copy 3..12 succeeds; the original 0..20 is killed 8 s later. From the scan at
        // 12 on, the original is not listed (nor reported): a detector flagging every row
        // it sees from 12 s on detects nothing. Its end is still observed.
        let (jobs, labels) = killed_original_and_copy(20.0, (3.0, 12.0));
        let mut slow = Slow {
            threshold: 2.0,
            ..Slow::default()
        };
        replay(&jobs, &labels, &mut slow, ReplayConfig::default()).unwrap();
        assert_eq!(
            slow.seen[slow.seen.len() - 5..],
            [
                "end 1 at 12",
                "scan 12 [] pending [0]",
                "scan 15 [] pending [0]",
                "scan 18 [] pending [0]",
                "end 0 at 20",
            ]
        );
        let outcome = replay(&jobs, &labels, &mut FlagFrom(12.0), ReplayConfig::default());
        assert_eq!(outcome.unwrap().detections, [None]);
    }

    #[test]
    fn a_job_with_a_time_far_from_the_others_is_skipped_not_hours_of_scans() {
        // Job "j": an end 10^9 s after the launch (one digit too many in a log): 3.3 x 10^8
        // scans at 3 s, more than the bound. It is skipped, named, with no scan run; the
        // job "k" after it is replayed and its task detected.
        let mut task = plain_task("t", "map", 0.0, 10.0);
        task.attempts[0].end_secs = Some(1e9);
        let jobs = vec![
            job("j", vec![task]),
            job("k", vec![plain_task("u", "map", 0.0, 10.0)]),
        ];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let mut slow = Slow {
            threshold: 2.0,
            seen: Vec::new(),
        };
        let outcome = replay(&jobs, &labels, &mut slow, ReplayConfig::default()).unwrap();
        assert_eq!(outcome.skipped_jobs.len(), 1);
        let skipped = &outcome.skipped_jobs[0];
        assert_eq!((skipped.job.as_str(), skipped.span_secs), ("j", 1e9));
        assert!(
            skipped.to_string().contains("job j not replayed"),
            "{skipped}"
        );
        assert_eq!(outcome.detections, [None, Some(0.0)]);
        assert_eq!(outcome.scans, 4, "scans of k only: 0, 3, 6, 9");
        assert_eq!(slow.seen.iter().filter(|s| *s == "reset").count(), 1);
    }

    #[test]
    fn the_bound_on_scans_is_the_configs() {
        // A job of 10 s at 3 s: 10 / 3 = 3.33 scans by the bound's count, over a bound of
        // 3 (skipped, the bound named), within one of 4 (replayed: scans at 0, 3, 6, 9).
        let jobs = vec![job("k", vec![plain_task("u", "map", 0.0, 10.0)])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        for (max_scans_per_job, skipped, scans) in [(3, 1, 0), (4, 0, 4)] {
            let config = ReplayConfig {
                max_scans_per_job,
                ..ReplayConfig::default()
            };
            let mut slow = Slow::default();
            let outcome = replay(&jobs, &labels, &mut slow, config).unwrap();
            assert_eq!(
                outcome.skipped_jobs.len(),
                skipped,
                "bound {max_scans_per_job}"
            );
            assert_eq!(outcome.scans, scans, "bound {max_scans_per_job}");
            if let Some(job) = outcome.skipped_jobs.first() {
                assert_eq!((job.max_scans, job.scans), (3, 4));
                assert!(job.to_string().contains("more than 3;"), "{job}");
            }
        }
    }

    #[test]
    fn each_job_is_scanned_at_its_own_interval() {
        // Job "j" (one map 0..1) every 0.25 s: scans at 0, 0.25, 0.5, 0.75; job "k" (one
        // map 0..7) every 3 s: scans at 0, 3, 6. The same jobs at one interval for all
        // (replay's, 3 s) scan "j" once.
        let jobs = vec![
            job("j", vec![plain_task("a", "map", 0.0, 1.0)]),
            job("k", vec![plain_task("b", "map", 0.0, 7.0)]),
        ];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let scans = |seen: &[String]| -> Vec<String> {
            (seen.iter())
                .filter_map(|s| s.strip_prefix("scan "))
                .map(|s| s.split(' ').next().unwrap_or_default().to_owned())
                .collect()
        };
        let mut slow = Slow::default();
        let outcome = replay_each(&jobs, &labels, &mut slow, &[0.25, 3.0], MAX_SCANS_PER_JOB);
        assert_eq!(outcome.unwrap().scans, 7);
        assert_eq!(
            scans(&slow.seen),
            ["0", "0.25", "0.5", "0.75", "0", "3", "6"]
        );
        let mut slow = Slow::default();
        let outcome = replay(&jobs, &labels, &mut slow, ReplayConfig::default());
        assert_eq!(outcome.unwrap().scans, 4);
        assert_eq!(scans(&slow.seen), ["0", "0", "3", "6"]);

        // A skipped job names its own interval: "k" at 1 ms is 7000 scans, over 5000.
        let outcome = replay_each(&jobs, &labels, &mut Slow::default(), &[0.25, 0.001], 5000);
        let outcome = outcome.unwrap();
        assert_eq!(outcome.skipped_jobs.len(), 1);
        let skipped = &outcome.skipped_jobs[0];
        assert_eq!(
            (skipped.job.as_str(), skipped.interval_secs, skipped.scans),
            ("k", 0.001, 7000)
        );
    }

    #[test]
    fn per_job_intervals_are_checked_and_counted() {
        let jobs = vec![job("j", vec![plain_task("a", "map", 0.0, 1.0)])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let mut slow = Slow::default();
        assert_eq!(
            replay_each(&jobs, &labels, &mut slow, &[1.0, 2.0], 10),
            Err(ReplayError::Intervals {
                jobs: 1,
                intervals: 2
            })
        );
        for bad in [0.0, -1.0, f64::NAN, 0.0009] {
            assert!(matches!(
                replay_each(&jobs, &labels, &mut slow, &[bad], 10),
                Err(ReplayError::Parameter(_))
            ));
        }
        assert!(slow.seen.is_empty(), "nothing replayed: {:?}", slow.seen);
    }

    #[test]
    fn a_bad_interval_is_refused() {
        let config = ReplayConfig {
            scan_interval_secs: 0.0,
            ..ReplayConfig::default()
        };
        let labels = label(&[], TruthConfig::default()).unwrap();
        let mut slow = Slow::default();
        assert!(matches!(
            replay(&[], &labels, &mut slow, config),
            Err(ReplayError::Parameter(_))
        ));
    }
}
