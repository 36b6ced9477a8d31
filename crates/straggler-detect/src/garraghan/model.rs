//! The offline half of Garraghan et al.'s detector (seed 004, Section 6.1): the typical
//! progress of a stage's tasks over elapsed time, learnt from attempts that succeeded and
//! fitted by linear and piecewise-linear regression, and the straggler threshold it gives.
//!
//! # The median progress curve
//!
//! Fig. 9 draws `T_iProg` as the "median task progress" at time `t`, and Section 6.1 calls
//! a task a straggler when "the time taken to reach a specific progress score ... is greater
//! than 50% in comparison to typical task execution". The model is therefore the median
//! of the history's attempts, not a fit of their pooled reports (where a slow attempt, with
//! more reports, would weigh more and pull the line towards itself).
//!
//! Each successful attempt `a` is a trajectory: `(0, 0)` (a task starts at progress 0),
//! its progress reports `(elapsed, progress)` and `(duration, 1)`. At each progress level
//! `q_j = j / Q` (`j = 1..=Q`, `Q =` [`LEVELS`] `= 100`) it has the time it first reached
//! `q_j`, interpolated linearly between the points of its running maximum:
//!
//! ```text
//! tau_a(q) = t_(i-1) + (q - p_(i-1)) (t_i - t_(i-1)) / (p_i - p_(i-1))    where p_(i-1) < q <= p_i
//! tau_a(q) = +inf                                                         if a never reached q
//! M(q_j)   = median over the attempts of tau_a(q_j)     (the mean of the two middle values for an even count)
//! ```
//!
//! `M(q)` is the typical time to reach `q`; for trajectories that never go back, at most
//! half the attempts are behind `q` at time `M(q)`, so the points `(M(q_j), q_j)` lie on the
//! median progress curve of Fig. 9. Every attempt counts once at every level, whatever the
//! number of its reports, and stragglers that are a minority of the history move `M` at most
//! to the neighbouring normal attempts' times. A level the median attempt never reached
//! (`M = +inf`) gives no point.
//!
//! # The regression
//!
//! The model is the least-squares line `Prog(t) = a + b t` (seed 004, Eq. 2) through the
//! points `(M(q_j), q_j)`, and, for a piecewise model of `K` bands, one more line per band of
//! progress `[k / K, (k + 1) / K)` (the last closed at 1) through the points of its levels:
//! Fig. 8's "combination of linear and non-linear regression" for tasks whose progress has
//! phases (Hadoop's reduce: copy, sort, reduce, a third of the score each). `K = 1` is the
//! plain linear model; `K <=` [`MAX_SEGMENTS`] `= Q / 2` leaves two levels to every band.
//! Choosing points by their progress biases nothing here: they are points of one curve, not
//! noisy samples.
//!
//! The medians are kept per level in two heaps (O(Q log n) per attempt learnt, O(1) per
//! median); a fit costs O(Q), and its sums are running means and co-moments (Welford).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use straggler_model::StageId;

use crate::scan::IdMap;

/// Progress levels `q_j = j / LEVELS` at which the history keeps each attempt's time.
pub const LEVELS: usize = 100;

/// The most bands a piecewise model may have: two levels per band.
pub const MAX_SEGMENTS: u32 = (LEVELS / 2) as u32;

/// Running count, means and co-moments of points `(t, p)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Moments {
    count: u64,
    mean_t: f64,
    mean_p: f64,
    /// `sum (t - mean_t)^2`.
    m2_t: f64,
    /// `sum (t - mean_t) (p - mean_p)`.
    c_tp: f64,
}

impl Moments {
    fn add(&mut self, t: f64, p: f64) {
        self.count += 1;
        let n = self.count as f64;
        let dt = t - self.mean_t;
        self.mean_t += dt / n;
        self.mean_p += (p - self.mean_p) / n;
        self.m2_t += dt * (t - self.mean_t);
        self.c_tp += dt * (p - self.mean_p);
    }

    /// The least-squares line, if there are two distinct times and it is finite.
    fn line(&self) -> Option<Line> {
        if self.count < 2 || self.m2_t <= 0.0 {
            return None;
        }
        let slope = self.c_tp / self.m2_t;
        let intercept = self.mean_p - slope * self.mean_t;
        (slope.is_finite() && intercept.is_finite()).then_some(Line { intercept, slope })
    }
}

