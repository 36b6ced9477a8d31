//! Hadoop's speculators as detectors: MapReduce v2's `DefaultSpeculator` over three task
//! runtime estimators ([`HadoopSpeculator`] with [`Legacy`], [`ExponentiallySmoothed`] or
//! [`SimpleExponential`]), and Hadoop 1's progress-gap rule ([`Hadoop1`]).
//!
//! An estimator forecasts the total runtime `est` of a running attempt from its progress
//! reports, and the runtime of a new attempt of its stage from the durations of the
//! stage's finished tasks ([`DataStatistics`]). The speculator flags, per stage and scan,
//! the original attempt whose forecast end `start + est` lies furthest after the end
//! `now + new attempt runtime` a copy launched now would reach.
//!
//! | estimator | `est` | new attempt | source |
//! |---|---|---|---|
//! | [`Legacy`] | `(now - start) / max(progress, 1e-4)` | mean | `LegacyTaskRuntimeEstimator` |
//! | [`ExponentiallySmoothed`] | `elapsed + (1 - progress) / rate`, rate smoothed with `lambda = 60 s` | mean | `ExponentiallySmoothedTaskRuntimeEstimator` |
//! | [`SimpleExponential`] | seed 003's Algorithms 1-2, `tau = 120 s`, 24 skip-initials, stagnation `max(2 tau, 360 s)` | `meanCI + min(0.25 meanCI, sd / 2)` | `SimpleExponentialTaskRuntimeEstimator`, seed 003 |
//!
//! Sources: `reference/speculators.md` ("Hadoop MapReduce v2", "Hadoop 1"), facts gathered
//! from the Apache Hadoop sources; seed 003 (a review of Hadoop's speculation, its
//! Algorithms 1 and 2). Each file documents its formula and its choices.

mod exp_smoothed;
mod hadoop1;
mod legacy;
mod simple_exp;
mod speculator;
mod stats;

pub use exp_smoothed::{CheckedExpSmoothedParams, ExpSmoothedParams, ExponentiallySmoothed};
pub use hadoop1::{CheckedHadoop1Params, Hadoop1, Hadoop1Params};
pub use legacy::Legacy;
pub use simple_exp::{CheckedSimpleExpParams, SimpleExpParams, SimpleExponential};
pub use speculator::{CheckedHadoopParams, HadoopParams, HadoopSpeculator};
pub use stats::DataStatistics;

use straggler_model::{AttemptId, ProgressReport, StageId};

/// A task runtime estimator of Hadoop's speculator (`TaskRuntimeEstimator`).
///
/// [`HadoopSpeculator`] feeds it every progress report, tells it which attempts ended, and
/// asks it at each scan for the runtime of its running attempts and of a new attempt.
pub trait RuntimeEstimator: Send {
    /// The name of the speculator over this estimator (`"hadoop-legacy"`...).
    fn detector_name(&self) -> &'static str;

    /// Learns from a progress report: one an engine sent, or one [`HadoopSpeculator`] made
    /// at a scan for an attempt whose estimate and progress had not changed for more than
    /// its `heartbeat_wait_secs` (Hadoop's simulated heartbeat: the same progress, at the
    /// scan's time).
    fn observe_progress(&mut self, report: &ProgressReport);

    /// Whether the estimates depend on the progress reports observed: `false` for an
    /// estimator that ignores them ([`Legacy`], whose estimate is the snapshot's progress
    /// over the elapsed time), for which [`HadoopSpeculator`] keeps no simulated heartbeat,
    /// which would change nothing. `true` by default.
    fn reads_progress(&self) -> bool {
        true
    }

    /// Learns when a running attempt of `stage` started (Hadoop's `enrollAttempt`, which
    /// records the start before the attempt's first status update). A progress report does
    /// not carry the start, so [`HadoopSpeculator`] passes the snapshot's start of every row
    /// at every scan, just before the row's estimate (after the stages' new-attempt
    /// runtimes); the calls after the first for an attempt change nothing. An estimator that
    /// does not need starts ignores them (the default).
    fn observe_start(&mut self, attempt: AttemptId, stage: StageId, start_secs: f64) {
        let _ = (attempt, stage, start_secs);
    }

    /// Forgets an attempt that ended.
    fn forget(&mut self, attempt: AttemptId);

    /// Forgets the attempts of a stage that finished
    /// ([`Observation::StageFinished`](straggler_model::Observation::StageFinished)), those
    /// never reported ended included (the replay drops the attempts its log leaves
    /// unfinished): an attempt is of the stage of its first report or start observed.
    fn forget_stage(&mut self, stage: StageId);

    /// Forgets everything.
    fn reset(&mut self);

    /// The estimated total runtime of a running attempt, seconds from its start:
    /// `None` without an estimate (the speculator skips the attempt), `+inf` for an
    /// attempt judged never to finish. `progress` is the snapshot's (the last reported).
    fn estimated_runtime_secs(
        &self,
        attempt: AttemptId,
        start_secs: f64,
        now_secs: f64,
        progress: f64,
    ) -> Option<f64>;

    /// The runtime expected of a new attempt of a stage whose finished tasks took `stats`;
    /// `None` when it cannot say.
    fn new_attempt_runtime_secs(&self, stats: &DataStatistics) -> Option<f64>;
}

/// The rate sample of a new report `(t1, p1)` after the last one used `(t0, p0)`: the time
/// between them and `(p1 - p0) / (t1 - t0)`. `None` for a report to ignore, as Hadoop's
/// `incorporate` does: one not later than the last, with a lower progress, or whose rate is
/// not finite.
fn rate_sample(t0: f64, p0: f64, t1: f64, p1: f64) -> Option<(f64, f64)> {
    if t1 <= t0 || p1 < p0 {
        return None;
    }
    let dt = t1 - t0;
    let rate = (p1 - p0) / dt;
    rate.is_finite().then_some((dt, rate))
}

#[cfg(test)]
mod tests {
    use super::rate_sample;

    #[test]
    fn rate_samples_by_hand() {
        // From 20% at 10 s to 40% at 20 s: 0.2 in 10 s.
        let (dt, rate) = rate_sample(10.0, 0.2, 20.0, 0.4).expect("a sample");
        assert_eq!(dt, 10.0);
        approx::assert_relative_eq!(rate, 0.02, max_relative = 1e-12);
        // Not later, lower, or a rate that overflows: ignored.
        assert_eq!(rate_sample(10.0, 0.2, 10.0, 0.4), None);
        assert_eq!(rate_sample(10.0, 0.2, 20.0, 0.1), None);
        assert_eq!(rate_sample(0.0, 0.0, 1e-320, 1.0), None);
        // Same progress later: a rate of zero, kept.
        assert_eq!(rate_sample(10.0, 0.5, 12.0, 0.5), Some((2.0, 0.0)));
    }
}
