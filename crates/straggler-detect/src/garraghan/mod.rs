//! Garraghan et al.'s extreme-straggler detector (Garraghan, Ouyang, Yang, McKee, Xu,
//! "Straggler Root-Cause and Impact Analysis for Massive-scale Virtualized Cloud
//! Datacenters", IEEE TSC 2019; seed 004, Sections 6-7).
//!
//! **Offline** (Section 6.1): the median progress of a stage's tasks over elapsed time
//! (Fig. 9's `T_iProg`, "median task progress"), taken over the trajectories of the
//! attempts of its history that succeeded, each attempt counted once, and fitted by linear
//! (Eq. 2) and piecewise-linear (Fig. 8) regression (see [`ProgressHistory`] for the
//! formulas). With `Diff` the tolerated stretch (0.5: "task execution time 50% greater than
//! median"), the straggler threshold at elapsed time `t` is the model stretched in time
//! (Eq. 3):
//!
//! ```text
//! T_S(t) = Prog(t / (1 + Diff))          Prog(t) = 0.01 + 0.15 t  gives  T_S(t) = 0.01 + 0.15 (2/3) t
//! offline straggler  iff  PS_j < T_S(now - start_j)
//! ```
//!
//! For a piecewise model, `Prog` is the line of the band of progress the attempt is in
//! (the overall line when that band has no fit with a positive slope). *Decision*: the
//! band is chosen by the attempt's progress `p`, not by the time `t / (1 + Diff)`, because
//! with a line of positive slope `p < Prog(t / (1 + Diff))` iff `t > (1 + Diff)
//! Prog^-1(p)`: the attempt has taken more than `1 + Diff` times the typical time to reach
//! its progress, Section 6.1's definition ("the time taken to reach a specific progress
//! score at time t is greater than 50% in comparison to typical task execution"). A line
//! chosen by time would judge the attempt on a phase it has not reached.
//!
//! **Online** (Section 6.2): an attempt is behind its job iff its progress is more than
//! `online_margin` (50%) below the median progress of the running attempts of its stage:
//!
//! ```text
//! online straggler  iff  PS_j < (1 - online_margin) * median(PS of the stage)
//! ```
//!
//! **Combined** (Section 6.2, "If T_iProg < T_iS, as well as 50% smaller than the median
//! task progression ... a task is identified as a straggler"): both tests. In every mode
//! nothing is judged before `min_elapsed_secs` after the job commences (Section 7.1:
//! "straggler detection to commence 5 seconds after the job commences"): after the earliest
//! start the detector has seen of an attempt of the job (in a snapshot, or in an
//! [`Observation::AttemptEnded`]). An attempt is judged once it has run at all (`now >
//! start`).
//!
//! # Decisions where the paper is not specific
//!
//! - **History.** The paper fits its model on past jobs of the same type ("statistical
//!   models generated from historical data", Section 7.2): give one with
//!   [`GarraghanDetector::with_history`] (the evaluation gives the history of its
//!   homogeneous baseline runs). The detector also learns, within the run, from every
//!   attempt (original or copy) that succeeded: its trajectory is `(0, 0)`, the points
//!   `(report time - start, progress)` of its progress reports and `(duration, 1)`; a
//!   killed or failed attempt teaches nothing. Reports are taken in the order observed
//!   (engines send them in time order): one earlier than the last taken, or with a time
//!   not finite or a progress outside `[0, 1]`, is skipped as it is observed, and counted
//!   in [`ProgressHistory::skipped_points`]; an attempt with a report before its start or
//!   after its end is not learnt, and counted in [`ProgressHistory::skipped_attempts`].
//!   While an attempt runs, only the reports that decide its trajectory's level times are
//!   kept, at most `2 LEVELS + 2` points however long it runs (a month of 3 s heartbeats
//!   is 10^6 reports). The model of a stage is
//!   that of **the latest [`WINDOW`] (4096) successful attempts of the stage** (the
//!   memory of a stage is bounded, see [`ProgressHistory`]); the detector refits a
//!   stage's model only when the stage has learnt an attempt since. [`Detector::reset`]
//!   goes back to the given history. Without a usable model (no history yet, slope not
//!   positive) the offline test holds for no attempt, so the offline and combined modes
//!   flag nothing.
//! - **A stage no history covers.** The paper's model comes from past runs. A stage the
//!   given history has no attempt of (in `simulate` and `replay`, which give none, every
//!   stage) has only the run's own successes, and these come fastest first: when a stage's
//!   tasks start together, its first `k` successes are its `k` fastest tasks, so a model
//!   of them stretches the fastest tasks, not the typical one, and flags normal tasks. One
//!   success of 10 s makes `T_S(16 s) = (16 / 1.5) / 10 = 1.07`: a task of 20 s at
//!   progress 0.8 after 16 s would be flagged. Such a stage's model is used only once the
//!   run has learnt `min_successes` (6) of its successes. Six is the least number of
//!   attempts whose fastest and slowest bracket their median with 95% confidence (the
//!   median lies outside them with probability `2 x 0.5^n`, 0.0625 at `n = 5`, 0.03125
//!   at 6): below it the median of the model is not pinned down even for attempts drawn at
//!   random. It does not remove the bias of the first successes being the fastest: after
//!   `k` of `n` tasks have succeeded, the model is the median of the `k` fastest, below
//!   the stage's until about all have finished. A stage the history covers uses its model
//!   whatever its number of attempts (`eval` gives the history of its baseline runs, and
//!   its results do not change).
//! - **Typical progress.** Fig. 9 names `T_iProg` the median task progress; the model is
//!   the median over attempts of the time to reach each progress level, then the
//!   regression, rather than a regression over every report pooled (which weighs an
//!   attempt by its number of reports and lets slow attempts drag the line).
//! - **Job.** "The median progress of all tasks within the same job" is taken over the
//!   running attempts of the stage (the maps, or the reduces, of one job), the unit every
//!   detector of the workspace compares with; copies count. The median of an even count is
//!   the mean of the two middle values.
//! - **Section 7.3's online approach** ("progress score less than the average for its
//!   category minus 0.2, and the task has run for at least one minute") is Hadoop 1's rule,
//!   already the `hadoop1` detector, whose minute counts from the job's start as Hadoop's
//!   does (see its docs); `garraghan-online` is Section 6.2's median test.
//! - The bands of the piecewise model are fixed, `K` equal bands of progress (Hadoop's
//!   reduce has three phases of a third each: `K = 3` by default); the paper chooses its
//!   segments by eye on Fig. 8.
//! - **Start.** "The job commences" is the earliest start seen of an attempt of any stage
//!   of the job (a [`Stage`](straggler_model::Stage)'s `job`), remembered by job: an engine
//!   may give a stage index to another job from one snapshot to the next, and the later job
//!   waits its own 5 s. An ended attempt counts for the job its stage index had in the last
//!   snapshot scanned (before any, or once that stage has finished, for the job of the
//!   first snapshot with rows at the index).
//!
//! The medians are exact order statistics and the per-row test sums nothing, so the
//! parallel filter flags exactly the rows the sequential one flags.

