//! Hadoop's `SimpleExponentialTaskRuntimeEstimator`: seed 003's adaptive estimator
//! (Algorithms 1 and 2), with skip-initials, a time constant raised to the attempt's age,
//! and stagnation.
//!
//! Algorithm 1 (forecasting the progress rate), for a new reading `(newT, newP)` of an
//! attempt whose record holds `(atTime, data, forecast, index)`:
//!
//! ```text
//! sample   = (newP - data) / (newT - atTime)
//! alpha    = 1 - exp(-(newT - atTime) / tau)            (seed 003, Eq. 3)
//! forecast = alpha * sample + (1 - alpha) * forecast     (seed 003, Eq. 2)
//! index    = index + 1
//! ```
//!
//! The record starts at the attempt's start: `atTime = start`, `data = 0`, `index = 0`, and
//! the first reading's sample, the rate since the start `newP / (newT - start)`, is the
//! first forecast (Hadoop's `SimpleExponentialSmoothing.incorporateReading` seeds the
//! forecast with that same sample, so `alpha` does not matter there).
//!
//! `tau` starts at 120 s. The reading after the `skip_initials` (24) first ones raises it,
//! before its own `alpha` is computed, to the attempt's age at that reading:
//! `tau = max(tau, newT - start)`. Algorithm 2 (estimated runtime) answers from that
//! reading on, once `index > skip_initials` (the 25th reading by default):
//!
//! ```text
//! est = min(1, 1 - data) / forecast + atTime - start    (no estimate while forecast <= 0)
//! ```
//!
//! A new attempt of the stage is expected to take `meanCI + min(0.25 meanCI, sd / 2)` over
//! the stage's finished tasks, with Hadoop's `meanCI`, which is 0 for a single finished
//! task ([`DataStatistics::mean_ci`]; `speculators.md`'s formula would give the mean
//! there, and the code follows Hadoop's source): with one finished task the new attempt
//! takes 0 s, so in a stage of at most 20 tasks, whose gate opens at its first success,
//! every attempt whose estimated end lies after the scan has a positive value until a
//! second task finishes.
//!
//! The stagnation window is `max(2 tau, 360 s)` with the configured tau (Hadoop computes it
//! once), not the raised one.
//!
//! Sources: seed 003 (Hadoop speculation review), Algorithms 1-2 and Eqs. 2-3;
//! `reference/speculators.md`, "Hadoop MapReduce v2" (the defaults 120 s, 24 readings,
//! 360 s, tau raised "after the skip-initials readings", no estimate before, and the new
//! attempt's runtime). Where those are silent, Hadoop's `SimpleExponentialSmoothing`
//! (`incorporateReading`, `append`, `getForecast`: the first sample is the rate since the
//! start, `tau` is raised when the record's index equals `skip_initials` with the age
//! `newTimeStamp - startTime`, a forecast is returned once `myIndex > kMinimumReads`) and
//! `SimpleExponentialTaskRuntimeEstimator.estimatedNewAttemptRuntime`. Seed 003's
//! Algorithm 1 writes the initial record as `new Estimate(-1, 0, MIN_VALUE)` without
//! naming its fields; read as `atTime = MIN_VALUE` its first rate would be about 0, which
//! Hadoop's code does not do.
//!
//! Where Hadoop's source departs from the paper: before its 25th reading an attempt has
//! no estimate here, as seed 003 means ("discarding estimates before we sample enough
//! number of records", Section 3.2, after Algorithm 2, lest early readings cause
//! "inaccurate speculative decisions") and `speculators.md` says ("no estimate before
//! that"), so the speculator skips it. Hadoop's `estimatedRuntime` (checked in trunk's
//! `SimpleExponentialTaskRuntimeEstimator`) returns an estimate all the same:
//! `getForecast` is -1 until then, `max(1e-10, getForecast())` makes it `1e-10` progress
//! per millisecond, and the estimate is `(long) ((1 - p) / 1e-10)` ms plus the reading's
//! age: `5 x 10^9` ms (58 days) at progress 0.5. `DefaultSpeculator.speculationValue`
//! gives such an attempt a value above any settled attempt's, so once its stage's gate is
//! open Hadoop copies the attempts with fewer than 25 readings first (the least progress
//! among them first), one a scan within the cap. That is not reproduced: it defeats the
//! skip-initials the paper introduced the index for.
//!
//! Choices where the sources leave room:
//! - The start: a progress report does not carry it. The estimator learns it from
//!   [`RuntimeEstimator::observe_start`], which the speculator calls with the snapshot's
//!   start of every row at every scan (Hadoop learns it at the launch, before any status
//!   update). Readings of an attempt whose start is not known yet are kept, in order, and
//!   incorporated when it is; until then the attempt has no record and no estimate.
//!   Engines send an attempt's first reports before the scan that lists it, and hold scans
//!   back during the speculative lag, so a few readings wait at most that long.
//! - A reading not later than the record's (`newT <= atTime`, which would divide by zero,
//!   such as a reading at the attempt's start) or with a lower progress is ignored, as
//!   Algorithm 1 ignores earlier or lower ones.
//! - Stagnation: an attempt below progress 1 whose progress has not changed (since its
//!   start while it is 0) for the window up to the scan's `now` is estimated to never
//!   finish (`est = +inf`), whatever its number of readings. With the speculator, a
//!   stagnated attempt outranks any attempt with a finite estimate. This is this crate's
//!   reading of `speculators.md`'s "stagnation window", not Hadoop's rule: Hadoop's
//!   `estimatedRuntime` is never infinite (it divides by `max(1e-10, forecast)`), and its
//!   window serves only `SimpleExponentialSmoothing.isDataStagnated(now)`, which is true
//!   when the attempt has more than `skip_initials` readings and `timeStamp +
//!   stagnatedWindow > now`, its last reading (any, of the same progress too) being
//!   *younger* than the window: the opposite of its Javadoc ("the record timestamp has
//!   expired"). `DefaultSpeculator` then feeds the attempt a reading of its progress at
//!   each scan at which its estimate and progress are those remembered, about every other
//!   scan between reports; that is not reproduced (the speculator's docs say why).
//!   Hadoop's speculator also feeds a reading after 9 s without a change, which is
//!   reproduced ([`HadoopSpeculator`](super::HadoopSpeculator)): those readings come to
//!   this estimator as reports do, and count among its readings.