/// A fitted line `progress = intercept + slope * elapsed_secs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Progress at elapsed time 0 (`0.01` in seed 004's Eq. 2).
    pub intercept: f64,
    /// Progress per second (`0.15` in Eq. 2).
    pub slope: f64,
}

impl Line {
    /// The line's progress at `elapsed_secs`.
    pub fn progress_at(&self, elapsed_secs: f64) -> f64 {
        self.intercept + self.slope * elapsed_secs
    }
}

/// A stage's fitted progress model: the median progress curve, its overall line, and one
/// line per band of progress.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressModel {
    curve: Vec<(f64, f64)>,
    overall: Option<Line>,
    bands: Vec<Option<Line>>,
}

impl ProgressModel {
    /// The points `(M(q_j), q_j)` of the median progress curve: the typical elapsed time
    /// to reach each level the median attempt reached, in increasing level.
    pub fn median_curve(&self) -> &[(f64, f64)] {
        &self.curve
    }

    /// The regression over every point of the curve (seed 004, Eq. 2), if defined.
    pub fn overall(&self) -> Option<Line> {
        self.overall
    }

    /// The regression of band `k` (levels in `[k / K, (k + 1) / K)`), if defined.
    pub fn band(&self, k: usize) -> Option<Line> {
        self.bands.get(k).copied().flatten()
    }

    /// The line that models an attempt at `progress`: its band's, or the overall one when
    /// the band has no usable fit. A line is usable if its slope is positive (progress that
    /// does not grow with time says nothing about when a task is late).
    pub fn line_for(&self, progress: f64) -> Option<Line> {
        let k = band_of(progress, self.bands.len());
        self.band(k)
            .filter(|l| l.slope > 0.0)
            .or(self.overall.filter(|l| l.slope > 0.0))
    }

    /// The straggler threshold `T_S` at `elapsed_secs` for an attempt at `progress`:
    /// the model's progress at `elapsed / (1 + diff)` (seed 004, Eq. 3: with `diff` = 0.5,
    /// `0.01 + 0.15 * (2/3) t`). An attempt below it has taken more than `1 + diff` times
    /// the typical time to reach its progress. `None` without a usable line.
    pub fn threshold(&self, progress: f64, elapsed_secs: f64, diff: f64) -> Option<f64> {
        self.line_for(progress)
            .map(|l| l.progress_at(elapsed_secs / (1.0 + diff)))
    }
}

/// The band of `progress` among `segments` equal bands of `[0, 1]`.
#[inline]
pub(crate) fn band_of(progress: f64, segments: usize) -> usize {
    // `as usize` saturates, and NaN gives 0; progress is in [0, 1] in a snapshot anyway.
    ((progress * segments as f64) as usize).min(segments.saturating_sub(1))
}

/// An `f64` ordered by `total_cmp`, for the heaps.
#[derive(Debug, Clone, Copy)]
struct Time(f64);

impl PartialEq for Time {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The running median of one level's times: the lower half in a max-heap, the upper half
/// in a min-heap, the lower holding the middle value of an odd count.
#[derive(Debug, Clone, Default)]
struct RunningMedian {
    lower: BinaryHeap<Time>,
    upper: BinaryHeap<Reverse<Time>>,
}

impl RunningMedian {
    fn push(&mut self, value: f64) {
        let value = Time(value);
        match self.lower.peek() {
            Some(&top) if value > top => self.upper.push(Reverse(value)),
            _ => self.lower.push(value),
        }
        if self.lower.len() > self.upper.len() + 1 {
            if let Some(v) = self.lower.pop() {
                self.upper.push(Reverse(v));
            }
        } else if self.upper.len() > self.lower.len() {
            if let Some(Reverse(v)) = self.upper.pop() {
                self.lower.push(v);
            }
        }
    }

    /// The median (`None` when empty): the middle value, or the mean of the two middle
    /// ones, kept between them (`+inf` if either is).
    fn median(&self) -> Option<f64> {
        let below = self.lower.peek()?.0;
        if self.lower.len() > self.upper.len() {
            return Some(below);
        }
        let above = self.upper.peek().map_or(below, |v| v.0.0);
        Some((0.5 * (below + above)).max(below).min(above))
    }

    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.lower
            .iter()
            .map(|v| v.0)
            .chain(self.upper.iter().map(|v| v.0.0))
    }
}

