//! Hadoop MapReduce v2's `DefaultSpeculator` as a detector, over a [`RuntimeEstimator`].
//!
//! At each scan, for each stage (the maps or the reduces of a job, Hadoop's task kind):
//!
//! ```text
//! skip:      pending > 0 (tasks waiting for a container)       (DefaultSpeculator)
//! gate:      finished >= 1 and finished >= 0.05 * total        (StartEndTimesBase)
//! allowed  = floor(max(10, 0.01 * total, 0.1 * running))       (DefaultSpeculator)
//!            nothing is flagged unless copies running < allowed
//! replEnd  = now + estimatedNewAttemptRuntime                  (mean of finished durations,
//!                                                               or the estimator's own)
//! for each task with one running attempt, its original, that has not succeeded:
//!   estEnd = start + est                                       (the estimator's runtime)
//!   skip if there is no estimate, estEnd < now or replEnd >= estEnd
//!   value  = estEnd - replEnd
//! flag the attempt with the largest value (ties: the lowest row)
//!
//! heartbeat, in a stage not skipped and past the gate, for the original of every task
//! that has not succeeded (after its `est` is taken), with an estimator that reads
//! progress reports (not Legacy, whose estimate no reading changes):
//!   if (est, progress) equal those remembered, remembered (or last read) more than
//!      heartbeat_wait (9 s) before now:
//!        the estimator reads (now, progress), and the wait starts again at now
//!   else if they differ, or none are remembered:
//!        remember (est, progress, now)                         (speculationValue)
//! ```
//!
//! Source: `org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator`
//! (`speculationValue`, `maybeScheduleASpeculation`, `computeSpeculations`) and
//! `StartEndTimesBase` (`reference/speculators.md`, "Hadoop MapReduce v2").
//!
//! A stage with tasks waiting for a container flags nothing at that scan, as Hadoop's
//! `maybeScheduleASpeculation(type)` skips (`continue`) a job whose `mapContainerNeeds` or
//! `reduceContainerNeeds` count for that type is above 0. The stage still learns from
//! observations meanwhile, and its rows' starts still reach the estimator.
//!
//! The cap is a whole number of copies: `maybeScheduleASpeculation` truncates twice,
//! `(int) Math.max(minimumAllowed, 0.01 * tasks)` then `(int) Math.max(that, 0.1 *
//! running)`, which for values `>= 0` is the floor of the largest of the three (the
//! products taken in binary64, as Java does). 115 running tasks allow 11 copies, not 11.5:
//! with 11 running, nothing more is flagged.
//!
//! How the snapshot maps to Hadoop's counts:
//! - `finished` is the number of succeeded attempts of the stage observed since the last
//!   reset or the stage's [`Observation::StageFinished`] (one per task), Hadoop's
//!   `getCompletedMaps` (or `Reduces`); their durations `end - start` feed the stage's
//!   [`DataStatistics`], except a NaN, infinite or negative one (`StartEndTimesBase` adds
//!   a duration only when `start <= finish`): such a task counts as finished all the same.
//! - `pending` is [`Snapshot::pending`] (tasks of the stage waiting for a container),
//!   Hadoop's container needs of the job and task type.
//! - The snapshot carries no stage totals, so `total = finished + running` (tasks waiting
//!   would count too, but a stage with any is not judged): `running` counts the distinct
//!   tasks of the stage with a row in the snapshot that have not succeeded.
//!   Tasks the master has not heard from and that are not pending are not counted.
//! - A succeeded task's attempt still in the snapshot (the original of a task whose copy
//!   won, killed a moment later) is not running, not speculating and not judged: Hadoop's
//!   attempt is no longer `RUNNING` once it is being killed.
//! - A task with several rows is speculating (Hadoop's `ALREADY_SPECULATING`: more than
//!   one running attempt), and `copies running` counts those tasks of the stage. A task
//!   with one row is judged on it if it is the original: a copy left running alone (its
//!   original failed) is not, as only detections of originals count in this framework
//!   (`docs/writing-a-detector.md`), where Hadoop would judge it.
//! - Hadoop's `StartEndTimesBase` also computes a slow-task threshold, mean + 1.0 sd of
//!   the finished durations, but `DefaultSpeculator` only compares it with
//!   `Long.MAX_VALUE`: it is the gate above, never a bar on runtimes, and is not computed
//!   here.
//! - Each row's start is passed to the estimator ([`RuntimeEstimator::observe_start`])
//!   before the row's runtime is estimated: a progress report does not carry it.
//!
//! # An attempt that stops reporting
//!
//! Hadoop's estimators learn only from status updates, so an attempt that stops reporting
//! would keep the estimate of its last one: the exponentially smoothed estimator's
//! `start + est` stays put, `now` overtakes it, and the attempt is skipped (`estEnd <
//! now`) for good. `DefaultSpeculator.speculationValue` guards against that: it keeps, per
//! running attempt, the estimate and the progress it saw and when they last changed
//! (`TaskAttemptHistoryStatistics`), and when both are unchanged and more than
//! `MAX_WAITTING_TIME_FOR_HEARTBEAT` (9 s: "regular heartbeat from tasks is every 3 secs",
//! three missed) have passed, it hands the estimator a status of the same progress at the
//! scan's time, as if the attempt had reported, and starts the wait again. This speculator
//! does the same at each scan, with the snapshot's progress (the last reported) and the
//! scan's `now` (`heartbeat_wait_secs`, 9 s by default):
//! - The attempts checked are those Hadoop checks: the originals of the tasks that have
//!   not succeeded, in a stage neither skipped for its waiting tasks nor before the gate,
//!   whether or not the cap leaves room, a task speculating included (Hadoop checks the
//!   first running attempt of a task before it finds the second and returns
//!   `ALREADY_SPECULATING`; here the original). Hadoop's `TOO_NEW`, returned before the
//!   heartbeat for an attempt whose start the estimator does not know
//!   (`attemptEnrolledTime` is then `Long.MAX_VALUE`) or is after `now`, never applies
//!   here: each row's start is passed to the estimator just before, and a snapshot's
//!   starts are never after its `now` ([`Snapshot::push`]).
//! - The attempt's value at that scan is taken from its estimate before the reading, as
//!   Hadoop takes it; the reading changes the estimate from the next scan on.
//! - The wait is strict: exactly 9 s unchanged is not enough (Hadoop's `now -
//!   lastHeartBeatTime <= 9000` keeps waiting).
//! - What is remembered of an attempt, here and by the estimator, is forgotten when the
//!   attempt ends ([`Observation::AttemptEnded`], as Hadoop's `statusUpdate` drops it once
//!   the attempt is neither running nor starting) or when its stage finishes
//!   ([`Observation::StageFinished`]): an attempt an engine stops naming without an end
//!   (the replay drops those its log leaves unfinished) leaves nothing behind then.
//! - Only the wait feeds readings. Hadoop's condition is `data.notHeartbeatedInAWhile(now)
//!   || estimator.hasStagnatedProgress(attempt, now)`: while the wait is not over it also
//!   simulates the heartbeat when the estimator says the attempt has stagnated (without
//!   restarting the wait). Only the simple exponential estimator says so:
//!   `SimpleExponentialSmoothing.isDataStagnated(now)` is true when the attempt has more
//!   than `skip_initials` (24) readings and `timeStamp + stagnatedWindow > now`, its last
//!   reading (reported or simulated) being *younger* than the window (360 s): the opposite
//!   of its Javadoc ("the record timestamp has expired"). So in Hadoop, from an attempt's
//!   25th reading on, each scan at which its estimate and progress equal those remembered
//!   feeds it a reading; the reading changes the estimate, which the next scan remembers,
//!   so that is about every other scan while scans (1 s apart) come faster than reports
//!   (3 s), a healthy attempt's included. This is not reproduced, for two reasons. It
//!   contradicts the source's own documentation, a defect, as the `exp(+dt / lambda)`
//!   weight of the exponentially smoothed estimator is, which this crate does not
//!   reproduce either. And it changes little: a reading of unchanged progress multiplies
//!   the forecast by `exp(-dt / tau)`, so a run of them decays it by `exp(-T / tau)` over
//!   their span `T` however many there are (tau no longer changes after the 25th reading):
//!   an attempt that stopped reporting gets here the decay Hadoop's extra readings give
//!   it, its last reading at most the wait plus one scan interval older; for one that
//!   reports, a sample of 0 followed by its next report's sample over the shorter interval
//!   gives, to first order in `dt / tau`, the forecast the report alone gives.
//!   [`SimpleExponential`]'s estimate of `+inf` for an attempt whose progress has not moved
//!   for the window is this crate's own rule, not Hadoop's (its docs).
//!
//! With [`ExponentiallySmoothed`] each reading is a rate sample of 0, which here multiplies
//! the rate by `exp(-dt / lambda)` and pushes `start + est` ahead of `now`: a hung attempt
//! is flagged once its estimated end passes a copy's. That follows from this crate's
//! weight, a documented deviation ([`ExponentiallySmoothed`]), not from Hadoop: Hadoop's
//! `incorporate` weighs the old rate by `exp(+dt / lambda)`, so its sample of 0 *raises*
//! the rate, and the estimated end stays before a copy's (in the test
//! `an_attempt_that_stops_reporting_gets_hadoops_simulated_heartbeat`, Hadoop would never
//! flag the silent attempt). [`SimpleExponential`] takes the readings too (they count
//! towards its skip-initials). [`Legacy`] evaluates its estimate
//! at the scan's `now`, so the estimate changes at every scan and no reading is fed (it
//! would ignore one). An attempt that reports every few seconds, as the simulator's
//! attempts (every 3 s) and the replay's (at every scan) do, changes its estimate with
//! each report while it has one (a report of the same progress is a sample of 0), and is
//! given no reading. One whose progress stands still while it has no estimate (the simple
//! exponential estimator's first 24 readings, a rate of 0) is given one every 9 s or so,
//! reports or not. Hadoop gives one every 9 s or so to such an attempt that stopped
//! reporting; to one that keeps reporting the same progress, only where its estimate
//! stands still too: at a rate of 0 (the exponentially smoothed `estimatedRuntime` is then
//! -1), not in the simple exponential estimator's first readings, where Hadoop's estimate
//! is not absent but follows the last reading's time (`estimatedRuntime` divides the work
//! left by `max(1e-10, getForecast())`, and `getForecast` is -1 until the 25th reading).
//!
//! What is left to the engine, whose policy it is: how often scans run (Hadoop waits 1 s,
//! or 15 s after a launch) and where a copy runs. Skipping a stage with containers waiting
//! is the detector's (above): it reads [`Snapshot::pending`], which both simulators and the
//! replay set.
//!
//! The scan is one sequential pass over the rows plus per-stage bookkeeping, with a map of
//! the tasks of the snapshot; it takes no [`Parallelism`](crate::Parallelism), so a
//! parallel build flags exactly what a sequential one flags. Its cost is dominated by the
//! estimator's per-attempt lookups, which are not worth spreading over threads at the
//! sizes of one job's snapshot.