use crate::scan::IdMap;
use crate::staged_table::StagedTable;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptId, ProgressReport, StageId};

use super::{DataStatistics, RuntimeEstimator, rate_sample};
use crate::DetectError;
use crate::error::check_param;

/// Parameters of [`SimpleExponential`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimpleExpParams {
    /// The initial time constant `tau`, seconds (Hadoop: 120 s). Finite, `> 0`.
    pub tau_secs: f64,
    /// Readings skipped (Hadoop's skip-initials: 24): an attempt has an estimate, and its
    /// tau is raised, from the reading after them on. `>= 1`.
    pub skip_initials: u32,
    /// The floor of the stagnation window `max(2 tau, this)`, seconds (Hadoop: 360 s).
    /// Finite, `> 0`.
    pub min_stagnation_window_secs: f64,
}

impl Default for SimpleExpParams {
    fn default() -> Self {
        SimpleExpParams {
            tau_secs: 120.0,
            skip_initials: 24,
            min_stagnation_window_secs: 360.0,
        }
    }
}

impl SimpleExpParams {
    /// Checks the parameters: `tau_secs` and `min_stagnation_window_secs` finite and
    /// `> 0`, `skip_initials >= 1`.
    pub fn check(self) -> Result<CheckedSimpleExpParams, DetectError> {
        check_param("tau_secs", self.tau_secs, "finite and > 0", |t| t > 0.0)?;
        check_param(
            "skip_initials",
            f64::from(self.skip_initials),
            ">= 1",
            |n| n >= 1.0,
        )?;
        check_param(
            "min_stagnation_window_secs",
            self.min_stagnation_window_secs,
            "finite and > 0",
            |w| w > 0.0,
        )?;
        Ok(CheckedSimpleExpParams(self))
    }
}

