//! Hadoop's `SimpleExponentialTaskRuntimeEstimator`: seed 003's adaptive estimator
//! (Algorithms 1 and 2), with skip-initials, a time constant raised to the attempt's age,
//! and stagnation.
//!
//! Algorithm 1 (forecasting the progress rate), for a new reading `(newT, newP)` of an
//! attempt whose record holds `(atTime, data, forecast, index)`:
//!
//! ```text
//! rate     = (newP - data) / (newT - atTime)
//! alpha    = 1 - exp(-(newT - atTime) / tau)           (seed 003, Eq. 3)
//! forecast = alpha * rate + (1 - alpha) * forecast      (seed 003, Eq. 2)
//! index    = index + 1
//! ```
//!
//! Algorithm 2 (estimated runtime), once `index >= skip_initials` (24):
//!
//! ```text
//! est = min(1, 1 - data) / forecast + atTime - start    (no estimate while forecast <= 0)
//! ```
//!
//! and a new attempt of the stage is expected to take
//! `meanCI + min(0.25 meanCI, sd / 2)` over the stage's finished tasks.
//!
//! `tau` starts at 120 s; when the attempt's `skip_initials`-th reading arrives it is
//! raised to `max(tau, age)`. The stagnation window is `max(2 tau, 360 s)` with the
//! configured tau (Hadoop computes it once), not the raised one.
//!
//! Sources: seed 003 (Hadoop speculation review), Algorithms 1-2 and Eqs. 2-3;
//! `reference/speculators.md`, "Hadoop MapReduce v2" (the defaults 120 s, 24 readings,
//! 360 s, and the new attempt's runtime).
//!
//! Choices where the sources leave room:
//! - Algorithm 1 seeds a record with `atTime = MIN_VALUE`, so its first reading gives a
//!   rate sample of about 0 with `alpha = 1`: the first report here sets `forecast = 0`,
//!   `data = newP`, `atTime = newT`, `index = 1`.
//! - A reading not later than the record's (`newT <= atTime`, which would divide by zero)
//!   or with a lower progress is ignored, as Algorithm 1 ignores earlier or lower ones.
//! - The attempt's age is measured from its first progress report: a report does not carry
//!   the attempt's start, and the engine reports an attempt from its first heartbeat on.
//! - Counting: tau is raised, and estimates start, at the `skip_initials`-th reading.
//!   Hadoop's `SimpleExponentialSmoothing` raises tau while incorporating the reading
//!   after it (the 25th) and estimates from there: one reading later than here.
//! - Stagnation: an attempt below progress 1 whose reported progress has not changed
//!   for the window up to the scan's `now` is estimated to never finish (`est = +inf`),
//!   whatever its number of readings. Hadoop instead feeds it a fake heartbeat at `now`
//!   with the same progress, which drives its forecast towards 0 and its estimate towards
//!   infinity; the result here is the limit of that, at once. With the speculator, a
//!   stagnated attempt outranks any attempt with a finite estimate.

use crate::id_table::IdTable;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptId, ProgressReport};

use super::{DataStatistics, RuntimeEstimator, rate_sample};
use crate::DetectError;
use crate::error::check_param;

/// Parameters of [`SimpleExponential`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SimpleExpParams {
    /// The initial time constant `tau`, seconds (Hadoop: 120 s). Finite, `> 0`.
    pub tau_secs: f64,
    /// Readings before an attempt has an estimate (Hadoop's skip-initials: 24). `>= 1`.
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
    /// `atTime`: time of the last reading used, seconds.
    at_secs: f64,
    /// `data`: progress at that reading.
    progress: f64,
    /// The forecast progress rate, per second.
    forecast: f64,
    /// Readings incorporated.
    index: u32,
    /// This attempt's time constant, seconds.
    tau_secs: f64,
    /// Time of the first reading, the origin of the attempt's age.
    first_secs: f64,
    /// Time of the last reading that changed the progress.
    changed_secs: f64,
}

/// Seed 003's simple exponential smoothing estimator, with stagnation.
#[derive(Debug, Clone, Default)]
pub struct SimpleExponential {
    params: SimpleExpParams,
    records: IdTable<Record>,
}

impl SimpleExponential {
    /// An estimator with checked parameters.
    pub fn new(params: CheckedSimpleExpParams) -> Self {
        SimpleExponential {
            params: params.0,
            records: IdTable::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &SimpleExpParams {
        &self.params
    }

    /// The forecast rate of an attempt and the readings behind it.
    pub fn forecast(&self, attempt: AttemptId) -> Option<(f64, u32)> {
        self.records.get(attempt.0).map(|r| (r.forecast, r.index))
    }

    /// The time constant of an attempt, seconds.
    pub fn tau_secs(&self, attempt: AttemptId) -> Option<f64> {
        self.records.get(attempt.0).map(|r| r.tau_secs)
    }

    /// Whether the attempt's progress, below 1, has not changed for its stagnation window
    /// `max(2 tau, min_stagnation_window_secs)` at `now_secs`.
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
        let params = self.params;
        let Some(r) = self.records.get_mut(report.attempt.0) else {
            let first = Record {
                at_secs: new_t,
                progress: new_p,
                forecast: 0.0,
                index: 1,
                tau_secs: params.tau_secs,
                first_secs: new_t,
                changed_secs: new_t,
            };
            self.records.insert(report.attempt.0, first);
            return;
        };
        let Some((dt, rate)) = rate_sample(r.at_secs, r.progress, new_t, new_p) else {
            return;
        };
        let alpha = 1.0 - (-dt / r.tau_secs).exp();
        r.forecast = alpha * rate + (1.0 - alpha) * r.forecast;
        if new_p > r.progress {
            r.changed_secs = new_t;
        }
        r.progress = new_p;
        r.at_secs = new_t;
        r.index = r.index.saturating_add(1);
        if r.index == params.skip_initials {
            r.tau_secs = r.tau_secs.max(new_t - r.first_secs);
        }
    }

    fn forget(&mut self, attempt: AttemptId) {
        self.records.remove(attempt.0);
    }

    fn reset(&mut self) {
        self.records.clear();
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
        if r.index < self.params.skip_initials || r.forecast <= 0.0 {
            return None;
        }
        let remaining = (1.0 - r.progress).clamp(0.0, 1.0) / r.forecast;
        Some(remaining + (r.at_secs - start_secs).max(0.0))
    }

    fn new_attempt_runtime_secs(&self, stats: &DataStatistics) -> Option<f64> {
        let (mean_ci, sd) = (stats.mean_ci()?, stats.std_dev()?);
        Some(mean_ci + (0.25 * mean_ci).min(sd / 2.0))
    }
}
