//! Hadoop's `DataStatistics`: running sums of the durations of a stage's finished tasks.
//!
//! From `org.apache.hadoop.mapreduce.v2.app.speculate.DataStatistics`
//! (`reference/speculators.md`, "Hadoop MapReduce v2"):
//!
//! ```text
//! mean     = sum / n
//! variance = max(sum_sq / n - mean^2, 0)      0 when n <= 1
//! sd       = sqrt(variance)
//! meanCI   = mean + 1.96 sd / sqrt(n)         0 when n <= 1
//! ```
//!
//! `meanCI` at `n = 1`: the two sources disagree. `speculators.md` gives the 0 for
//! `n <= 1` to the variance only and writes `meanCI = mean + 1.96 sd / sqrt(n)`, which for
//! a single duration is `mean + 0 = mean`. Hadoop's `DataStatistics.meanCI` returns `0.0`
//! when `count <= 1`, before it looks at the mean (apache/hadoop,
//! `hadoop-mapreduce-client-app`, `.../v2/app/speculate/DataStatistics.java`). The code
//! follows Hadoop's source: the reference these speculators are held to is Hadoop's exact
//! rule, and `speculators.md` summarises it. The consequence is in
//! [`SimpleExponential`](super::SimpleExponential), the one estimator that uses `meanCI`:
//! its new attempt is expected to take `meanCI + min(0.25 meanCI, sd / 2)`, 0 s after one
//! success (`speculators.md`'s formula would give the mean). The speculator's gate (at
//! least one finished task and 5% of the stage's) opens at the first success in a stage of
//! at most 20 tasks, so there, until a second success, a copy is expected to end at the
//! scan's `now` and every attempt whose estimated end lies after `now` has a positive
//! value. Hadoop also returns 0 for an empty statistic; here every statistic is `None`
//! before the first duration, since the speculator's gate needs one finished task anyway.

/// The z value of a two-sided 95% interval, Hadoop's `DEFAULT_CI_FACTOR`.
const CI_FACTOR: f64 = 1.96;

/// Running count, sum and sum of squares of a stage's finished-task durations (seconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DataStatistics {
    count: u64,
    sum: f64,
    sum_squares: f64,
}

impl DataStatistics {
    /// Adds one duration. A NaN, infinite or negative duration is not a duration and is
    /// ignored.
    pub fn add(&mut self, secs: f64) {
        if secs.is_finite() && secs >= 0.0 {
            self.count += 1;
            self.sum += secs;
            self.sum_squares += secs * secs;
        }
    }

    /// How many durations were added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The mean duration, `None` before the first one (or if the sums overflowed).
    pub fn mean(&self) -> Option<f64> {
        let mean = self.sum / self.count as f64;
        (self.count > 0 && mean.is_finite()).then_some(mean)
    }

    /// `max(E[x^2] - mean^2, 0)`, 0 when `n <= 1`; `None` before the first duration.
    pub fn variance(&self) -> Option<f64> {
        let mean = self.mean()?;
        if self.count <= 1 {
            return Some(0.0);
        }
        let variance = (self.sum_squares / self.count as f64 - mean * mean).max(0.0);
        variance.is_finite().then_some(variance)
    }

    /// The (population) standard deviation, `sqrt(variance)`.
    pub fn std_dev(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// `mean + 1.96 sd / sqrt(n)`: the upper end of a 95% interval of the mean; 0 when
    /// `n = 1`, as Hadoop's `DataStatistics.meanCI` returns for `count <= 1` (where
    /// `speculators.md`'s formula gives the mean: see the module docs); `None` before the
    /// first duration.
    pub fn mean_ci(&self) -> Option<f64> {
        let (mean, sd) = (self.mean()?, self.std_dev()?);
        if self.count <= 1 {
            return Some(0.0);
        }
        Some(mean + CI_FACTOR * sd / (self.count as f64).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_statistics() {
        let mut stats = DataStatistics::default();
        assert_eq!(stats.mean(), None);
        assert_eq!(stats.mean_ci(), None);
        stats.add(100.0);
        // n = 1: variance 0 and meanCI 0 (Hadoop's `count <= 1` cases). `speculators.md`'s
        // formula would give mean + 1.96 x 0 / sqrt(1) = 100; Hadoop's source gives 0.
        assert_eq!(
            (stats.mean(), stats.variance(), stats.mean_ci()),
            (Some(100.0), Some(0.0), Some(0.0))
        );
        let formula = 100.0 + CI_FACTOR * stats.std_dev().expect("n = 1") / 1f64.sqrt();
        assert_eq!(formula, 100.0);
        assert_ne!(stats.mean_ci(), Some(formula));
        // At n = 2 both agree: 100 and 300, mean 200, variance 50_000 - 40_000 = 10_000,
        // sd 100, meanCI = 200 + 1.96 x 100 / sqrt(2).
        let mut two = stats;
        two.add(300.0);
        let expected = 200.0 + 196.0 / 2f64.sqrt();
        assert!((two.mean_ci().expect("n = 2") - expected).abs() < 1e-9);
        stats.add(f64::NAN);
        stats.add(-1.0);
        assert_eq!(stats.count(), 1);
        // 100, 200, 300, 400: mean 250, E[x^2] = 300_000 / 4 = 75_000, variance
        // 75_000 - 62_500 = 12_500, meanCI = 250 + 1.96 sqrt(12_500) / 2.
        for secs in [200.0, 300.0, 400.0] {
            stats.add(secs);
        }
        assert_eq!(stats.mean(), Some(250.0));
        assert_eq!(stats.variance(), Some(12_500.0));
        let expected = 250.0 + 1.96 * 12_500f64.sqrt() / 2.0;
        assert!((stats.mean_ci().expect("n = 4") - expected).abs() < 1e-9);
    }
}
