//! Quantiles by linear interpolation (numpy's default).

use straggler_model::check_range;

use crate::TruthError;

/// The `q`-quantile of `sorted` (ascending, finite) by linear interpolation between order
/// statistics, numpy's default method ("linear", Hyndman and Fan type 7):
///
/// ```text
/// h = (n - 1) q,  lo = floor(h),  Q(q) = x[lo] + (h - lo) (x[lo + 1] - x[lo])
/// ```
///
/// (`x[lo + 1]` is read as `x[lo]` when `lo = n - 1`). `None` for an empty slice.
///
/// # Errors
///
/// `q` not in `[0, 1]`, or an element that is not finite or smaller than the one before.
pub fn quantile(sorted: &[f64], q: f64) -> Result<Option<f64>, TruthError> {
    check_range("q", q, 0.0, 1.0, "in [0, 1]")?;
    let mut previous = f64::NEG_INFINITY;
    for (index, &value) in sorted.iter().enumerate() {
        if !value.is_finite() || value < previous {
            return Err(TruthError::BadElement {
                field: "sorted",
                index,
                value,
                range: "finite and not below the element before",
            });
        }
        previous = value;
    }
    Ok(interpolate(sorted, q))
}

/// The `q`-quantile of `values` in any order: [`quantile`] of a sorted copy.
///
/// # Errors
///
/// `q` not in `[0, 1]`, or an element that is not finite.
pub fn quantile_of(values: &[f64], q: f64) -> Result<Option<f64>, TruthError> {
    check_range("q", q, 0.0, 1.0, "in [0, 1]")?;
    if let Some((index, &value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(TruthError::BadElement {
            field: "values",
            index,
            value,
            range: "finite",
        });
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    Ok(interpolate(&sorted, q))
}

/// Type-7 interpolation on a checked, sorted slice and a checked `q`.
pub(crate) fn interpolate(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * q;
    // h lies in [0, last], so the cast cannot truncate anything but the fraction.
    let lo = (h.floor() as usize).min(last);
    let hi = (lo + 1).min(last);
    let (low, high, t) = (sorted[lo], sorted[hi], h - lo as f64);
    let step = high - low;
    if step.is_finite() {
        Some(low + t * step)
    } else {
        // Values of opposite signs beyond half the range of binary64: the difference
        // overflows, the weighted sum does not (and at `t = 0` gives `low`, not NaN).
        Some(low * (1.0 - t) + high * t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;
    use straggler_model::ValueError;

    fn q(sorted: &[f64], q: f64) -> f64 {
        quantile(sorted, q).expect("valid").expect("non-empty")
    }

    #[test]
    fn matches_numpy_linear() {
        // np.quantile([1, 2, 3, 4], [0, 0.25, 0.5, 0.9, 1]) = [1, 1.75, 2.5, 3.7, 4]:
        // h = 3q: 0 -> 1; 0.75 -> 1 + 0.75 * 1; 1.5 -> 2 + 0.5; 2.7 -> 3 + 0.7; 3 -> 4.
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_relative_eq!(q(&x, 0.0), 1.0);
        assert_relative_eq!(q(&x, 0.25), 1.75);
        assert_relative_eq!(q(&x, 0.5), 2.5);
        assert_relative_eq!(q(&x, 0.9), 3.7, epsilon = 1e-12);
        assert_relative_eq!(q(&x, 1.0), 4.0);
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(quantile(&[], 0.5), Ok(None));
        assert_eq!(quantile(&[7.0], 0.3), Ok(Some(7.0)));
        assert_eq!(quantile(&[2.0, 2.0, 2.0], 0.7), Ok(Some(2.0)));
    }

    #[test]
    fn rejects_bad_inputs() {
        assert!(matches!(
            quantile(&[1.0], 1.5),
            Err(TruthError::Value(ValueError::OutOfRange { field: "q", .. }))
        ));
        assert!(matches!(
            quantile(&[1.0], f64::NAN),
            Err(TruthError::Value(ValueError::NotFinite { field: "q", .. }))
        ));
        assert!(matches!(
            quantile(&[1.0, f64::NAN], 0.5),
            Err(TruthError::BadElement {
                field: "sorted",
                index: 1,
                ..
            })
        ));
        assert!(matches!(
            quantile(&[2.0, 1.0], 0.5),
            Err(TruthError::BadElement {
                field: "sorted",
                index: 1,
                ..
            })
        ));
    }

    #[test]
    fn values_whose_difference_overflows_interpolate_finitely() {
        // f64::MAX - (-f64::MAX) is infinite: 0 x inf gave NaN at q = 0, and inf at 0.5.
        let x = [-f64::MAX, f64::MAX];
        assert_eq!(q(&x, 0.0), -f64::MAX);
        assert_eq!(q(&x, 0.5), 0.0);
        assert_eq!(q(&x, 1.0), f64::MAX);
        let quarter = quantile_of(&[f64::MAX, -f64::MAX], 0.25).unwrap().unwrap();
        assert_relative_eq!(quarter, -f64::MAX / 2.0, max_relative = 1e-15);
    }
}
