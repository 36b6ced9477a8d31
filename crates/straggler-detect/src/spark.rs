//! Spark's speculation rule (`TaskSetManager.checkSpeculatableTasks`, Apache Spark; facts
//! in `speculators.md`, "Spark").
//!
//! Spark judges a running task against the *finished* tasks of its stage, not against its
//! running peers. For a stage of `numTasks` tasks, once
//!
//! ```text
//! successes >= max(floor(quantile * numTasks), 1)
//! ```
//!
//! (`successes`: the stage's tasks that succeeded with a duration, as Spark 3.0 on compares
//! `successfulTaskDurations.size()`, SPARK-27590), with `median` the median duration of
//! the successful tasks:
//!
//! ```text
//! threshold = max(multiplier * median, min_task_runtime)          (min_task_runtime = 0.1 s)
//! ```
//!
//! and a running attempt is a straggler iff it is the original attempt of a task that has
//! not succeeded, the only running attempt of its task (no copy of it in the snapshot),
//! `runtime = now - start > threshold`, and, when the efficiency check is on (the default
//! since Spark 3.4),
//!
//! ```text
//! runtime > long_run_task_factor * threshold                       (factor 2.0)
//!   or  rate < process_rate_multiplier * stage rate                (multiplier 0.75)
//! ```
//!
//! **Median.** For an even count `n` of durations, Spark 4's `PercentileHeap` (percentage
//! 0.5) returns the upper middle value, `sorted[n / 2]` (its `sorted((n * 0.5).toInt)`): the
//! averaging was removed by SPARK-42528 (February 2023, after Spark 3.4's branch). Before,
//! `MedianHeap` (SPARK-16929, until Spark 3.3) and the first `PercentileHeap` (SPARK-41530,
//! Spark 3.4) return the mean of the two middle values. [`SparkParams::median_averages_middle_pair`]
//! chooses; for an odd count both give the middle value.
//!
//! **Stage rate.** Spark's `TaskSetManager.TaskProcessRateCalculator` (Spark 3.4 to 4.x)
//! keeps the stage's totals over its successful tasks and sets
//!
//! ```text
//! stage rate = total input / total run time         once both totals are > 0
//!            = f64::MAX (Spark: Double.MaxValue)     before
//! ```
//!
//! a ratio of totals, not a mean of per-task rates: successes of 10, 10 and 90 s on 64 MB
//! give 192 MB / 110 s = 1.75 MB/s, where the mean of the rates would be 4.50 MB/s. Until a
//! success has both input and run time, every finite rate is below the bar (unless
//! `process_rate_multiplier` is 0), so an attempt is speculated once `runtime > threshold`.
//!
//! Presets: [`SparkParams::spark4`] (quantile 0.9, multiplier 3, upper middle: Spark 4.0's
//! defaults, also [`Default`]) and [`SparkParams::legacy`] (0.75 and 1.5, the defaults
//! before 4.0, with the averaged median: Spark 3.4, the first release with the efficiency
//! check on; Spark 3.5 is `legacy` with `median_averages_middle_pair = false`). The
//! detector is named `spark-legacy` only with all three of the legacy preset's values
//! (quantile, multiplier and the averaged median), `spark` otherwise.
//!
//! **Serialized parameters.** A value without `median_averages_middle_pair` (saved before
//! the field existed) loads with `false`, the upper middle, whatever its quantile and
//! multiplier: a legacy configuration saved then loads as Spark 3.5's rule and is named
//! `spark`, not `spark-legacy`. Add `"median_averages_middle_pair": true` to keep the
//! legacy preset.
//!
//! # Where this differs from Spark
//!
//! - **Processing rate.** Spark compares records read per second. Snapshots carry no record
//!   counts, so the rate here is input bytes processed per second: a running attempt's is
//!   `progress * input_bytes / runtime`, and the stage's is the sum of the successes'
//!   `input_bytes` over the sum of their durations (`end - start`, where Spark sums the
//!   executor run time). A ratio above `f64::MAX` (a tiny total run time) is taken as
//!   `f64::MAX`, so the bar is never NaN.
//! - **Number of tasks.** A snapshot has no stage totals, so `numTasks` is the number of
//!   distinct tasks of the stage seen so far, running (in a snapshot or a progress report)
//!   or ended, plus the snapshot's count of the stage's tasks waiting to be scheduled
//!   ([`Snapshot::pending`]), less the tasks seen that wait to run again: those whose last
//!   attempt ended without success and that have had no row since. `pending` counts those
//!   too (the scale engine, `straggler-sim`'s `Fleet`, adds the tasks a node failure lost
//!   to its waiting count), and counted twice they would raise the gate. The subtraction
//!   stops at `pending`, so `numTasks` is never below the tasks seen; an engine whose
//!   `pending` counted only tasks never launched would have such a task once in the tasks
//!   seen and once less in the subtraction, and `numTasks` would miss it until it ran
//!   again (`straggler-trace`'s replay counts them in `pending`, as the scale engine
//!   does).
//! - **Marking.** Spark skips a task it has marked speculatable (`speculatableTasks`) until
//!   its copy launches, which takes it off the set (`dequeueTaskHelper`); the copy then
//!   keeps it out (two running), and should one of the two end without success the task
//!   may be marked again. This detector flags it at every scan while the rule holds (the
//!   engine counts the first detection only).
//! - **Originals only.** Spark judges any lone running attempt of an unfinished task,
//!   `copiesRunning(index) == 1`, a copy whose original failed included; here only an
//!   original, since the engines ignore detections of copies (`docs/writing-a-detector.md`)
//!   and re-run a failed original as a new original.
//! - **One task.** Spark skips a stage of one task (without `task.duration.threshold`);
//!   here its gate of one success is met only once that task succeeded, and then it is no
//!   candidate: the same outcome.
//! - Left out: the absolute `task.duration.threshold` for small stages, the check interval
//!   (the engine's scan period plays that role), and where a copy may run (the engine's
//!   policy). Spark has no cap on copies, and neither has this detector.
//!
//! Durations are learnt from [`Observation::AttemptEnded`] with status `Succeeded`, each
//! task once (its first success). The gate counts the successes with a duration, as Spark
//! (3.0 on) counts `successfulTaskDurations.size()`, not `tasksSuccessful` (SPARK-27590: a
//! task completed without a duration known to the stage's manager does not count). So an
//! end with a negative or non-finite duration (a broken trace) adds neither to the gate nor
//! a duration or its input to the median and the totals; the task is still succeeded, and
//! its rows are never flagged. The per-row
//! decision reads per-stage values fixed before the filter and sums nothing over rows, so
//! the parallel filter flags exactly the rows the sequential one flags.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, AttemptStatus, Observation, Snapshot, TaskId};

