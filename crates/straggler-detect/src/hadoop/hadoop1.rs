//! Hadoop 1's speculation rule (Dean and Ghemawat's progress gap, as Hadoop's JobTracker
//! implements it in `TaskInProgress.hasSpeculativeTask` before 0.21; see "Which Hadoop"
//! below).
//!
//! An original attempt is flagged iff
//!
//! ```text
//! its task has exactly one running attempt
//! and mean - PS >= gap                         (SPECULATIVE_GAP = 0.2)
//! and now - job_start >= lag                   (SPECULATIVE_LAG = 60 s)
//! ```
//!
//! where `mean` is the average progress of all the tasks of the attempt's stage (a job's
//! maps, or its reduces), finished and waiting ones included:
//!
//! ```text
//! mean = (finished x 1 + sum over running tasks of PS_task + waiting x 0)
//!        / (finished + running + waiting)
//! PS_task = the largest progress of the task's running attempts
//! ```
//!
//! Sources: `reference/speculators.md`, "Hadoop 1"; seed paper, Section 5.5, Eq. 6 (the
//! same gap, with a strict `<`, no lag and the mean of the running tasks, is
//! [`DefaultDetector`](crate::DefaultDetector)). The mean is Hadoop 1's `averageProgress`:
//! `JobInProgress` passes `status.mapProgress()` (or `reduceProgress()`), which it keeps
//! as the sum of every `TaskInProgress`'s progress over `maps.length` (or
//! `reduces.length`), all the job's tasks of the kind; a task's progress is 1 once it
//! completed, 0 before it is scheduled, and otherwise the best progress of its running
//! attempts (`TaskInProgress.recomputeProgress`).
//!
//! How the detector knows each term:
//! - `finished`: the stage's distinct tasks with a succeeded attempt observed
//!   ([`Observation::AttemptEnded`]) since the last reset or the stage's
//!   [`Observation::StageFinished`], kept as a set: a second success
//!   of a task (a copy and its original both succeeding, or one end reported twice) counts
//!   once.
//! - `running`: the distinct tasks with a row in the snapshot and not finished; `PS_task`
//!   is the largest progress of their rows. A finished task's rows are left out of the
//!   mean and never flagged: when a copy succeeds at `t` and its original is killed at
//!   `t + delta`, a snapshot of that interval may still list the original, and the task,
//!   counted at 1, would otherwise be counted a second time.
//! - `waiting`: [`Snapshot::pending`], the tasks waiting for a container.
//!
//! A task whose attempt has started but not reported yet is in none of them (a snapshot
//! lists the attempts that reported), where Hadoop counts it at its progress, about 0.
//!
//! The mean is kept at or below the largest of the values averaged (see
//! `docs/formulas.md`, "Means that stay at or below their largest value"), so identical
//! attempts are never behind each other.
//!
//! # The lag
//!
//! The lag counts from the job's start, not the attempt's launch. Hadoop compares
//! `currentTime - startTime` with `SPECULATIVE_LAG`, and a `TaskInProgress` sets its
//! `startTime` once, in `init`, when the job's `initTasks` creates it, reduces included
//! (read in the source of two versions before 0.21; `getTaskToRun` sets `execStartTime`,
//! not `startTime`). `speculators.md` says "the task has run >= 60 s": the task's age in
//! the source is its `TaskInProgress`'s. So the 60 s hold back the job's first wave only,
//! and a later attempt behind by the gap is speculated as soon as it is: the Yahoo sample
//! of `docs/replay.md`, from a Hadoop of that time, has copies of attempts that had run
//! 32 s. Here `job_start` is the job's submission where the engine sends it
//! ([`Observation::JobSubmitted`]: the simulators at the job's arrival, a replay at the
//! time the log gives), the `TaskInProgress` objects being created right after, and
//! otherwise the earliest launch the detector has seen of an attempt of the job (its
//! rows, and the launches of ended attempts observed), at or after the real start by the
//! time the job took to launch its first attempt unless a launch is dated by a clock
//! behind the others' (the Yahoo sample dates one map 109 s before its job's submission:
//! `docs/replay.md`). A JobTracker that restarts creates a recovered job's `TaskInProgress` objects
//! again, and so starts their lag again; a snapshot does not show a restart, and this is
//! not modelled.
//!
//! # Which Hadoop
//!
//! This is the rule of the JobTracker of Hadoop 0.20 and of the 1.x releases that grew
//! from it (read in Hadoop 1.2.1's `TaskInProgress.hasSpeculativeTask`: the same gap,
//! lag, `startTime` set in `init` and `activeTasks.size() <= MAX_TASK_EXECS = 1`, called
//! by `JobInProgress.findSpeculativeTask` with `status.mapProgress()`), which the LATE
//! paper describes as Hadoop's and `speculators.md` calls Hadoop 1's. Hadoop 0.21 replaced
//! it by HADOOP-2141's rule on progress rates against their mean and standard deviation
//! (the seed paper's LATE reading, [`LateDetector`](crate::LateDetector), without its lag
//! per dispatch); the 1.x line did not take that change.
//!
//! The comparison `mean - PS >= gap` is made in binary64 and decided by rounding where it
//! is a tie in the reals: with tasks at 0.9 and 0.5, `mean - 0.5 = 0.19999999999999996`,
//! and the 0.5 is not flagged at gap 0.2. Hadoop does the same: `hasSpeculativeTask`
//! computes `averageProgress - progress >= SPECULATIVE_GAP` in `double`, and its
//! `averageProgress` is a `float` (`JobStatus.mapProgress`) accumulated from the tasks'
//! progress deltas, so its ties are decided by rounding too (there `0.7f - 0.5 =
//! 0.19999998807907104`, not flagged either). The binary32 accumulation, which depends
//! on the order of the updates, is not reproduced; no tolerance is added.
//!
//! The running attempts of each task are counted in one sequential pass (a hash map);
//! the sums of the tasks with one running attempt and the filter run on rayon's pool with
//! the crate's fixed chunks, the tasks with several attempts are added in row order after
//! them, so a parallel scan flags exactly the rows a sequential one flags.