use crate::scan::{IdMap, TaskRowCounts};
use crate::spark::StageTaskSet;
use crate::staged_table::StagedTable;

use serde::{Deserialize, Serialize};
use straggler_model::{
    AttemptId, AttemptRole, AttemptStatus, NodeId, Observation, ProgressReport, Snapshot, StageId,
    TaskId,
};

use super::{DataStatistics, ExponentiallySmoothed, Legacy, RuntimeEstimator, SimpleExponential};
use crate::error::check_param;
use crate::{DetectError, Detector, Findings};

/// Parameters of [`HadoopSpeculator`] (Hadoop's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HadoopParams {
    /// `minimum-allowed-tasks`: copies always allowed per stage (10; Hadoop's is an integer,
    /// a fraction here is truncated with the cap). Finite, `>= 0`.
    pub min_allowed_copies: f64,
    /// `speculative-cap-total-tasks`: allowed copies per task of the stage (0.01). In
    /// `[0, 1]`.
    pub copies_per_task: f64,
    /// `speculative-cap-running-tasks`: allowed copies per running task of the stage
    /// (0.1). In `[0, 1]`.
    pub copies_per_running_task: f64,
    /// Finished tasks a stage needs before speculation (1). `>= 1`.
    pub min_finished_tasks: u32,
    /// Fraction of the stage's tasks that must have finished before speculation (0.05).
    /// In `[0, 1]`.
    pub min_finished_fraction: f64,
    /// `MAX_WAITTING_TIME_FOR_HEARTBEAT`: how long an examined attempt's estimate and
    /// progress may stay unchanged before the estimator is given a reading of its progress
    /// at the scan, as if it had reported, seconds (Hadoop: 9 s, three missed 3 s
    /// heartbeats). Finite, `> 0`.
    pub heartbeat_wait_secs: f64,
}