use crate::error::check_param;
use crate::scan::{IdMap, IdSet, TaskRowCounts, filter_rows};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`SparkDetector`], named after Spark's `spark.speculation.*` keys.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SparkParams {
    /// Fraction of a stage's tasks that must have succeeded before it is checked
    /// (`spark.speculation.quantile`: 0.9 since Spark 4.0, 0.75 before). In `[0, 1]`.
    pub quantile: f64,
    /// Times the median successful duration a task must run to be slow
    /// (`spark.speculation.multiplier`: 3 since Spark 4.0, 1.5 before). Finite, `>= 0`.
    pub multiplier: f64,
    /// Floor of the threshold, in seconds (`spark.speculation.minTaskRuntime`, 100 ms).
    /// Finite, `>= 0`.
    pub min_task_runtime_secs: f64,
    /// Whether the median of an even count of durations is the mean of the two middle
    /// values (`MedianHeap` until Spark 3.3, `PercentileHeap` in 3.4) rather than the upper one, `sorted[n / 2]`
    /// (`PercentileHeap` since SPARK-42528: Spark 3.5 and 4.x). Missing in a serialized
    /// value: `false`, for every preset (a legacy value saved without it is then not the
    /// legacy preset, and is named `spark`).
    #[serde(default)]
    pub median_averages_middle_pair: bool,
    /// Whether the efficiency check applies (`spark.speculation.efficiency.enabled`, on).
    pub efficiency_enabled: bool,
    /// An attempt running longer than this times the threshold passes the efficiency
    /// check whatever its rate (`spark.speculation.efficiency.longRunTaskFactor`, 2.0).
    /// Finite, `>= 0`.
    pub long_run_task_factor: f64,
    /// An attempt processing slower than this times the stage's rate (total input over
    /// total run time of its successes) passes the efficiency check
    /// (`spark.speculation.efficiency.processRateMultiplier`, 0.75).
    /// Finite, `>= 0`.
    pub process_rate_multiplier: f64,
    /// How the row filter uses threads.
    pub parallelism: Parallelism,
}