/// [`SimpleExpParams`] that passed [`SimpleExpParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedSimpleExpParams(SimpleExpParams);

/// Algorithm 1's estimate record of one running attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Record {
    /// `atTime`: time of the last reading used (the start before any), seconds.
    at_secs: f64,
    /// `data`: progress at that reading (0 at the start).
    progress: f64,
    /// The forecast progress rate, per second (meaningless while `index = 0`).
    forecast: f64,
    /// Readings incorporated.
    index: u32,
    /// This attempt's time constant, seconds.
    tau_secs: f64,
    /// The attempt's start, the origin of its age.
    start_secs: f64,
    /// Time of the last reading that changed the progress (the start before any).
    changed_secs: f64,
}

impl Record {
    /// The record of an attempt started at `start_secs`, before any reading.
    fn started(start_secs: f64, tau_secs: f64) -> Record {
        Record {
            at_secs: start_secs,
            progress: 0.0,
            forecast: 0.0,
            index: 0,
            tau_secs,
            start_secs,
            changed_secs: start_secs,
        }
    }

    /// Algorithm 1: incorporates the reading `(new_t, new_p)`.
    fn incorporate(&mut self, skip_initials: u32, new_t: f64, new_p: f64) {
        let Some((dt, sample)) = rate_sample(self.at_secs, self.progress, new_t, new_p) else {
            return;
        };
        if self.index == skip_initials {
            // Hadoop raises tau before computing this reading's alpha.
            self.tau_secs = self.tau_secs.max(new_t - self.start_secs);
        }
        self.forecast = if self.index == 0 {
            // The first sample, the rate since the start, is the first forecast.
            sample
        } else {
            let alpha = 1.0 - (-dt / self.tau_secs).exp();
            alpha * sample + (1.0 - alpha) * self.forecast
        };
        if new_p > self.progress {
            self.changed_secs = new_t;
        }
        self.progress = new_p;
        self.at_secs = new_t;
        self.index = self.index.saturating_add(1);
    }
}

/// Seed 003's simple exponential smoothing estimator, with stagnation.
#[derive(Debug, Clone, Default)]
pub struct SimpleExponential {
    params: SimpleExpParams,
    /// Each attempt's record, in the stage of its start.
    records: StagedTable<Record>,
    /// Readings `(time, progress)` of attempts whose start is not known yet, in order,
    /// with the stage of the first.
    unstarted: IdMap<u32, Unstarted>,
}

/// The readings of an attempt whose start is not known yet.
#[derive(Debug, Clone, Default)]
struct Unstarted {
    stage: u32,
    readings: Vec<(f64, f64)>,
}

