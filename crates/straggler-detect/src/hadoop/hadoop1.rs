//! Hadoop 1's speculation rule (Dean and Ghemawat's progress gap, as Hadoop 1's
//! `TaskInProgress.hasSpeculativeTask` implements it).
//!
//! An original attempt is flagged iff
//!
//! ```text
//! its task has exactly one running attempt
//! and mean(PS of the stage) - PS >= gap        (gap = 0.2)
//! and now - start >= lag                       (SPECULATIVE_LAG = 60 s)
//! ```
//!
//! Source: `reference/speculators.md`, "Hadoop 1"; seed paper, Section 5.5, Eq. 6 (the
//! same gap, with a strict `<` and no lag, is [`DefaultDetector`](crate::DefaultDetector)).
//!
//! The stage mean is taken over the progress of the stage's running original attempts
//! (one per task while it runs; a copy does not count its task twice), kept within their
//! smallest and largest values so that identical attempts are never behind each other.
//! This differs from Hadoop 1, which averages the progress of all of the job's tasks of
//! the kind, finished ones at 1 and waiting ones at 0: that average flags attempts that
//! are merely younger than finished peers, and this workspace's detectors compare an
//! attempt with the attempts running beside it.
//!
//! The running attempts of each task are counted in one sequential pass (a hash map);
//! the stage means and the filter run on rayon's pool with the crate's fixed chunks, so a
//! parallel scan flags exactly the rows a sequential one flags.

use crate::scan::TaskRowCounts;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, Snapshot};

use crate::error::check_param;
use crate::scan::{GroupSums, Summands, filter_rows, map_rows};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`Hadoop1`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hadoop1Params {
    /// The progress gap below the stage mean (0.2). In `[0, 1]`.
    pub gap: f64,
    /// `SPECULATIVE_LAG`: how long an attempt must have run, seconds (60). Finite, `>= 0`.
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
    attempts_per_task: TaskRowCounts,
    /// The originals' progress, NaN for copies.
    original_progress: Vec<f64>,
    sums: GroupSums,
}

impl Hadoop1 {
    /// A detector with checked parameters.
    pub fn new(params: CheckedHadoop1Params) -> Self {
        Hadoop1 {
            params: params.0,
            attempts_per_task: TaskRowCounts::default(),
            original_progress: Vec::new(),
            sums: GroupSums::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &Hadoop1Params {
        &self.params
    }
}

impl Detector for Hadoop1 {
    fn name(&self) -> &str {
        "hadoop1"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (progress, starts) = (snapshot.progress(), snapshot.start_secs());
        let (stages, roles, tasks) = (snapshot.stage_indices(), snapshot.roles(), snapshot.tasks());
        let parallelism = self.params.parallelism;
        self.attempts_per_task.count(tasks);
        map_rows(
            progress.len(),
            parallelism,
            &mut self.original_progress,
            |row| {
                if roles[row] == AttemptRole::Original {
                    progress[row]
                } else {
                    f64::NAN
                }
            },
        );
        let sums = self.sums.compute(
            stages,
            &self.original_progress[..],
            snapshot.stages().len(),
            parallelism,
            Summands::Values,
        );
        let means: Vec<Option<f64>> = sums.iter().map(|s| s.mean()).collect();
        let (gap, lag) = (self.params.gap, self.params.lag_secs);
        let counts = &self.attempts_per_task;
        filter_rows(
            progress.len(),
            parallelism,
            |row| {
                roles[row] == AttemptRole::Original
                    && now - starts[row] >= lag
                    && counts.get(tasks[row]) == 1
                    && means[stages[row] as usize].is_some_and(|mean| mean - progress[row] >= gap)
            },
            findings.rows_mut(),
        );
    }
}