impl Default for HadoopParams {
    fn default() -> Self {
        HadoopParams {
            min_allowed_copies: 10.0,
            copies_per_task: 0.01,
            copies_per_running_task: 0.1,
            min_finished_tasks: 1,
            min_finished_fraction: 0.05,
            heartbeat_wait_secs: 9.0,
        }
    }
}

impl HadoopParams {
    /// Checks the parameters: `min_allowed_copies` finite and `>= 0`, the fractions in
    /// `[0, 1]`, `min_finished_tasks >= 1`, `heartbeat_wait_secs` finite and `> 0`.
    pub fn check(self) -> Result<CheckedHadoopParams, DetectError> {
        let unit = |v: f64| (0.0..=1.0).contains(&v);
        check_param(
            "min_allowed_copies",
            self.min_allowed_copies,
            "finite and >= 0",
            |v| v >= 0.0,
        )?;
        check_param("copies_per_task", self.copies_per_task, "in [0, 1]", unit)?;
        check_param(
            "copies_per_running_task",
            self.copies_per_running_task,
            "in [0, 1]",
            unit,
        )?;
        check_param(
            "min_finished_tasks",
            f64::from(self.min_finished_tasks),
            ">= 1",
            |v| v >= 1.0,
        )?;
        check_param(
            "min_finished_fraction",
            self.min_finished_fraction,
            "in [0, 1]",
            unit,
        )?;
        check_param(
            "heartbeat_wait_secs",
            self.heartbeat_wait_secs,
            "finite and > 0",
            |w| w > 0.0,
        )?;
        Ok(CheckedHadoopParams(self))
    }
}