impl SimpleExponential {
    /// An estimator with checked parameters.
    pub fn new(params: CheckedSimpleExpParams) -> Self {
        SimpleExponential {
            params: params.0,
            records: StagedTable::default(),
            unstarted: IdMap::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &SimpleExpParams {
        &self.params
    }

    /// The forecast rate of an attempt and the readings behind it (`None` until its start
    /// is known; the forecast is meaningless while no reading is incorporated).
    pub fn forecast(&self, attempt: AttemptId) -> Option<(f64, u32)> {
        self.records.get(attempt.0).map(|r| (r.forecast, r.index))
    }

    /// The time constant of an attempt, seconds.
    pub fn tau_secs(&self, attempt: AttemptId) -> Option<f64> {
        self.records.get(attempt.0).map(|r| r.tau_secs)
    }

    /// Whether the attempt's progress, below 1, has not changed (since its start while it
    /// is 0) for its stagnation window `max(2 tau, min_stagnation_window_secs)` at
    /// `now_secs`. `false` until its start is known.
    pub fn is_stagnated(&self, attempt: AttemptId, now_secs: f64) -> bool {
        self.records
            .get(attempt.0)
            .is_some_and(|r| self.record_is_stagnated(r, now_secs))
    }

    /// [`SimpleExponential::is_stagnated`] for the attempt whose record is `r`.
    #[inline]
    fn record_is_stagnated(&self, r: &Record, now_secs: f64) -> bool {
        // Hadoop sets the window once from the configured tau, not the raised one.
        let window = (2.0 * self.params.tau_secs).max(self.params.min_stagnation_window_secs);
        r.progress < 1.0 && now_secs - r.changed_secs >= window
    }
}

impl RuntimeEstimator for SimpleExponential {
    fn detector_name(&self) -> &'static str {
        "hadoop-simple-exp"
    }

    fn observe_progress(&mut self, report: &ProgressReport) {
        let (new_t, new_p) = (report.time_secs, report.progress);
        if !(new_t.is_finite() && new_p.is_finite()) {
            return;
        }
        let skip_initials = self.params.skip_initials;
        match self.records.get_mut(report.attempt.0) {
            Some(record) => record.incorporate(skip_initials, new_t, new_p),
            None => self
                .unstarted
                .entry(report.attempt.0)
                .or_insert_with(|| Unstarted {
                    stage: report.stage.0,
                    readings: Vec::new(),
                })
                .readings
                .push((new_t, new_p)),
        }
    }

    fn observe_start(&mut self, attempt: AttemptId, stage: StageId, start_secs: f64) {
        if !start_secs.is_finite() || self.records.get(attempt.0).is_some() {
            return;
        }
        let mut record = Record::started(start_secs, self.params.tau_secs);
        if !self.unstarted.is_empty() {
            let waiting = self.unstarted.remove(&attempt.0).unwrap_or_default();
            for (new_t, new_p) in waiting.readings {
                record.incorporate(self.params.skip_initials, new_t, new_p);
            }
        }
        self.records.insert(attempt.0, stage.0, record);
    }

    fn forget(&mut self, attempt: AttemptId) {
        self.records.remove(attempt.0);
        self.unstarted.remove(&attempt.0);
    }

    fn forget_stage(&mut self, stage: StageId) {
        self.records.forget_stage(stage.0);
        if !self.unstarted.is_empty() {
            // Few: the attempts reported since the last scan that did not list them.
            self.unstarted.retain(|_, waiting| waiting.stage != stage.0);
        }
    }

    fn reset(&mut self) {
        self.records.clear();
        self.unstarted.clear();
    }

    fn estimated_runtime_secs(
        &self,
        attempt: AttemptId,
        start_secs: f64,
        now_secs: f64,
        _progress: f64,
    ) -> Option<f64> {
        // One lookup for both questions: this runs for every row of every scan.
        let r = self.records.get(attempt.0)?;
        if self.record_is_stagnated(r, now_secs) {
            return Some(f64::INFINITY);
        }
        // Hadoop's `getForecast`: a forecast once `myIndex > kMinimumReads`.
        if r.index <= self.params.skip_initials || r.forecast <= 0.0 {
            return None;
        }
        let remaining = (1.0 - r.progress).clamp(0.0, 1.0) / r.forecast;
        Some(remaining + (r.at_secs - start_secs).max(0.0))
    }

    fn new_attempt_runtime_secs(&self, stats: &DataStatistics) -> Option<f64> {
        // Hadoop's `meanCI`: 0 for a single finished task (not `speculators.md`'s mean), so
        // the new attempt takes 0 s.
        let (mean_ci, sd) = (stats.mean_ci()?, stats.std_dev()?);
        Some(mean_ci + (0.25 * mean_ci).min(sd / 2.0))
    }
}