impl Default for SparkParams {
    /// [`SparkParams::spark4`].
    fn default() -> Self {
        SparkParams::spark4()
    }
}

impl SparkParams {
    /// Spark 4.0's defaults: quantile 0.9, multiplier 3; the upper middle of an even count.
    pub fn spark4() -> Self {
        SparkParams {
            quantile: 0.9,
            multiplier: 3.0,
            min_task_runtime_secs: 0.1,
            median_averages_middle_pair: false,
            efficiency_enabled: true,
            long_run_task_factor: 2.0,
            process_rate_multiplier: 0.75,
            parallelism: Parallelism::default(),
        }
    }

    /// The defaults before Spark 4.0: quantile 0.75, multiplier 1.5; with the mean of the
    /// two middle values of an even count and the efficiency check, Spark 3.4.
    pub fn legacy() -> Self {
        SparkParams {
            quantile: 0.75,
            multiplier: 1.5,
            median_averages_middle_pair: true,
            ..SparkParams::spark4()
        }
    }

    /// Whether the gate, the multiplier and the median are the legacy preset's.
    fn is_legacy(&self) -> bool {
        let legacy = SparkParams::legacy();
        self.quantile == legacy.quantile
            && self.multiplier == legacy.multiplier
            && self.median_averages_middle_pair == legacy.median_averages_middle_pair
    }

    /// Checks the parameters: `quantile` in `[0, 1]`, the others finite and `>= 0`.
    pub fn check(self) -> Result<CheckedSparkParams, DetectError> {
        check_param("quantile", self.quantile, "in [0, 1]", |q| {
            (0.0..=1.0).contains(&q)
        })?;
        let non_negative =
            |param, value| check_param(param, value, "finite and >= 0", |v| v >= 0.0);
        non_negative("multiplier", self.multiplier)?;
        non_negative("min_task_runtime_secs", self.min_task_runtime_secs)?;
        non_negative("long_run_task_factor", self.long_run_task_factor)?;
        non_negative("process_rate_multiplier", self.process_rate_multiplier)?;
        Ok(CheckedSparkParams(self))
    }
}

/// [`SparkParams`] that passed [`SparkParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedSparkParams(SparkParams);

/// What the detector has learnt about one stage.
#[derive(Debug, Clone, Default)]
struct StageHistory {
    /// How many distinct tasks were seen, running or ended: `numTasks` (the tasks
    /// themselves are in the detector's [`StageTaskSet`]).
    seen: usize,
    /// Tasks with a success.
    succeeded: IdSet<TaskId>,
    /// Durations of the first successes, in seconds.
    durations_secs: MedianHeap,
    /// Sums over those successes of their input bytes and of their durations (Spark's
    /// `totalRecordsRead` and `totalExecutorRunTime`).
    total_input_bytes: f64,
    total_run_secs: f64,
}

/// The values a stage's rows are judged against at one scan.
#[derive(Debug, Clone, Copy)]
struct StageBar {
    threshold_secs: f64,
    long_run_secs: f64,
    /// `process_rate_multiplier` times the stage rate, in bytes per second; finite or
    /// `+inf`, never NaN.
    min_rate: f64,
}

impl StageHistory {
    /// Learns a success of `task`, which the caller has counted in `seen`.
    fn learn_success(&mut self, task: TaskId, duration_secs: f64, input_bytes: f64) {
        let first_success = self.succeeded.insert(task);
        if !(first_success && duration_secs >= 0.0 && duration_secs.is_finite()) {
            return;
        }
        self.durations_secs.push(duration_secs);
        self.total_input_bytes += input_bytes;
        self.total_run_secs += duration_secs;
    }

    /// Spark's `avgTaskProcessRate` (`TaskProcessRateCalculator`): total input over total
    /// run time once both are > 0, `f64::MAX` (Spark's `Double.MaxValue`) before; a ratio
    /// beyond `f64::MAX` is capped there.
    fn stage_rate(&self) -> f64 {
        if self.total_input_bytes > 0.0 && self.total_run_secs > 0.0 {
            (self.total_input_bytes / self.total_run_secs).min(f64::MAX)
        } else {
            f64::MAX
        }
    }