mod model;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptId, AttemptStatus, Observation, Snapshot, StageId};

use model::ReportedTrajectory;
pub use model::{LEVELS, Line, MAX_SEGMENTS, ProgressHistory, ProgressModel, WINDOW};

use crate::error::check_param;
use crate::job_starts::JobStarts;
use crate::scan::{IdMap, filter_rows};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Which of the paper's tests flag an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GarraghanMode {
    /// The model's threshold only (Section 7.3's "offline").
    Offline,
    /// The median test only (Section 6.2).
    Online,
    /// Both (Section 6.2; the paper's detector).
    Combined,
}

/// Parameters of [`GarraghanDetector`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GarraghanParams {
    /// Which tests apply (combined).
    pub mode: GarraghanMode,
    /// `Diff`: how much longer than typical an attempt may take to reach its progress
    /// (0.5, "50% greater than median execution", Eq. 3). Finite, `>= 0`.
    pub diff: f64,
    /// How far below the stage's median progress an attempt must be for the online test
    /// (0.5, "50% smaller than the median"). In `[0, 1]`.
    pub online_margin: f64,
    /// Bands of progress of the piecewise model (3); 1 is the linear model of Eq. 2. In
    /// `1..=`[`MAX_SEGMENTS`] (50: two of the model's 100 progress levels per band).
    pub segments: u32,
    /// Nothing is judged before the job has run this long (5 s, Section 7.1). Finite,
    /// `>= 0`.
    pub min_elapsed_secs: f64,
    /// The offline test uses the model of a stage the given history does not cover only
    /// once the run has learnt this many of the stage's successes (6: the least number of
    /// attempts whose extremes bracket their median with 95% confidence; see the module
    /// docs). At least 1.
    pub min_successes: u32,
    /// How the row filter uses threads.
    pub parallelism: Parallelism,
}

impl Default for GarraghanParams {
    fn default() -> Self {
        GarraghanParams {
            mode: GarraghanMode::Combined,
            diff: 0.5,
            online_margin: 0.5,
            segments: 3,
            min_elapsed_secs: 5.0,
            min_successes: 6,
            parallelism: Parallelism::default(),
        }
    }
}

