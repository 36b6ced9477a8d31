//! Hadoop's `ExponentiallySmoothedTaskRuntimeEstimator`: the progress rate smoothed over
//! successive progress reports with a time constant `lambda`.
//!
//! For two successive reports `(t0, p0)` and `(t1, p1)` of an attempt, with `t1 > t0` and
//! `p1 >= p0`:
//!
//! ```text
//! sample = (p1 - p0) / (t1 - t0)
//! w      = exp(-(t1 - t0) / lambda)                  (lambda = 60 s by default)
//! rate   = w * rate + (1 - w) * sample               (rate = sample for the first sample)
//! est    = (t_last - start) + (1 - p_last) / rate    (no estimate while rate <= 0)
//! ```
//!
//! Source: `org.apache.hadoop.mapreduce.v2.app.speculate.ExponentiallySmoothedTaskRuntimeEstimator`
//! (its `EstimateVector.incorporate` and `estimatedRuntime`, smoothing the rate, Hadoop's
//! default `SmoothedValue.RATE`; `reference/speculators.md`, "Hadoop MapReduce v2").
//!
//! Where this differs from the source: Hadoop's `incorporate` weighs the old rate with
//! `exp(+dt / lambda)`, a weight above 1 (a known defect), and anchors the first reading
//! at `Long.MIN_VALUE`; here the weight is `exp(-dt / lambda)`, the exponential smoothing
//! with time constant `lambda` that `speculators.md` describes.
//!
//! Choices where the source leaves room:
//! - The first report of an attempt only anchors `(t0, p0)`: a progress report does not
//!   carry the attempt's start, so the first rate sample comes from the second report.
//! - A report not later than the previous one, or with a lower progress, is ignored (as in
//!   Hadoop's `incorporate`).
//! - `est` is the elapsed time at the last report plus the time left at the smoothed rate
//!   from there, so `start + est` is the forecast end. An attempt without two reports has
//!   no estimate, and the speculator skips it.
//!
//! An attempt that stops reporting keeps its estimate here, and `now` would overtake its
//! `start + est`. As Hadoop's does, the speculator then gives the estimator a reading of
//! the same progress at the scan when the attempt's estimate and progress have not
//! changed for more than 9 s at its scans ([`HadoopSpeculator`](super::HadoopSpeculator),
//! "An attempt that stops reporting"): a sample of 0. With this crate's weight it
//! multiplies the rate by `exp(-dt / lambda)`, which pushes `start + est` further ahead of
//! `now`, and a hung attempt is flagged once its estimated end passes a copy's. That
//! follows from the deviation above, not from Hadoop: under Hadoop's weight the sample of
//! 0 multiplies the rate by `exp(+dt / lambda)`, *raising* it, and the estimated end stays
//! before a copy's. In the speculator's test
//! (`an_attempt_that_stops_reporting_gets_hadoops_simulated_heartbeat`: rate 0.01 and
//! progress 0.2 at 20 s, a copy expected to take 80 s), Hadoop's rate after a reading at
//! `t` would be `0.01 e^((t - 20) / 60)` and the estimated end `t + 80 e^(-(t - 20) / 60)`,
//! before a copy's `t + 80` for any `t > 20`: at 35 s the rate 0.012840 and the end
//! 97.304, where a copy launched at 36 s ends at 116. Here the end is 137.722 and the
//! attempt is flagged at 36 s. An attempt that reported once and stopped gets a rate of 0
//! from the reading, and so no estimate (Hadoop's `estimatedRuntime` returns -1 at a rate
//! of 0).

use crate::staged_table::StagedTable;

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptId, ProgressReport, StageId};

use super::{DataStatistics, RuntimeEstimator, rate_sample};
use crate::DetectError;
use crate::error::check_param;

/// Parameters of [`ExponentiallySmoothed`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ExpSmoothedParams {
    /// The smoothing time constant `lambda`, seconds (Hadoop: 60 s). Finite, `> 0`.
    pub lambda_secs: f64,
}

impl Default for ExpSmoothedParams {
    fn default() -> Self {
        ExpSmoothedParams { lambda_secs: 60.0 }
    }
}

impl ExpSmoothedParams {
    /// Checks the parameters: `lambda_secs` finite and `> 0`.
    pub fn check(self) -> Result<CheckedExpSmoothedParams, DetectError> {
        check_param("lambda_secs", self.lambda_secs, "finite and > 0", |l| {
            l > 0.0
        })?;
        Ok(CheckedExpSmoothedParams(self))
    }
}

/// [`ExpSmoothedParams`] that passed [`ExpSmoothedParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedExpSmoothedParams(ExpSmoothedParams);

/// What the estimator knows of one running attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Smoothed {
    /// Time of the last report used, seconds.
    at_secs: f64,
    /// Progress at that report.
    progress: f64,
    /// The smoothed rate (progress per second), `None` before the second report.
    rate: Option<f64>,
}

/// The exponentially smoothed rate estimator.
#[derive(Debug, Clone, Default)]
pub struct ExponentiallySmoothed {
    params: ExpSmoothedParams,
    /// Each attempt's rate, in the stage of its first report.
    attempts: StagedTable<Smoothed>,
}

impl ExponentiallySmoothed {
    /// An estimator with checked parameters.
    pub fn new(params: CheckedExpSmoothedParams) -> Self {
        ExponentiallySmoothed {
            params: params.0,
            attempts: StagedTable::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &ExpSmoothedParams {
        &self.params
    }

    /// The smoothed rate of an attempt (progress per second), if it has one.
    pub fn rate(&self, attempt: AttemptId) -> Option<f64> {
        self.attempts.get(attempt.0).and_then(|s| s.rate)
    }
}

impl RuntimeEstimator for ExponentiallySmoothed {
    fn detector_name(&self) -> &'static str {
        "hadoop-exp-smoothed"
    }

    fn observe_progress(&mut self, report: &ProgressReport) {
        let (t1, p1) = (report.time_secs, report.progress);
        if !(t1.is_finite() && p1.is_finite()) {
            return;
        }
        let lambda = self.params.lambda_secs;
        let Some(s) = self.attempts.get_mut(report.attempt.0) else {
            let first = Smoothed {
                at_secs: t1,
                progress: p1,
                rate: None,
            };
            self.attempts
                .insert(report.attempt.0, report.stage.0, first);
            return;
        };
        let Some((dt, sample)) = rate_sample(s.at_secs, s.progress, t1, p1) else {
            return;
        };
        let w = (-dt / lambda).exp();
        s.rate = Some(s.rate.map_or(sample, |rate| w * rate + (1.0 - w) * sample));
        s.at_secs = t1;
        s.progress = p1;
    }

    fn forget(&mut self, attempt: AttemptId) {
        self.attempts.remove(attempt.0);
    }

    fn forget_stage(&mut self, stage: StageId) {
        self.attempts.forget_stage(stage.0);
    }

    fn reset(&mut self) {
        self.attempts.clear();
    }

    fn estimated_runtime_secs(
        &self,
        attempt: AttemptId,
        start_secs: f64,
        _now_secs: f64,
        _progress: f64,
    ) -> Option<f64> {
        let s = self.attempts.get(attempt.0)?;
        let rate = s.rate.filter(|&r| r > 0.0)?;
        let remaining = (1.0 - s.progress).clamp(0.0, 1.0) / rate;
        Some((s.at_secs - start_secs).max(0.0) + remaining)
    }

    fn new_attempt_runtime_secs(&self, stats: &DataStatistics) -> Option<f64> {
        stats.mean()
    }
}