    /// The stage's bar, `pending` of its tasks still waiting for a container.
    fn bar(&self, params: &SparkParams, pending: u32) -> Option<StageBar> {
        // The successes with a duration, the median's (Spark 3.0+ counts
        // `successfulTaskDurations.size()`, not `tasksSuccessful`: SPARK-27590).
        let successes = self.durations_secs.len();
        let num_tasks = self.seen + pending as usize;
        let gate = ((params.quantile * num_tasks as f64).floor() as usize).max(1);
        if successes < gate {
            return None;
        }
        let median_secs = self
            .durations_secs
            .median(params.median_averages_middle_pair)?;
        let threshold_secs = (params.multiplier * median_secs).max(params.min_task_runtime_secs);
        // A finite multiplier >= 0 times a finite rate > 0: finite or +inf.
        let min_rate = params.process_rate_multiplier * self.stage_rate();
        Some(StageBar {
            threshold_secs,
            long_run_secs: params.long_run_task_factor * threshold_secs,
            min_rate,
        })
    }
}

/// Spark's speculation rule (`TaskSetManager.checkSpeculatableTasks`).
///
/// Once `max(floor(quantile * numTasks), 1)` tasks of a stage have succeeded, flags the lone
/// original attempts of unfinished tasks whose runtime exceeds
/// `max(multiplier * median successful duration, min_task_runtime)` and, with the
/// efficiency check, that run more than twice that long or process their input bytes
/// slower than 0.75 times the stage's rate (total input over total run time of its
/// successes). `numTasks` counts the tasks seen so far and those waiting (snapshots carry
/// no stage totals), and rates are input bytes per second where Spark uses records per
/// second; `src/spark.rs` documents these substitutions.
#[derive(Debug, Clone, Default)]
pub struct SparkDetector {
    params: SparkParams,
    /// By stage index.
    stages: IdMap<u32, StageHistory>,
    /// The tasks seen per stage.
    seen: StageTaskSet,
    /// Running attempts per task in the current snapshot.
    running: TaskRowCounts,
    /// The (stage, task) pairs seen whose last attempt ended without success and that have
    /// had no row since: tasks waiting to run again, which `Snapshot::pending` counts too.
    waiting_again: IdSet<(u32, TaskId)>,
    /// Per stage index, how many of `waiting_again` have no row in the current snapshot.
    waiting_again_by_stage: Vec<u32>,
}