/// One stage's history: the attempts learnt and each level's running median.
#[derive(Debug, Clone)]
struct StageHistory {
    attempts: u64,
    levels: Vec<RunningMedian>,
}

impl Default for StageHistory {
    fn default() -> Self {
        StageHistory {
            attempts: 0,
            levels: vec![RunningMedian::default(); LEVELS],
        }
    }
}

/// The times at which the trajectory `points` (sorted by time, valid) first reached each
/// level, from `(0, 0)`; `+inf` for a level it never reached.
fn level_times(points: &[(f64, f64)]) -> [f64; LEVELS] {
    let mut times = [f64::INFINITY; LEVELS];
    let (mut t0, mut p0) = (0.0, 0.0);
    let mut j = 1; // the next level to reach
    for &(t1, p1) in points {
        while j <= LEVELS {
            let q = j as f64 / LEVELS as f64;
            if p1 < q {
                break;
            }
            // p0 < q <= p1: between the two points (at t1 when they share a time).
            let time = t0 + (q - p0) / (p1 - p0) * (t1 - t0);
            times[j - 1] = if time.is_finite() {
                time.clamp(t0, t1)
            } else {
                t1
            };
            j += 1;
        }
        if p1 > p0 {
            (t0, p0) = (t1, p1);
        } else {
            t0 = t1;
        }
    }
    times
}

/// Progress trajectories of attempts that succeeded, per stage, summarised for
/// [`ProgressModel`]s: the running median of each progress level's time.
///
/// Each attempt `a` is the trajectory `(0, 0)`, its reports `(elapsed, progress)`,
/// `(duration, 1)`; at the levels `q_j = j / 100` (seed 004, Fig. 9's median task progress
/// and Eq. 2's regression):
///
/// ```text
/// tau_a(q) = t_(i-1) + (q - p_(i-1)) (t_i - t_(i-1)) / (p_i - p_(i-1)),  p_(i-1) < q <= p_i   (+inf if never reached)
/// M(q_j)   = median over a of tau_a(q_j)                                   (the typical time to reach q_j)
/// Prog(t)  = a + b t, least squares through the points (M(q_j), q_j), one more line per band of K
/// ```
///
/// Built by the detector from what it observes, or from past runs of the same jobs (seed
/// 004's "historical data") and given to
/// [`GarraghanDetector::with_history`](crate::GarraghanDetector::with_history).
#[derive(Debug, Clone, Default)]
pub struct ProgressHistory {
    /// By stage index (a map: a stray stage id allocates nothing).
    stages: IdMap<u32, StageHistory>,
    skipped_points: u64,
}

impl ProgressHistory {
    /// An empty history.
    pub fn new() -> Self {
        ProgressHistory::default()
    }

    /// Adds the trajectory `(elapsed_secs, progress)` of one successful attempt of `stage`
    /// (its reports, then `(duration, 1)`; taken in time order). A point with a non-finite
    /// or negative elapsed time, or a progress outside `[0, 1]`, is skipped and counted
    /// ([`skipped_points`](Self::skipped_points)); an attempt with no valid point is not
    /// learnt.
    pub fn add_trajectory(&mut self, stage: StageId, points: impl IntoIterator<Item = (f64, f64)>) {
        let mut valid: Vec<(f64, f64)> = Vec::new();
        for (t, p) in points {
            if t.is_finite() && t >= 0.0 && (0.0..=1.0).contains(&p) {
                valid.push((t, p));
            } else {
                self.skipped_points += 1;
            }
        }
        if valid.is_empty() {
            return;
        }
        valid.sort_by(|a, b| a.0.total_cmp(&b.0));
        let history = self.stages.entry(stage.0).or_default();
        history.attempts += 1;
        for (level, time) in history.levels.iter_mut().zip(level_times(&valid)) {
            level.push(time);
        }
    }

    /// Adds every attempt of `other` (the history of another run, say).
    pub fn merge(&mut self, other: &ProgressHistory) {
        self.skipped_points += other.skipped_points;
        for (&stage, theirs) in &other.stages {
            let ours = self.stages.entry(stage).or_default();
            ours.attempts += theirs.attempts;
            for (level, their_level) in ours.levels.iter_mut().zip(&theirs.levels) {
                for time in their_level.values() {
                    level.push(time);
                }
            }
        }
    }

    /// Points left out because they were not finite or out of range.
    pub fn skipped_points(&self) -> u64 {
        self.skipped_points
    }