/// [`HadoopParams`] that passed [`HadoopParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedHadoopParams(HadoopParams);

/// Per-stage counts of one scan: tasks running (not succeeded), those of them speculating
/// (several rows), whether the stage is examined (no task waits for a container, the gate
/// is open), and the best candidate so far (its value and row).
#[derive(Debug, Clone, Copy, Default)]
struct StageScan {
    running_tasks: u64,
    speculating_tasks: u64,
    examined: bool,
    best: Option<(f64, u32)>,
}

/// What the speculator last saw of an examined attempt (Hadoop's
/// `TaskAttemptHistoryStatistics`): its estimate and progress, and the scan since which
/// both have stood unchanged (or at which it was last given a reading).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Heartbeat {
    est_secs: Option<f64>,
    progress: f64,
    since_secs: f64,
}

/// Hadoop MapReduce v2's speculator over the estimator `E`.
#[derive(Debug, Clone)]
pub struct HadoopSpeculator<E> {
    estimator: E,
    params: HadoopParams,
    /// Durations of the succeeded tasks, per stage index: a task's first success only
    /// (`StartEndTimesBase.updateAttempt`: "if a task completes twice ... we only count
    /// the first one"), the tasks in `succeeded`.
    finished: IdMap<u32, DataStatistics>,
    succeeded: StageTaskSet,
    /// The number of tasks in `succeeded` per stage index, those without a valid duration
    /// included: Hadoop's count of completed tasks.
    succeeded_count: IdMap<u32, u64>,
    /// Scratch of a scan: whether each row's task has not succeeded (looked up once per
    /// row), the tasks of the rows of unfinished tasks, their rows per task, and the stage
    /// of the first row of each task with several rows.
    unfinished: Vec<bool>,
    unfinished_tasks: Vec<TaskId>,
    rows_per_task: TaskRowCounts,
    shared_tasks: IdMap<TaskId, u32>,
    stages: Vec<StageScan>,
    /// The last estimate and progress seen of each examined attempt, by id, until it ends
    /// or its stage finishes.
    heartbeats: StagedTable<Heartbeat>,
}