use crate::scan::{GroupSum, IdMap, TaskRowCounts};

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, AttemptStatus, Observation, Snapshot, StageId, TaskId};

use crate::error::check_param;
use crate::job_starts::JobStarts;
use crate::scan::{GroupSums, Summands, filter_rows, map_rows};
use crate::spark::StageTaskSet;
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`Hadoop1`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hadoop1Params {
    /// The progress gap below the stage mean (0.2). In `(0, 1]`.
    pub gap: f64,
    /// `SPECULATIVE_LAG`: how long the attempt's job must have run, seconds (60). Finite,
    /// `>= 0`.
    pub lag_secs: f64,
    /// How the scan uses threads.
    pub parallelism: Parallelism,
}

impl Default for Hadoop1Params {
    fn default() -> Self {
        Hadoop1Params {
            gap: 0.2,
            lag_secs: 60.0,
            parallelism: Parallelism::default(),
        }
    }
}

impl Hadoop1Params {
    /// Checks the parameters: `gap` in `(0, 1]` (with `>=`, a gap of 0 would flag attempts
    /// identical to all their peers), `lag_secs` finite and `>= 0`.
    pub fn check(self) -> Result<CheckedHadoop1Params, DetectError> {
        check_param("gap", self.gap, "in (0, 1]", |g| g > 0.0 && g <= 1.0)?;
        check_param("lag_secs", self.lag_secs, "finite and >= 0", |l| l >= 0.0)?;
        Ok(CheckedHadoop1Params(self))
    }
}

/// [`Hadoop1Params`] that passed [`Hadoop1Params::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedHadoop1Params(Hadoop1Params);

/// Hadoop 1's speculation rule.
#[derive(Debug, Clone, Default)]
pub struct Hadoop1 {
    params: Hadoop1Params,
    /// Succeeded tasks per stage index, observed since the last reset or the stage's end:
    /// the pairs of `finished_tasks` per stage.
    finished: IdMap<u32, u64>,
    /// The (stage index, task) pairs with a success observed since the last reset (a task
    /// index names one task of a run, so a finished stage's pairs stay).
    finished_tasks: StageTaskSet,
    attempts_per_task: TaskRowCounts,
    /// The progress of each row whose task has no other row and has not finished, NaN
    /// for the others.
    single_progress: Vec<f64>,
    sums: GroupSums,
    /// The tasks with several rows: their index in `shared_tasks`.
    shared_index: IdMap<TaskId, usize>,
    /// The tasks with several rows, in order of their first row: stage and best progress.
    shared_tasks: Vec<(u32, f64)>,
    /// When each job commenced: the lag counts from it.
    job_starts: JobStarts,
}

impl Hadoop1 {
    /// A detector with checked parameters.
    pub fn new(params: CheckedHadoop1Params) -> Self {
        Hadoop1 {
            params: params.0,
            ..Hadoop1::default()
        }
    }

    /// The parameters.
    pub fn params(&self) -> &Hadoop1Params {
        &self.params
    }

