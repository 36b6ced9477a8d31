//! The offline half of Garraghan et al.'s detector (seed 004, Section 6.1): a model of a
//! stage's progress over elapsed time, fitted by least squares from the progress reports of
//! attempts that succeeded, and the straggler threshold it gives.
//!
//! The model is a linear regression `Prog(t) = a + b t` (seed 004, Eq. 2) over every point
//! `(elapsed, progress)` of the history, and, for a piecewise model of `K` segments, one
//! more regression per band of progress `[k / K, (k + 1) / K)` (the last band closed
//! at 1) over the points whose progress falls in it: Fig. 8's "combination of linear and
//! non-linear regression" for tasks whose progress has phases (Hadoop's reduce: copy,
//! sort, reduce, a third of the score each). `K = 1` is the plain linear model.
//!
//! Sums are kept as running means and co-moments (Welford), so that a point costs O(1), a
//! fit O(K), and elapsed times of 10^7 s lose no precision to `sum t^2 - n mean^2`.

use straggler_model::StageId;

use crate::scan::IdMap;

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

/// A stage's fitted progress model: the overall line, and one line per band of progress.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressModel {
    overall: Option<Line>,
    bands: Vec<Option<Line>>,
}

impl ProgressModel {
    /// The regression over every point (seed 004, Eq. 2), if defined.
    pub fn overall(&self) -> Option<Line> {
        self.overall
    }

    /// The regression of band `k` (progress in `[k / K, (k + 1) / K)`), if defined.
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

/// Progress reports of attempts that succeeded, summarised per stage for [`ProgressModel`]s.
///
/// Built by the detector from what it observes, or by hand (from past runs of the same
/// jobs: seed 004's "historical data") and given to
/// [`GarraghanDetector::with_history`](crate::GarraghanDetector::with_history).
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressHistory {
    segments: usize,
    /// By stage index (a map: a stray stage id allocates nothing): overall moments, then
    /// one per band.
    stages: IdMap<u32, Vec<Moments>>,
    skipped_points: u64,
}

impl ProgressHistory {
    /// An empty history for models of `segments` bands (at least 1).
    pub fn new(segments: u32) -> Self {
        ProgressHistory {
            segments: segments.max(1) as usize,
            stages: IdMap::default(),
            skipped_points: 0,
        }
    }

    /// The number of bands of its models.
    pub fn segments(&self) -> usize {
        self.segments
    }

    /// Adds the points `(elapsed_secs, progress)` of one successful attempt of `stage`.
    /// A point with a non-finite or negative elapsed time, or a progress outside `[0, 1]`,
    /// is skipped and counted ([`skipped_points`](Self::skipped_points)).
    pub fn add_trajectory(&mut self, stage: StageId, points: impl IntoIterator<Item = (f64, f64)>) {
        let segments = self.segments;
        let moments = self
            .stages
            .entry(stage.0)
            .or_insert_with(|| vec![Moments::default(); segments + 1]);
        for (t, p) in points {
            if !(t.is_finite() && t >= 0.0 && (0.0..=1.0).contains(&p)) {
                self.skipped_points += 1;
                continue;
            }
            moments[0].add(t, p);
            moments[1 + band_of(p, self.segments)].add(t, p);
        }
    }

    /// Points left out because they were not finite or out of range.
    pub fn skipped_points(&self) -> u64 {
        self.skipped_points
    }

    /// Points learnt for `stage`.
    pub fn points(&self, stage: StageId) -> u64 {
        self.stages.get(&stage.0).map_or(0, |m| m[0].count)
    }

    /// The fitted model of `stage`, `None` if it has no usable line at all.
    pub fn model(&self, stage: StageId) -> Option<ProgressModel> {
        let moments = self.stages.get(&stage.0)?;
        let model = ProgressModel {
            overall: moments[0].line(),
            bands: moments[1..].iter().map(Moments::line).collect(),
        };
        let usable = model.overall.is_some() || model.bands.iter().any(Option::is_some);
        usable.then_some(model)
    }

    /// Forgets every point.
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
}
