//! A mean of finite values that does not overflow, shared by the metrics that average.

/// The mean of `values`, which must all be finite; `None` for no value.
///
/// It is `sum / n`, bit for bit, when the sum is finite. When the sum overflows (finite
/// values whose total is above `f64::MAX`), it is computed on the values divided by the
/// largest magnitude `m`: each is then in `[-1, 1]`, their sum in `[-n, n]` (rounding is
/// monotone), and `(sum / n) * m` is at most `m` in magnitude, so the mean of finite values
/// is always finite.
pub(crate) fn finite_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let count = values.len() as f64;
    let sum: f64 = values.iter().sum();
    if sum.is_finite() {
        return Some(sum / count);
    }
    let scale = largest_magnitude(values);
    Some(values.iter().map(|v| v / scale).sum::<f64>() / count * scale)
}

/// The largest `|v|` of `values` (0 for none).
pub(crate) fn largest_magnitude(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
}
