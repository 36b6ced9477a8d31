//! Mean and 95% confidence interval over repetitions (Student t).

use serde::{Deserialize, Serialize};

use crate::mean::{finite_mean, largest_magnitude};
use crate::{MetricsError, student_t_quantile};

/// The mean of a metric over repetitions and the half-width of its 95% confidence
/// interval. Serialises as `{"mean": .., "ci95": .., "n": ..}`.
///
/// `n` counts the defined values only; the number of repetitions left out (where the
/// metric was undefined) is the number of values given minus `n`; an evaluation cell
/// reports it as its `repetitions` minus `n`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Mean of the defined values; `None` if there is none. Finite whenever there is one.
    pub mean: Option<f64>,
    /// Half-width of the 95% confidence interval of the mean: the interval is
    /// `mean +- ci95`. `None` with fewer than two defined values, or when the half-width
    /// is above `f64::MAX` (two values more than `f64::MAX / 6.36` apart, for instance).
    pub ci95: Option<f64>,
    /// Number of defined values.
    pub n: usize,
}

/// The mean and 95% confidence half-width of the defined values among `values` (one per
/// repetition; `None` is a repetition where the metric was undefined):
///
/// ```text
/// mean = (1/n) sum x_i
/// s    = sqrt(sum (x_i - mean)^2 / (n - 1))
/// ci95 = t_{0.975, n-1} * s / sqrt(n)          (Student t quantile, statrs)
/// ```
///
/// `n = 0`: mean and ci95 `None`; `n = 1`: ci95 `None`; all values equal: ci95 `Some(0)`
/// and the mean is that value exactly.
///
/// Finite values never overflow: a sum above `f64::MAX` is computed on the values divided
/// by the largest magnitude, and so is the sum of squares when it overflows or underflows
/// (to 0 or a subnormal); ordinary values take the plain formulas above, bit for bit. So
/// the mean of finite values is always finite, and `ci95` is `None` with two or more
/// values only when the half-width itself is above `f64::MAX`.
///
/// # Errors
///
/// [`MetricsError::BadValue`] naming the first value (by index) that is NaN or infinite:
/// the metrics give `None`, not NaN, where they are undefined, so such a value comes from
/// a bug upstream, and is refused rather than left out.
pub fn summarize(values: &[Option<f64>]) -> Result<Summary, MetricsError> {
    if let Some((index, value)) = values
        .iter()
        .enumerate()
        .find_map(|(index, v)| v.filter(|v| !v.is_finite()).map(|v| (index, v)))
    {
        return Err(MetricsError::BadValue { index, value });
    }
    let defined: Vec<f64> = values.iter().flatten().copied().collect();
    let n = defined.len();
    let Some(&first) = defined.first() else {
        return Ok(Summary {
            mean: None,
            ci95: None,
            n,
        });
    };
    if defined.iter().all(|&v| v == first) {
        let ci95 = (n > 1).then_some(0.0);
        return Ok(Summary {
            mean: Some(first),
            ci95,
            n,
        });
    }
    let mean = finite_mean(&defined);
    Ok(Summary {
        mean,
        ci95: mean.and_then(|mean| half_width(&defined, mean)),
        n,
    })
}

/// `t_{0.975, n-1} * s / sqrt(n)` for finite `values` (two or more, not all equal) of mean
/// `mean`; `None` if it is above `f64::MAX`.
fn half_width(values: &[f64], mean: f64) -> Option<f64> {
    let count = values.len() as f64;
    let t = student_t_quantile(0.975, values.len() as u64 - 1);
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    let ci95 = if squares.is_normal() {
        let sd = (squares / (count - 1.0)).sqrt();
        t * sd / count.sqrt()
    } else {
        // Overflowed (or underflowed): the same in units of the largest magnitude, where
        // every difference is at most 2 and every square at most 4.
        let scale = largest_magnitude(values);
        let scaled_mean = mean / scale;
        let scaled_squares: f64 = values
            .iter()
            .map(|v| (v / scale - scaled_mean) * (v / scale - scaled_mean))
            .sum();
        let scaled_sd = (scaled_squares / (count - 1.0)).sqrt();
        t * scaled_sd / count.sqrt() * scale
    };
    Some(ci95).filter(|ci| ci.is_finite())
}
