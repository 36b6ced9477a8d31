//! Mean and 95% confidence interval over repetitions (Student t).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The mean of a metric over repetitions and the half-width of its 95% confidence
/// interval. Serialises as `{"mean": .., "ci95": .., "n": ..}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Mean of the defined values; `None` if there is none.
    pub mean: Option<f64>,
    /// Half-width of the 95% confidence interval of the mean: the interval is
    /// `mean +- ci95`. `None` with fewer than two defined values.
    pub ci95: Option<f64>,
    /// Number of defined values.
    pub n: usize,
}

/// The mean and 95% confidence half-width of the defined values among `values` (one per
/// repetition; `None` is a repetition where the metric was undefined, and so is a
/// non-finite value):
///
/// ```text
/// mean = (1/n) sum x_i
/// s    = sqrt(sum (x_i - mean)^2 / (n - 1))
/// ci95 = t_{0.975, n-1} * s / sqrt(n)          (Student t quantile, statrs)
/// ```
///
/// `n = 0`: mean and ci95 `None`; `n = 1`: ci95 `None`; all values equal: ci95 `Some(0)`
/// and the mean is that value exactly.
pub fn summarize(values: &[Option<f64>]) -> Summary {
    let defined: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let n = defined.len();
    let Some(&first) = defined.first() else {
        return Summary {
            mean: None,
            ci95: None,
            n,
        };
    };
    if defined.iter().all(|&v| v == first) {
        let ci95 = (n > 1).then_some(0.0);
        return Summary {
            mean: Some(first),
            ci95,
            n,
        };
    }
    let count = n as f64;
    let mean = defined.iter().sum::<f64>() / count;
    let squares: f64 = defined.iter().map(|v| (v - mean) * (v - mean)).sum();
    let sd = (squares / (count - 1.0)).sqrt();
    let ci95 = StudentsT::new(0.0, 1.0, count - 1.0)
        .ok()
        .map(|t| t.inverse_cdf(0.975) * sd / count.sqrt())
        .filter(|ci| ci.is_finite());
    Summary {
        mean: Some(mean).filter(|m| m.is_finite()),
        ci95,
        n,
    }
}