    /// Attempts learnt for `stage`.
    pub fn attempts(&self, stage: StageId) -> u64 {
        self.stages.get(&stage.0).map_or(0, |h| h.attempts)
    }

    /// The fitted model of `stage` with `segments` bands (taken into
    /// `1..=`[`MAX_SEGMENTS`]), `None` if it has no usable line at all.
    pub fn model(&self, stage: StageId, segments: u32) -> Option<ProgressModel> {
        let history = self.stages.get(&stage.0)?;
        let segments = segments.clamp(1, MAX_SEGMENTS) as usize;
        let curve: Vec<(f64, f64)> = history
            .levels
            .iter()
            .enumerate()
            .filter_map(|(i, level)| {
                let time = level.median()?;
                time.is_finite()
                    .then_some((time, (i + 1) as f64 / LEVELS as f64))
            })
            .collect();
        let mut overall = Moments::default();
        let mut bands = vec![Moments::default(); segments];
        for &(t, q) in &curve {
            overall.add(t, q);
            bands[band_of(q, segments)].add(t, q);
        }
        let model = ProgressModel {
            curve,
            overall: overall.line(),
            bands: bands.iter().map(Moments::line).collect(),
        };
        let usable = model.overall.is_some() || model.bands.iter().any(Option::is_some);
        usable.then_some(model)
    }

    /// Forgets every attempt.
    pub fn clear(&mut self) {
        self.stages.clear();
        self.skipped_points = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welford_fit_matches_the_closed_form() {
        // Points of p = 0.01 + 0.15 t at t = 0, 2, 4, 6.
        let mut m = Moments::default();
        for t in [0.0, 2.0, 4.0, 6.0] {
            m.add(t, 0.01 + 0.15 * t);
        }
        let line = m.line().expect("two distinct times");
        approx::assert_relative_eq!(line.slope, 0.15, max_relative = 1e-12);
        approx::assert_relative_eq!(line.intercept, 0.01, max_relative = 1e-9);
    }

    #[test]
    fn one_time_gives_no_line() {
        let mut m = Moments::default();
        m.add(3.0, 0.2);
        m.add(3.0, 0.4);
        assert_eq!(m.line(), None);
    }

    #[test]
    fn bands_split_progress_evenly() {
        assert_eq!(band_of(0.0, 3), 0);
        assert_eq!(band_of(0.34, 3), 1);
        assert_eq!(band_of(1.0, 3), 2);
        assert_eq!(band_of(0.5, 1), 0);
    }

    #[test]
    fn level_times_interpolate_the_running_maximum() {
        // (0, 0) -> (2, 0.2) -> (3, 0.1) -> (4, 0.6): the running maximum is 0.2 at 2 and
        // 3 s, so 0.1 at 1 s, 0.2 at 2 s, 0.4 at 3 + (0.4 - 0.2) / (0.6 - 0.2) * 1 = 3.5 s;
        // 0.61 never.
        let times = level_times(&[(2.0, 0.2), (3.0, 0.1), (4.0, 0.6)]);
        approx::assert_relative_eq!(times[9], 1.0, max_relative = 1e-12);
        approx::assert_relative_eq!(times[19], 2.0, max_relative = 1e-12);
        approx::assert_relative_eq!(times[39], 3.5, max_relative = 1e-12);
        assert_eq!(times[60], f64::INFINITY);
        // A jump at one time: every level up to it is reached then.
        let jump = level_times(&[(0.0, 0.5), (5.0, 1.0)]);
        assert_eq!(jump[49], 0.0);
        approx::assert_relative_eq!(jump[99], 5.0, max_relative = 1e-12);
    }

    #[test]
    fn running_median_of_odd_even_and_infinite_counts() {
        let mut m = RunningMedian::default();
        assert_eq!(m.median(), None);
        for (value, median) in [(5.0, 5.0), (1.0, 3.0), (9.0, 5.0), (2.0, 3.5), (7.0, 5.0)] {
            m.push(value);
            assert_eq!(m.median(), Some(median));
        }
        m.push(f64::INFINITY);
        assert_eq!(m.median(), Some(6.0));
        let mut unreached = RunningMedian::default();
        unreached.push(1.0);
        unreached.push(f64::INFINITY);
        assert_eq!(unreached.median(), Some(f64::INFINITY));
    }
}