impl GarraghanParams {
    /// Checks the parameters: `diff` and `min_elapsed_secs` finite and `>= 0`,
    /// `online_margin` in `[0, 1]`, `segments` in `1..=50`, `min_successes >= 1`.
    pub fn check(self) -> Result<CheckedGarraghanParams, DetectError> {
        check_param("diff", self.diff, "finite and >= 0", |d| d >= 0.0)?;
        check_param("online_margin", self.online_margin, "in [0, 1]", |m| {
            (0.0..=1.0).contains(&m)
        })?;
        check_param("segments", f64::from(self.segments), "in 1..=50", |s| {
            (1.0..=f64::from(MAX_SEGMENTS)).contains(&s)
        })?;
        check_param(
            "min_elapsed_secs",
            self.min_elapsed_secs,
            "finite and >= 0",
            |m| m >= 0.0,
        )?;
        check_param(
            "min_successes",
            f64::from(self.min_successes),
            "at least 1",
            |n| n >= 1.0,
        )?;
        Ok(CheckedGarraghanParams(self))
    }
}

/// [`GarraghanParams`] that passed [`GarraghanParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedGarraghanParams(GarraghanParams);

/// Garraghan et al.'s detector: the median progress model of successful attempts,
/// stretched by `Diff`, and the median test against the stage's running attempts, alone
/// or combined (see [`GarraghanMode`]). `src/garraghan/mod.rs` documents the formulas
/// and the decisions taken where seed 004 is not specific.
#[derive(Debug, Clone)]
pub struct GarraghanDetector {
    params: GarraghanParams,
    name: &'static str,
    /// Given at construction; `reset` goes back to it.
    prior: ProgressHistory,
    history: ProgressHistory,
    /// The progress reports of attempts still running, reduced to what their level times
    /// need.
    reports: IdMap<AttemptId, ReportedTrajectory>,
    /// When each job commenced (Section 7.1's minimum elapsed time counts from it).
    job_starts: JobStarts,
    /// Each stage's lines, by stage index, kept while its history learns nothing.
    models: Vec<CachedLines>,
    /// Scratch: the stage's rows' progress, grouped by stage, for the medians.
    by_stage: Vec<f64>,
}

/// A stage's lines for the offline test, fitted when its history had learnt `attempts`.
#[derive(Debug, Clone, Default)]
struct CachedLines {
    /// [`ProgressHistory::attempts`] at the fit; `None`: never fitted.
    attempts: Option<u64>,
    /// The line of each band (falling back to the overall line); `None` without a usable
    /// one.
    lines: Option<Vec<Option<model::Line>>>,
}

impl Default for GarraghanDetector {
    fn default() -> Self {
        GarraghanDetector::new(CheckedGarraghanParams(GarraghanParams::default()))
    }
}

impl GarraghanDetector {
    /// A detector with checked parameters and no history.
    pub fn new(params: CheckedGarraghanParams) -> Self {
        let params = params.0;
        let name = match params.mode {
            GarraghanMode::Combined => "garraghan",
            GarraghanMode::Offline => "garraghan-offline",
            GarraghanMode::Online => "garraghan-online",
        };
        GarraghanDetector {
            params,
            name,
            prior: ProgressHistory::new(),
            history: ProgressHistory::new(),
            reports: IdMap::default(),
            job_starts: JobStarts::default(),
            models: Vec::new(),
            by_stage: Vec::new(),
        }
    }

    /// A detector that starts from `history` (past runs of the same jobs, keyed by the
    /// stage ids of the runs it will scan) and keeps learning; [`Detector::reset`] goes back
    /// to it.
    pub fn with_history(mut self, mut history: ProgressHistory) -> Self {
        history.sync();
        self.prior = history.clone();
        self.history = history;
        self.models.clear();
        self
    }

    /// The parameters.
    pub fn params(&self) -> &GarraghanParams {
        &self.params
    }

    /// What the detector has learnt so far.
    pub fn history(&self) -> &ProgressHistory {
        &self.history
    }

    /// Refits the lines of every stage of the snapshot whose history learnt an attempt
    /// since its last fit, after bringing its sorted times up to date; a stage the given
    /// history does not cover has none before `min_successes` successes.
    fn refresh_models(&mut self, stage_count: usize) {
        let segments = self.params.segments.clamp(1, MAX_SEGMENTS) as usize;
        if self.models.len() < stage_count {
            self.models.resize_with(stage_count, CachedLines::default);
        }
        for (s, cached) in self.models.iter_mut().enumerate().take(stage_count) {
            let stage = StageId(s as u32);
            let attempts = self.history.attempts(stage);
            if cached.attempts == Some(attempts) {
                continue;
            }
            cached.attempts = Some(attempts);
            if self.prior.attempts(stage) == 0 && attempts < u64::from(self.params.min_successes) {
                cached.lines = None;
                continue;
            }
            self.history.sync_stage(stage);
            cached.lines = self
                .history
                .model(stage, self.params.segments)
                .and_then(|model| {
                    let lines: Vec<_> = (0..segments)
                        .map(|k| model.line_for((k as f64 + 0.5) / segments as f64))
                        .collect();
                    lines.iter().any(Option::is_some).then_some(lines)
                });
        }
    }

