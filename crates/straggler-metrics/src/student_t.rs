//! Quantiles of Student's t distribution, accurate at any number of degrees of freedom.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Degrees of freedom from which [`student_t_quantile`] takes the expansion of A&S 26.7.5.
const EXPANSION_FROM: u64 = 1000;

/// `t_{p, dof}`, the `p` quantile of Student's t with `dof` degrees of freedom (NaN for 0
/// degrees, or `p` outside `(0, 1)`). Below 1000 degrees, `statrs`'s inverse CDF; from
/// there, the normal quantile `x = z_p` corrected by the first four terms of the expansion
/// in Abramowitz & Stegun, *Handbook of Mathematical Functions*, 26.7.5:
///
/// ```text
/// t = x + g1/v + g2/v^2 + g3/v^3 + g4/v^4      (v = dof)
/// g1 = (x^3 + x) / 4
/// g2 = (5x^5 + 16x^3 + 3x) / 96
/// g3 = (3x^7 + 19x^5 + 17x^3 - 15x) / 384
/// g4 = (79x^9 + 776x^7 + 1482x^5 - 1920x^3 - 945x) / 92160
/// ```
///
/// whose next term at `v = 1000` and `p = 0.975` is below `10^-13`. `statrs`'s inverse
/// CDF (a search on the CDF) drifts at large `dof`: 1.95985 at `10^6` degrees where the
/// quantile is 1.95996, 1.8266 at `10^7`, and at `3 x 10^7` it did not return.
///
/// ```
/// use straggler_metrics::student_t_quantile;
///
/// assert!((student_t_quantile(0.975, 9) - 2.262_157_2).abs() < 1e-6);
/// assert!((student_t_quantile(0.975, 10_000_000) - 1.959_964_22).abs() < 1e-8);
/// ```
pub fn student_t_quantile(p: f64, dof: u64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    if dof < EXPANSION_FROM {
        return StudentsT::new(0.0, 1.0, dof as f64)
            .ok()
            .map_or(f64::NAN, |t| t.inverse_cdf(p));
    }
    let x = Normal::standard().inverse_cdf(p);
    let v = dof as f64;
    let x2 = x * x;
    let g1 = (x2 + 1.0) * x / 4.0;
    let g2 = ((5.0 * x2 + 16.0) * x2 + 3.0) * x / 96.0;
    let g3 = (((3.0 * x2 + 19.0) * x2 + 17.0) * x2 - 15.0) * x / 384.0;
    let g4 = ((((79.0 * x2 + 776.0) * x2 + 1482.0) * x2 - 1920.0) * x2 - 945.0) * x / 92160.0;
    x + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_hand() {
        // Tables: t_{0.975, 1} = 12.7062047, t_{0.975, 9} = 2.2621572, t_{0.975, 1000} =
        // 1.9623391; at 10^7 degrees, z_{0.975} + g1 / 10^7 = 1.9599640 + 2.37e-7.
        approx::assert_relative_eq!(student_t_quantile(0.975, 1), 12.706_204_7, epsilon = 1e-6);
        approx::assert_relative_eq!(student_t_quantile(0.975, 9), 2.262_157_2, epsilon = 1e-6);
        approx::assert_relative_eq!(
            student_t_quantile(0.975, 1000),
            1.962_339_08,
            epsilon = 1e-8
        );
        approx::assert_relative_eq!(
            student_t_quantile(0.975, 10_000_000),
            1.959_964_22,
            epsilon = 1e-8
        );
        // Where statrs did not return: z + g1 / v = 1.9599640 + 7.9e-8.
        approx::assert_relative_eq!(
            student_t_quantile(0.975, 30_000_000),
            1.959_964_06,
            epsilon = 1e-8
        );
        // The expansion takes over from statrs without a jump: one degree fewer is about
        // g1 / v^2 = 2.4e-6 above.
        let step = student_t_quantile(0.975, EXPANSION_FROM - 1)
            - student_t_quantile(0.975, EXPANSION_FROM);
        assert!((2.3e-6..2.5e-6).contains(&step), "{step}");
        assert!(student_t_quantile(0.975, 0).is_nan());
        for p in [0.0, 1.0, f64::NAN, -0.5] {
            assert!(student_t_quantile(p, 10).is_nan());
            assert!(student_t_quantile(p, 10_000).is_nan());
        }
    }
}