impl<E: RuntimeEstimator> HadoopSpeculator<E> {
    /// A speculator over `estimator` with checked parameters.
    pub fn new(estimator: E, params: CheckedHadoopParams) -> Self {
        HadoopSpeculator {
            estimator,
            params: params.0,
            finished: IdMap::default(),
            succeeded: StageTaskSet::default(),
            succeeded_count: IdMap::default(),
            unfinished: Vec::new(),
            unfinished_tasks: Vec::new(),
            rows_per_task: TaskRowCounts::default(),
            shared_tasks: IdMap::default(),
            stages: Vec::new(),
            heartbeats: StagedTable::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &HadoopParams {
        &self.params
    }

    /// The estimator.
    pub fn estimator(&self) -> &E {
        &self.estimator
    }

    /// The durations of the succeeded attempts of a stage observed since the last reset or
    /// the stage's end.
    pub fn finished(&self, stage: u32) -> DataStatistics {
        self.finished.get(&stage).copied().unwrap_or_default()
    }

    /// The scan since which an examined attempt's estimate and progress have stood
    /// unchanged, or at which it was last given a reading (see the module docs), seconds:
    /// `None` for an attempt no scan has examined, or that ended.
    pub fn heartbeat_since_secs(&self, attempt: AttemptId) -> Option<f64> {
        self.heartbeats.get(attempt.0).map(|seen| seen.since_secs)
    }

    /// Hadoop's simulated heartbeat for the attempt of `reading`, examined at the scan at
    /// `reading.time_secs` with the estimate `est_secs` (see the module docs): the
    /// estimator is given `reading` when the estimate and the progress have not changed
    /// for more than `heartbeat_wait_secs`.
    fn check_heartbeat(&mut self, reading: ProgressReport, est_secs: Option<f64>) {
        let (id, now) = (reading.attempt.0, reading.time_secs);
        let seen = Heartbeat {
            est_secs,
            progress: reading.progress,
            since_secs: now,
        };
        match self.heartbeats.get_mut(id) {
            None => self.heartbeats.insert(id, reading.stage.0, seen),
            Some(last) if last.est_secs == est_secs && last.progress == reading.progress => {
                if now - last.since_secs > self.params.heartbeat_wait_secs {
                    last.since_secs = now;
                    self.estimator.observe_progress(&reading);
                }
            }
            Some(last) => *last = seen,
        }
    }
}

impl HadoopSpeculator<Legacy> {
    /// `"hadoop-legacy"`: the speculator over [`Legacy`] with Hadoop's defaults.
    pub fn legacy() -> Self {
        Self::default()
    }
}

impl HadoopSpeculator<ExponentiallySmoothed> {
    /// `"hadoop-exp-smoothed"`: the speculator over [`ExponentiallySmoothed`] with
    /// Hadoop's defaults.
    pub fn exp_smoothed() -> Self {
        Self::default()
    }
}

impl HadoopSpeculator<SimpleExponential> {
    /// `"hadoop-simple-exp"`: the speculator over [`SimpleExponential`] with Hadoop's
    /// defaults.
    pub fn simple_exp() -> Self {
        Self::default()
    }
}

impl<E: RuntimeEstimator + Default> Default for HadoopSpeculator<E> {
    fn default() -> Self {
        HadoopSpeculator {
            estimator: E::default(),
            params: HadoopParams::default(),
            finished: IdMap::default(),
            succeeded: StageTaskSet::default(),
            succeeded_count: IdMap::default(),
            unfinished: Vec::new(),
            unfinished_tasks: Vec::new(),
            rows_per_task: TaskRowCounts::default(),
            shared_tasks: IdMap::default(),
            stages: Vec::new(),
            heartbeats: StagedTable::default(),
        }
    }
}

impl<E: RuntimeEstimator> Detector for HadoopSpeculator<E> {
    fn name(&self) -> &str {
        self.estimator.detector_name()
    }

    fn observe(&mut self, observation: &Observation) {
        match observation {
            Observation::Progress(report) => self.estimator.observe_progress(report),
            Observation::AttemptEnded(end) => {
                self.estimator.forget(end.attempt);
                self.heartbeats.remove(end.attempt.0);
                if end.status == AttemptStatus::Succeeded
                    && self.succeeded.insert(end.stage.0, end.task)
                {
                    *self.succeeded_count.entry(end.stage.0).or_insert(0) += 1;
                    self.finished
                        .entry(end.stage.0)
                        .or_default()
                        .add(end.end_secs - end.start_secs);
                }
            }
            Observation::StageFinished { stage, .. } => {
                self.finished.remove(&stage.0);
                self.succeeded_count.remove(&stage.0);
                self.succeeded.forget_stage(stage.0);
                // Its attempts never reported ended too.
                self.estimator.forget_stage(*stage);
                self.heartbeats.forget_stage(stage.0);
            }
            _ => {}
        }
    }

    fn reset(&mut self) {
        self.estimator.reset();
        self.heartbeats.clear();
        self.finished.clear();
        self.succeeded.clear();
        self.succeeded_count.clear();
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (tasks, stages, roles) = (snapshot.tasks(), snapshot.stage_indices(), snapshot.roles());
        let (starts, progress, attempts) = (
            snapshot.start_secs(),
            snapshot.progress(),
            snapshot.attempts(),
        );
        self.stages.clear();
        self.stages
            .resize(snapshot.stages().len(), StageScan::default());
        // Running tasks per stage, succeeded ones left out (a task counts once, in the
        // stage of its first row), and those with several rows, speculating. Rows are
        // counted per task over the rows of tasks that have not succeeded, so that a
        // succeeded task's leftover row makes no other row of its id look speculating.
        self.unfinished.clear();
        self.unfinished.extend(
            (tasks.iter().zip(stages)).map(|(&task, &stage)| !self.succeeded.contains(stage, task)),
        );
        self.unfinished_tasks.clear();
        self.unfinished_tasks.extend(
            (tasks.iter().zip(&self.unfinished))
                .filter(|&(_, &unfinished)| unfinished)
                .map(|(&task, _)| task),
        );
        self.rows_per_task.count(&self.unfinished_tasks);
        self.shared_tasks.clear();
        for row in 0..snapshot.len() {
            if !self.unfinished[row] {
                continue;
            }
            if self.rows_per_task.get(tasks[row]) == 1 {
                self.stages[stages[row] as usize].running_tasks += 1;
            } else {
                self.shared_tasks.entry(tasks[row]).or_insert(stages[row]);
            }
        }
        for &stage in self.shared_tasks.values() {
            let scan = &mut self.stages[stage as usize];
            scan.running_tasks += 1;
            scan.speculating_tasks += 1;
        }
        let params = self.params;
        // Per stage: whether it is examined, and the new attempt's end, or None when the
        // stage may not speculate.
        let mut replacement_end: Vec<Option<f64>> = Vec::with_capacity(self.stages.len());
        for (stage, counts) in self.stages.iter_mut().enumerate() {
            let stats = self
                .finished
                .get(&(stage as u32))
                .copied()
                .unwrap_or_default();
            // `maybeScheduleASpeculation`: a job with containers of the kind still waiting
            // for allocation is skipped.
            let waiting = snapshot.pending(StageId(stage as u32)) > 0;
            // Every finished task, one without a valid duration too.
            let finished_tasks = self
                .succeeded_count
                .get(&(stage as u32))
                .copied()
                .unwrap_or(0);
            let finished = finished_tasks as f64;
            let total = finished + counts.running_tasks as f64;
            let gate = finished_tasks >= u64::from(params.min_finished_tasks)
                && finished >= params.min_finished_fraction * total;
            // Hadoop's two `(int)` casts: the floor of the largest term.
            let allowed = params
                .min_allowed_copies
                .max(params.copies_per_task * total)
                .max(params.copies_per_running_task * counts.running_tasks as f64)
                .floor();
            counts.examined = !waiting && gate;
            let end = if counts.examined && (counts.speculating_tasks as f64) < allowed {
                self.estimator
                    .new_attempt_runtime_secs(&stats)
                    .map(|runtime| now + runtime)
                    .filter(|end| end.is_finite())
            } else {
                None
            };
            replacement_end.push(end);
        }
        let nodes = snapshot.node_indices();
        for row in 0..snapshot.len() {
            // Every row's start, before its estimate: in this pass rather than the first,
            // so that the estimator's record of the attempt is read from memory once (at
            // 10^6 rows, the records do not stay in the caches between passes).
            self.estimator
                .observe_start(attempts[row], StageId(stages[row]), starts[row]);
            let stage = stages[row] as usize;
            if !self.stages[stage].examined
                || roles[row] != AttemptRole::Original
                || !self.unfinished[row]
            {
                continue;
            }
            let est = self.estimator.estimated_runtime_secs(
                attempts[row],
                starts[row],
                now,
                progress[row],
            );
            // No `TOO_NEW` (module docs): the start was just passed on, and is not after
            // `now`.
            if self.estimator.reads_progress() {
                let reading = ProgressReport {
                    attempt: attempts[row],
                    task: tasks[row],
                    stage: StageId(stages[row]),
                    node: NodeId(nodes[row]),
                    time_secs: now,
                    progress: progress[row],
                };
                self.check_heartbeat(reading, est);
            }
            let Some(repl_end) = replacement_end[stage] else {
                continue;
            };
            if self.rows_per_task.get(tasks[row]) != 1 {
                continue;
            }
            let Some(est) = est else {
                continue;
            };
            let est_end = starts[row] + est;
            // `!(a >= b)` also skips a NaN.
            if est_end.is_nan() || est_end < now || repl_end >= est_end {
                continue;
            }
            let value = est_end - repl_end;
            let best = &mut self.stages[stage].best;
            if best.is_none_or(|(v, _)| value > v) {
                *best = Some((value, row as u32));
            }
        }
        let mut flagged: Vec<u32> = self
            .stages
            .iter()
            .filter_map(|s| s.best.map(|(_, row)| row))
            .collect();
        flagged.sort_unstable();
        for row in flagged {
            findings.push_row(row);
        }
    }
}