impl SparkDetector {
    /// A detector with checked parameters.
    pub fn new(params: CheckedSparkParams) -> Self {
        SparkDetector {
            params: params.0,
            stages: IdMap::default(),
            seen: StageTaskSet::default(),
            running: TaskRowCounts::default(),
            waiting_again: IdSet::default(),
            waiting_again_by_stage: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &SparkParams {
        &self.params
    }
}

impl Detector for SparkDetector {
    /// `"spark-legacy"` with the legacy quantile, multiplier and averaged median,
    /// `"spark"` otherwise (Spark 3.5's rule, the legacy values with the upper middle,
    /// included).
    fn name(&self) -> &str {
        if self.params.is_legacy() {
            "spark-legacy"
        } else {
            "spark"
        }
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let (tasks, stages) = (snapshot.tasks(), snapshot.stage_indices());
        for (&task, &stage) in tasks.iter().zip(stages) {
            // Most rows were seen at an earlier scan: one array read, no hashing.
            if self.seen.insert(stage, task) {
                self.stages.entry(stage).or_default().seen += 1;
            }
        }
        // A task waiting to run again was seen and is in `pending` too: count it once. A
        // row of it means it runs again (rare: only after a failure or a lost copy).
        self.waiting_again_by_stage.clear();
        self.waiting_again_by_stage
            .resize(snapshot.stages().len(), 0);
        if !self.waiting_again.is_empty() {
            for (&task, &stage) in tasks.iter().zip(stages) {
                self.waiting_again.remove(&(stage, task));
            }
            for &(stage, _) in &self.waiting_again {
                if let Some(count) = self.waiting_again_by_stage.get_mut(stage as usize) {
                    *count += 1;
                }
            }
        }
        let params = self.params;
        let waiting_again = &self.waiting_again_by_stage;
        let bars: Vec<Option<(StageBar, &StageHistory)>> = (0..snapshot.stages().len() as u32)
            .map(|stage| {
                let history = self.stages.get(&stage)?;
                let pending = snapshot
                    .pending(straggler_model::StageId(stage))
                    .saturating_sub(waiting_again[stage as usize]);
                Some((history.bar(&params, pending)?, history))
            })
            .collect();
        if bars.iter().all(Option::is_none) {
            return;
        }
        self.running.count(tasks);
        let running = &self.running;
        let now = snapshot.now_secs();
        let (roles, start) = (snapshot.roles(), snapshot.start_secs());
        let (progress, input) = (snapshot.progress(), snapshot.input_bytes());
        let keep = |row: usize| {
            let Some((bar, history)) = bars[stages[row] as usize] else {
                return false;
            };
            let task = tasks[row];
            let runtime = now - start[row];
            // The cheap comparisons first: most rows fail them, and the lookups after
            // them read memory all over.
            if runtime <= bar.threshold_secs
                || roles[row] != AttemptRole::Original
                || running.get(task) != 1
                || history.succeeded.contains(&task)
            {
                return false;
            }
            // runtime > threshold >= 0, so the rate is finite.
            !params.efficiency_enabled
                || runtime > bar.long_run_secs
                || progress[row] * input[row] / runtime < bar.min_rate
        };
        filter_rows(tasks.len(), params.parallelism, keep, findings.rows_mut());
    }

    fn observe(&mut self, observation: &Observation) {
        match observation {
            Observation::Progress(report) if self.seen.insert(report.stage.0, report.task) => {
                self.stages.entry(report.stage.0).or_default().seen += 1;
            }
            Observation::AttemptEnded(end) => {
                let history = self.stages.entry(end.stage.0).or_default();
                if self.seen.insert(end.stage.0, end.task) {
                    history.seen += 1;
                }
                if end.status == AttemptStatus::Succeeded {
                    history.learn_success(
                        end.task,
                        end.end_secs - end.start_secs,
                        end.input_bytes as f64,
                    );
                    self.waiting_again.remove(&(end.stage.0, end.task));
                } else if !history.succeeded.contains(&end.task) {
                    self.waiting_again.insert((end.stage.0, end.task));
                }
            }
            Observation::StageFinished { stage, .. } => {
                self.stages.remove(&stage.0);
                self.seen.forget_stage(stage.0);
                self.waiting_again.retain(|&(s, _)| s != stage.0);
            }
            _ => {}
        }
    }

    fn reset(&mut self) {
        self.stages.clear();
        self.seen.clear();
        self.waiting_again.clear();
    }
}

/// A set of (stage, task) pairs: the tasks seen here, the succeeded tasks in
/// [`Hadoop1`](crate::Hadoop1). Engines number tasks densely, so most pairs are an array
/// slot by task index (from `base`) holding the stage of the task's first pair; a task in
/// a second stage, below `base`, or whose index is far beyond the pairs inserted, goes to
/// a hash set. A lookup of a dense pair is one array read, where a hash set of a million
/// tasks costs a cache miss per lookup; so does a lookup that misses, unless its index is
/// outside the range of the hash set's indices (the running tasks of a snapshot, numbered
/// before the tasks that ended, say), which is checked first.
///
/// A finished stage's pairs go ([`StageTaskSet::forget_stage`]): no later observation or
/// row names the stage, and a stage given its index later has tasks of its own (a task
/// index names one task of the run). The array's slots of the stage, between the least
/// and the largest task index of its pairs, are cleared when that span is at most four
/// times its pairs (tasks numbered by stage, as engines do; otherwise they stay); once the
/// cleared slots at the array's start are half of it, they go and `base` moves past them.
/// So a long run holds the tasks of its running stages, not of every stage it ran.
#[derive(Debug, Clone)]
pub(crate) struct StageTaskSet {
    /// By task index from `base`: 1 + the stage of the task's first pair, 0 for none.
    first_stage: Vec<u32>,
    base: usize,
    /// Slots at the start of `first_stage` known to be 0 (no pair).
    zeros: usize,
    /// Pairs in `first_stage`, and slots of it cleared since it last lost its start (the
    /// array grows as if they held pairs still).
    dense: usize,
    cleared: usize,
    /// Each stage's pairs in `first_stage`: their count and least and largest task index.
    spans: IdMap<u32, (usize, usize, usize)>,
    /// The other pairs, and the smallest and largest of their task indices.
    other: IdSet<(u32, TaskId)>,
    other_indices: (usize, usize),
    /// Each stage's pairs in `other`, so that forgetting a stage without any reads none.
    other_counts: IdMap<u32, usize>,
}

impl Default for StageTaskSet {
    fn default() -> Self {
        StageTaskSet {
            first_stage: Vec::new(),
            base: 0,
            zeros: 0,
            dense: 0,
            cleared: 0,
            spans: IdMap::default(),
            other: IdSet::default(),
            other_indices: (usize::MAX, 0),
            other_counts: IdMap::default(),
        }
    }
}

impl StageTaskSet {
    /// Adds the pair; whether it is new.
    #[inline]
    pub(crate) fn insert(&mut self, stage: u32, task: TaskId) -> bool {
        let Some(slot) = task.index().checked_sub(self.base) else {
            return self.insert_other(stage, task);
        };
        let tag = stage.wrapping_add(1);
        if tag != 0 && slot < self.first_stage.len() {
            match self.first_stage[slot] {
                // A pair put in `other` before the array reached its index.
                0 if !self.other.is_empty() && self.other.contains(&(stage, task)) => {
                    return false;
                }
                0 => {}
                t if t == tag => return false,
                _ => return self.insert_other(stage, task),
            }
        } else if tag != 0 && slot <= 4 * (self.dense + self.cleared + self.other.len()) + 4096 {
            // A pair put in `other` while its index was beyond the array's reach.
            if !self.other.is_empty() && self.other.contains(&(stage, task)) {
                return false;
            }
            self.first_stage.resize(slot + 1, 0);
        } else {
            return self.insert_other(stage, task);
        }
        self.first_stage[slot] = tag;
        self.zeros = self.zeros.min(slot);
        self.dense += 1;
        let index = task.index();
        let span = self.spans.entry(stage).or_insert((0, index, index));
        *span = (span.0 + 1, span.1.min(index), span.2.max(index));
        true
    }

    /// Adds the pair to the hash set; whether it is new.
    fn insert_other(&mut self, stage: u32, task: TaskId) -> bool {
        let (low, high) = self.other_indices;
        self.other_indices = (low.min(task.index()), high.max(task.index()));
        let new = self.other.insert((stage, task));
        if new {
            *self.other_counts.entry(stage).or_insert(0) += 1;
        }
        new
    }

    /// Whether the pair is in the set.
    #[inline]
    pub(crate) fn contains(&self, stage: u32, task: TaskId) -> bool {
        let tag = stage.wrapping_add(1);
        let index = task.index();
        let slot = index.checked_sub(self.base);
        match slot.and_then(|slot| self.first_stage.get(slot)) {
            Some(&first) if tag != 0 && first == tag => true,
            _ => {
                let (low, high) = self.other_indices;
                (low..=high).contains(&index) && self.other.contains(&(stage, task))
            }
        }
    }

    /// Forgets the pairs of `stage`, a stage that finished (see the type's docs).
    pub(crate) fn forget_stage(&mut self, stage: u32) {
        if self.other_counts.remove(&stage).is_some() {
            self.other.retain(|&(s, _)| s != stage);
            if self.other.is_empty() {
                self.other_indices = (usize::MAX, 0);
            }
        }
        let Some((count, low, high)) = self.spans.remove(&stage) else {
            return;
        };
        if high - low >= 4 * count {
            return;
        }
        let tag = stage.wrapping_add(1);
        for slot in &mut self.first_stage[low - self.base..=high - self.base] {
            if *slot == tag {
                *slot = 0;
            }
        }
        self.dense -= count;
        self.cleared += count;
        while self.first_stage.get(self.zeros) == Some(&0) {
            self.zeros += 1;
        }
        if self.zeros > 0 && 2 * self.zeros >= self.first_stage.len() {
            self.first_stage.drain(..self.zeros);
            self.base += self.zeros;
            self.cleared = self.cleared.saturating_sub(self.zeros);
            self.zeros = 0;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.first_stage.clear();
        self.base = 0;
        self.zeros = 0;
        self.dense = 0;
        self.cleared = 0;
        self.spans.clear();
        self.other.clear();
        self.other_indices = (usize::MAX, 0);
        self.other_counts.clear();
    }
}

/// A finite duration ordered by `total_cmp`, for the heaps.
#[derive(Debug, Clone, Copy)]
struct Secs(f64);

impl PartialEq for Secs {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Secs {}
impl PartialOrd for Secs {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Secs {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Spark's `MedianHeap` and `PercentileHeap(0.5)`: the lower half of the values in a
/// max-heap, the upper half in a min-heap, the lower never smaller than the upper nor
/// larger by more than one. An insertion costs O(log n) and the median O(1), however many
/// tasks a stage has.
#[derive(Debug, Clone, Default)]
struct MedianHeap {
    lower: BinaryHeap<Secs>,
    upper: BinaryHeap<Reverse<Secs>>,
}

impl MedianHeap {
    /// How many values were pushed.
    fn len(&self) -> usize {
        self.lower.len() + self.upper.len()
    }

    fn push(&mut self, value: f64) {
        match self.lower.peek() {
            Some(top) if value > top.0 => self.upper.push(Reverse(Secs(value))),
            _ => self.lower.push(Secs(value)),
        }
        if self.lower.len() > self.upper.len() + 1 {
            if let Some(top) = self.lower.pop() {
                self.upper.push(Reverse(top));
            }
        } else if self.upper.len() > self.lower.len()
            && let Some(Reverse(bottom)) = self.upper.pop()
        {
            self.lower.push(bottom);
        }
    }

    /// The middle value for an odd count; for an even count the mean of the two middle
    /// values (`MedianHeap`) if `average_middle_pair`, else the upper one, `sorted[n / 2]`
    /// (`PercentileHeap`); `None` when empty.
    fn median(&self, average_middle_pair: bool) -> Option<f64> {
        let low = self.lower.peek()?.0;
        if self.lower.len() > self.upper.len() {
            return Some(low);
        }
        let high = self.upper.peek().map_or(low, |Reverse(s)| s.0);
        Some(if average_middle_pair {
            (low + high) / 2.0
        } else {
            high
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{MedianHeap, StageTaskSet};
    use straggler_model::TaskId;

    #[test]
    fn seen_tasks_count_each_pair_once() {
        let mut seen = StageTaskSet::default();
        // Dense ids, a task in two stages, a huge id, a stage without a tag.
        let pairs = [
            (0, TaskId(3)),
            (0, TaskId(1)),
            (0, TaskId(3)),
            (1, TaskId(3)),
            (1, TaskId(3)),
            (0, TaskId(u32::MAX)),
            (0, TaskId(u32::MAX)),
            (u32::MAX, TaskId(1)),
            (u32::MAX, TaskId(1)),
        ];
        let new: Vec<bool> = pairs.iter().map(|&(s, t)| seen.insert(s, t)).collect();
        assert_eq!(
            new,
            [true, true, false, true, false, true, false, true, false]
        );
        assert!(pairs.iter().all(|&(s, t)| seen.contains(s, t)));
        // Pairs never inserted: other stages of dense, huge and tagless tasks, other tasks.
        let absent = [
            (2, TaskId(3)),
            (1, TaskId(1)),
            (1, TaskId(u32::MAX)),
            (u32::MAX, TaskId(3)),
            (0, TaskId(2)),
            (0, TaskId(5)),
        ];
        assert!(absent.iter().all(|&(s, t)| !seen.contains(s, t)));
        // A pair stored in the hash set before the array grew to its index.
        let mut seen = StageTaskSet::default();
        assert!(seen.insert(0, TaskId(10_000)));
        for t in 0..10_001 {
            seen.insert(1, TaskId(t));
        }
        assert!(!seen.insert(0, TaskId(10_000)));
        assert!(seen.contains(0, TaskId(10_000)) && seen.contains(1, TaskId(10_000)));
        seen.clear();
        assert!(!seen.contains(0, TaskId(10_000)));
        assert!(seen.insert(0, TaskId(10_000)));
        // Tasks numbered from 100 000 (those that ended, after the running ones): the first
        // 31 968 go to the hash set (100 000 + n > 4 n + 4096 until n = 31 968), the others to
        // the array; every one is found, and tasks below 100 000 are not, whether their
        // slot exists or not.
        let mut seen = StageTaskSet::default();
        for t in 100_000..200_000 {
            assert!(seen.insert(0, TaskId(t)));
        }
        assert_eq!(seen.other.len(), 31_968);
        assert_eq!(seen.other_indices, (100_000, 131_967));
        assert!((100_000..200_000).all(|t| seen.contains(0, TaskId(t))));
        assert!(
            (0..100_000)
                .step_by(7)
                .all(|t| !seen.contains(0, TaskId(t)))
        );
        assert!(!seen.contains(1, TaskId(100_000)) && !seen.contains(0, TaskId(200_000)));
    }

    #[test]
    fn a_finished_stage_s_pairs_go() {
        // Stages 0 to 3 of 100 tasks each, numbered by stage.
        let mut set = StageTaskSet::default();
        for t in 0..400 {
            assert!(set.insert(t / 100, TaskId(t)));
        }
        set.forget_stage(0);
        assert!((0..100).all(|t| !set.contains(0, TaskId(t))));
        assert!((100..400).all(|t| set.contains(t / 100, TaskId(t))));
        // A quarter of the array cleared: it stays; half: the cleared slots go.
        assert_eq!((set.base, set.first_stage.len()), (0, 400));
        set.forget_stage(1);
        assert_eq!(
            (set.base, set.first_stage.len(), set.dense),
            (200, 200, 200)
        );
        assert!((0..200).all(|t| !set.contains(t / 100, TaskId(t))));
        assert!((200..400).all(|t| set.contains(t / 100, TaskId(t))));
        // A task below the base: in the hash set, then gone with its stage.
        assert!(set.insert(7, TaskId(5)) && !set.insert(7, TaskId(5)));
        assert!(set.contains(7, TaskId(5)) && !set.contains(0, TaskId(5)));
        set.forget_stage(7);
        assert!(!set.contains(7, TaskId(5)) && set.other.is_empty());
        // A stage whose tasks are spread over more than four times their count keeps its
        // slots (clearing them would read the span); its pairs are still found.
        for t in [1000, 5000] {
            assert!(set.insert(8, TaskId(t)));
        }
        set.forget_stage(8);
        assert!(set.contains(8, TaskId(1000)));
        // The stages numbered by stage go; stage 8's slots (at 1000 and 5000) stay, so the
        // 800 cleared slots before them are less than half the array, and stay too.
        set.forget_stage(2);
        set.forget_stage(3);
        assert!((200..400).all(|t| !set.contains(t / 100, TaskId(t))));
        assert_eq!(
            (set.base, set.zeros, set.first_stage.len()),
            (200, 800, 4801)
        );
    }

    #[test]
    fn a_pair_in_the_hash_set_is_not_new_when_the_array_reaches_it() {
        // Task 60 000 goes to the hash set (beyond the array's reach), then the array
        // grows to it: inserting the pair again is not new.
        let mut set = StageTaskSet::default();
        set.insert(0, TaskId(0));
        (1..=2000).for_each(|t| assert!(set.insert(1, TaskId(t))));
        set.forget_stage(1);
        assert!(set.insert(2, TaskId(60_000)));
        assert_eq!(set.other.len(), 1);
        (7000..20_000).for_each(|t| assert!(set.insert(3, TaskId(t))));
        assert!(!set.insert(2, TaskId(60_000)));
        assert!(set.contains(2, TaskId(60_000)));
    }

    #[test]
    fn median_heap_matches_sorting() {
        // Durations 5, 1, 4, 2, 3 pushed one by one: sorted prefixes [5], [1 5], [1 4 5],
        // [1 2 4 5], [1 2 3 4 5]. Averaged (MedianHeap): 5, 3, 4, 3, 3; upper middle
        // (PercentileHeap, sorted[n / 2]): 5, 5, 4, 4, 3.
        let mut heap = MedianHeap::default();
        assert_eq!(heap.median(true), None);
        assert_eq!(heap.median(false), None);
        let (mut averaged, mut upper) = (Vec::new(), Vec::new());
        for d in [5.0, 1.0, 4.0, 2.0, 3.0] {
            heap.push(d);
            averaged.push(heap.median(true).unwrap());
            upper.push(heap.median(false).unwrap());
        }
        assert_eq!(averaged, [5.0, 3.0, 4.0, 3.0, 3.0]);
        assert_eq!(upper, [5.0, 5.0, 4.0, 4.0, 3.0]);
        // A generated sequence against a sort.
        let mut values = Vec::new();
        let mut x = 12345u64;
        let mut heap = MedianHeap::default();
        for _ in 0..1001 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (x >> 40) as f64 / 1000.0;
            values.push(v);
            heap.push(v);
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let n = sorted.len();
            let averaged = if n % 2 == 1 {
                sorted[n / 2]
            } else {
                (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
            };
            assert_eq!(heap.median(true), Some(averaged));
            assert_eq!(heap.median(false), Some(sorted[n / 2]));
        }
    }
}