    /// The median progress of each stage's rows (`NaN` for a stage without rows).
    fn stage_medians(&mut self, snapshot: &Snapshot) -> Vec<f64> {
        let stage_count = snapshot.stages().len();
        let (progress, stages) = (snapshot.progress(), snapshot.stage_indices());
        // Counting sort of the progress column by stage.
        let mut offsets = vec![0usize; stage_count + 1];
        for &s in stages {
            offsets[s as usize + 1] += 1;
        }
        for s in 0..stage_count {
            offsets[s + 1] += offsets[s];
        }
        self.by_stage.clear();
        if stage_count == 1 {
            self.by_stage.extend_from_slice(progress);
        } else {
            self.by_stage.resize(progress.len(), 0.0);
            let mut next = offsets.clone();
            for (&p, &s) in progress.iter().zip(stages) {
                let slot = &mut next[s as usize];
                self.by_stage[*slot] = p;
                *slot += 1;
            }
        }
        (0..stage_count)
            .map(|s| model::median(&mut self.by_stage[offsets[s]..offsets[s + 1]]))
            .collect()
    }
}

impl Detector for GarraghanDetector {
    fn name(&self) -> &str {
        self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (progress, start) = (snapshot.progress(), snapshot.start_secs());
        let stages = snapshot.stage_indices();
        let params = self.params;
        let use_model = params.mode != GarraghanMode::Online;
        let use_median = params.mode != GarraghanMode::Offline;
        let stage_count = snapshot.stages().len();
        // Section 7.1: nothing is judged before `min_elapsed_secs` into the job (the starts
        // seen are remembered even when nothing can be judged yet).
        self.job_starts.scan(snapshot);
        // Offline: per stage, the lines of its bands, each falling back to the overall
        // line; `None` where the stage has no usable model.
        let segments = params.segments.clamp(1, MAX_SEGMENTS) as usize;
        if use_model {
            self.refresh_models(stage_count);
            if self.models[..stage_count]
                .iter()
                .all(|cached| cached.lines.is_none())
            {
                return;
            }
        }
        // Online: the bar below which an attempt is behind its stage.
        let bars: Vec<f64> = if use_median {
            self.stage_medians(snapshot)
                .into_iter()
                .map(|m| (1.0 - params.online_margin) * m)
                .collect()
        } else {
            Vec::new()
        };
        let (lines, job_starts) = (&self.models, self.job_starts.by_stage());
        let stretch = 1.0 / (1.0 + params.diff);
        filter_rows(
            progress.len(),
            params.parallelism,
            |row| {
                let (p, stage) = (progress[row], stages[row] as usize);
                let elapsed = now - start[row];
                if !(now - job_starts[stage] >= params.min_elapsed_secs && elapsed > 0.0) {
                    return false;
                }
                let behind_stage = !use_median || p < bars[stage];
                if !behind_stage {
                    return false;
                }
                if use_model {
                    let line = lines[stage]
                        .lines
                        .as_ref()
                        .and_then(|bands| bands[model::band_of(p, segments)]);
                    match line {
                        Some(line) => p < line.progress_at(elapsed * stretch),
                        None => false,
                    }
                } else {
                    true
                }
            },
            findings.rows_mut(),
        );
    }

    fn observe(&mut self, observation: &Observation) {
        self.job_starts.observe(observation);
        if let Observation::StageFinished { stage, .. } = observation {
            // The stage's index starts afresh: its history goes back to the prior's, and
            // its fitted lines go (a count of attempts would not tell them stale).
            self.history.reset_stage(*stage, &self.prior);
            if let Some(cached) = self.models.get_mut(stage.index()) {
                *cached = CachedLines::default();
            }
            return;
        }
        if self.params.mode == GarraghanMode::Online {
            return;
        }
        match observation {
            Observation::Progress(report) => {
                let reports = self.reports.entry(report.attempt).or_default();
                if !reports.report(report.time_secs, report.progress) {
                    self.history.skip_point();
                }
            }
            Observation::AttemptEnded(end) => {
                let reports = self.reports.remove(&end.attempt).unwrap_or_default();
                if end.status == AttemptStatus::Succeeded {
                    let (start, end_secs) = (end.start_secs, end.end_secs);
                    self.history
                        .add_reported(end.stage, reports, start, end_secs);
                }
            }
            _ => {}
        }
    }

    fn reset(&mut self) {
        self.history = self.prior.clone();
        self.reports.clear();
        self.job_starts.reset();
        self.models.clear();
    }
}