    /// The distinct tasks of a stage with a success observed since the last reset or the
    /// stage's end.
    pub fn finished(&self, stage: StageId) -> u64 {
        self.finished.get(&stage.0).copied().unwrap_or(0)
    }

    /// Each stage's `averageProgress` (see the module docs), `None` for a stage without a
    /// task. Fills `single_progress` (read by the filter), `shared_index` and
    /// `shared_tasks` on the way.
    fn stage_means(&mut self, snapshot: &Snapshot) -> Vec<Option<f64>> {
        let (progress, stages, tasks) = (
            snapshot.progress(),
            snapshot.stage_indices(),
            snapshot.tasks(),
        );
        let parallelism = self.params.parallelism;
        let counts = &self.attempts_per_task;
        let stage_count = snapshot.stages().len();
        let finished_tasks = &self.finished_tasks;
        let is_finished = |row: usize| finished_tasks.contains(stages[row], tasks[row]);
        map_rows(
            progress.len(),
            parallelism,
            &mut self.single_progress,
            |row| {
                if counts.get(tasks[row]) == 1 && !is_finished(row) {
                    progress[row]
                } else {
                    f64::NAN
                }
            },
        );
        let mut sums: Vec<GroupSum> = self
            .sums
            .compute(
                stages,
                &self.single_progress[..],
                stage_count,
                parallelism,
                Summands::Values,
            )
            .to_vec();
        // Progress is finite (a snapshot's invariant): the rows left out are those of the
        // tasks with several rows, rare (copies), added one task at a time in row order,
        // and those of finished tasks, rarer still, not added.
        let summed: u64 = sums.iter().map(|s| s.count).sum();
        self.shared_index.clear();
        self.shared_tasks.clear();
        if summed < progress.len() as u64 {
            for row in 0..progress.len() {
                if counts.get(tasks[row]) < 2 || is_finished(row) {
                    continue;
                }
                let next = self.shared_tasks.len();
                let index = *self.shared_index.entry(tasks[row]).or_insert(next);
                if index == next {
                    self.shared_tasks.push((stages[row], progress[row]));
                } else if progress[row] > self.shared_tasks[index].1 {
                    self.shared_tasks[index].1 = progress[row];
                }
            }
            for &(stage, best) in &self.shared_tasks {
                let sum = &mut sums[stage as usize];
                sum.sum += best;
                sum.count += 1;
                sum.max = sum.max.max(best);
            }
        }
        sums.iter_mut()
            .enumerate()
            .map(|(stage, sum)| {
                let finished = self.finished.get(&(stage as u32)).copied().unwrap_or(0);
                let waiting = u64::from(snapshot.pending(StageId(stage as u32)));
                if finished > 0 {
                    sum.sum += finished as f64;
                    sum.max = sum.max.max(1.0);
                }
                if waiting > 0 {
                    sum.max = sum.max.max(0.0);
                }
                sum.count += finished + waiting;
                sum.mean()
            })
            .collect()
    }
}

impl Detector for Hadoop1 {
    fn name(&self) -> &str {
        "hadoop1"
    }

    fn observe(&mut self, observation: &Observation) {
        match observation {
            Observation::AttemptEnded(end)
                if end.status == AttemptStatus::Succeeded
                    && self.finished_tasks.insert(end.stage.0, end.task) =>
            {
                *self.finished.entry(end.stage.0).or_insert(0) += 1;
            }
            Observation::StageFinished { stage, .. } => {
                self.finished.remove(&stage.0);
                self.finished_tasks.forget_stage(stage.0);
            }
            _ => {}
        }
        self.job_starts.observe(observation);
    }

    fn reset(&mut self) {
        self.finished.clear();
        self.finished_tasks.clear();
        self.job_starts.reset();
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let progress = snapshot.progress();
        let (stages, roles, tasks) = (snapshot.stage_indices(), snapshot.roles(), snapshot.tasks());
        self.attempts_per_task.count(tasks);
        let means = self.stage_means(snapshot);
        self.job_starts.scan(snapshot);
        let job_starts = self.job_starts.created_by_stage();
        let (gap, lag) = (self.params.gap, self.params.lag_secs);
        // Not NaN: the task's only row, and the task has not finished.
        let single_progress = &self.single_progress;
        filter_rows(
            progress.len(),
            self.params.parallelism,
            |row| {
                roles[row] == AttemptRole::Original
                    && now - job_starts[stages[row] as usize] >= lag
                    && !single_progress[row].is_nan()
                    && means[stages[row] as usize].is_some_and(|mean| mean - progress[row] >= gap)
            },
            findings.rows_mut(),
        );
    }
}
