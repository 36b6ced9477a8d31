//! LATE's slow-task rule as the seed paper uses it (Section 5.5, Eqs. 7-10).
//!
//! The progress rate of an attempt is `PR = PS / (t_now - t_start)` (Eq. 7). With the mean
//! `mean(PR)` (Eq. 8) and the population standard deviation `SD` (Eq. 9) of the rates of
//! the running tasks of its stage, an attempt is a straggler iff
//!
//! ```text
//! PR_j < mean(PR) - alpha * SD
//! ```
//!
//! Erratum: the paper prints `PR_j < mean(PR) (1 - alpha * SD)` (Eq. 10), which adds a
//! rate to a pure number. Its own remark that `alpha = 1` flags about 16% of normally
//! distributed tasks only holds for `mean - alpha * SD`, Hadoop 0.21's rule, which is what
//! is implemented here (see `framework-spec.md`).
//!
//! An attempt that started at the snapshot's instant has no rate yet: it is left out of
//! the statistics and never flagged. The statistics count each running task once ("all
//! running tasks"), at its original attempt: a speculative copy is neither in them nor
//! flagged.
//!
//! # One pass over the rates, usually
//!
//! `SD` is taken in two passes, as Eq. 9 reads: the mean first, then the squared distances
//! to it. The scan flags the same rows as that, but it rarely makes the second pass. The
//! pass that computes the rates also sums their squares, which gives the one-pass variance
//! `V1 = (1/N) sum PR_i^2 - mean(PR)^2`, less accurate but within a bound. With `u = 2^-53`
//! (the unit roundoff of `f64`) and `M2 = (1/N) sum PR_i^2`, to first order in `u`, `V1` is
//! within `(3N + 6) u M2` of the exact variance and the two-pass variance `V2`, as this
//! code rounds it, within `(2N + 4) u M2` (the bounds of rounded sums, Higham, *Accuracy
//! and Stability of Numerical Algorithms*, ch. 4, applied to the two formulas compared by
//! Chan, Golub and LeVeque, *The American Statistician* 37(3), 1983). A result too small
//! to be normal errs by up to `2^-1075` more, absolutely, per operation; the means divide
//! sums of `N` such errors by `N`, and a few of them come to far less than the smallest
//! normal number `2^-1022`. So `V2` is in `[V1 - m, V1 + m]` with the margin
//! `m = 16 (N + 4) u M2 + 2^-1022`, over three times the sum of the bounds. Each rounded
//! operation of `mean - alpha * sqrt(V)` (`alpha >= 0`) is monotone, so the threshold of
//! `V2` lies between the thresholds of the two ends. Rows below the higher one are the
//! candidates; a candidate below the lower one is flagged whichever variance is used. Only
//! if a candidate falls between the two is `V2` computed, in a second pass, and the
//! candidates below its threshold kept. That is rare where rates spread, as tasks' do (the
//! benchmark's stage of 10^5 rows never needs it), and common where they are nearly all
//! equal, since the margin is then large beside the variance. Either way the rows flagged
//! are those of the two-pass rule; the tests check it, and that the two-pass threshold lies
//! between the bounds, on snapshots made to need the second pass, on rates whose squares
//! are sub-normal, and on others.
//!
//! # Rates too large to square
//!
//! A rate is finite (Eq. 7 gives none where it is not) and at least 0, but it can be too
//! large to square: an attempt that started `1e-300` s before the snapshot has a rate near
//! `1e300`. Its stage's sum of squares is then infinite, so are its bounds (`(-inf, inf)`),
//! and every row of the stage is an unsettled candidate: the second pass is made. There the
//! squared distances overflow too (and near the largest `f64`, the sum of the rates), which
//! would make the threshold `-inf` and flag nothing. So a stage whose sum of rates or of
//! squared distances comes out infinite has its mean and `V2` taken again, in a third pass,
//! on its rates times `2^-k`, with `k` bringing its largest rate into `[2^447, 2^448)`.
//! There neither sum can overflow: the rates and their mean are in `[0, 2^448)`, so are
//! the distances, and even `2^64` squares below `2^896` sum to below `2^960`. The stage's
//! threshold is that of the scaled rates times `2^k`, and the rates themselves are compared
//! with it.
//!
//! That threshold is the two-pass rule's computed without overflow, bit for bit: a product
//! by a power of two is exact unless it falls below `2^-1022`, so rounding commutes with
//! it, and each operation on the scaled rates gives, scaled, the bits the same operation
//! gives in an `f64` whose exponent has no bound (the variance is scaled by `2^-2k`, whose
//! square root is `2^-k`). No result of the third pass falls below `2^-1022` but one kind:
//! the mean is at least the largest rate over `N`, `2^383` and more for `N <= 2^64`, and a
//! distance to it is 0 or at least the spacing of `f64` values near half the mean
//! (`2^330`), whose square is far above `2^-1022`. The exception is a rate over `2^1469`
//! times smaller than its stage's largest, sub-normal once scaled: it loses bits, less than
//! `2^-1074`, in sums of at least `2^447` whose rounding is far larger. Scaling the
//! threshold back is exact too: a threshold at or below the scaled mean is at most the
//! stage's largest rate once scaled back, and one that overflows going back is below
//! `-f64::MAX`, as the exact one is, and below every rate either way. Stages whose sums are
//! finite are not taken again, so wherever nothing overflows the scan flags what it flagged
//! before the third pass existed, bit for bit. The rule as Eq. 9 reads (without bounds)
//! uses the same thresholds, so the rows flagged are still those of the two-pass rule; the
//! tests check that rates scaled up by a power of two until they overflow flag the rows
//! their unscaled values flag.
//!
//! # Close rates
//!
//! A scan of rates waits on its divisions: on Intel's cores a division of `f64` takes
//! longer than reading its two operands (`docs/scan-measurements.md`). Where the CPU has
//! AVX-512, the first pass of a stage of one group takes its rates from a reciprocal
//! estimate refined by a Newton-Raphson step instead, each within `d = 2^-27` of Eq. 7's
//! rate relatively, plus `e = 2^-1060` (the bound is worked in the kernel's docs,
//! `scan/kernels.rs`, `fill_close_rates_adding`). The bounds then allow for it:
//! - The mean. The stage's sums of exact and of close rates differ by at most
//!   `d sum |PR| + N e` before rounding, and each rounds within `gamma_N sum |PR|`; so the
//!   two means are within `(d + (2N + 3) u) M1 + e`, to first order, with
//!   `M1 = (1/N) sum |PR|`. The rates are at least 0, so `M1` is their mean, within that
//!   of the close mean; `sqrt(M2)` bounds it too, but only where the squares do not
//!   underflow (rates near `2^-600` have squares of 0, and a mean tens of units in the last
//!   place from the exact one, the tests check). The bounds take the thresholds at the mean
//!   less and plus `E = (2d + (4N + 32) u) max(|mean|, sqrt(M2)) + 2^-1000`, about twice
//!   that.
//! - The standard deviation. Moving each rate by at most `d |PR_i| + e` moves the
//!   standard deviation by at most the root mean square of the moves (the triangle
//!   inequality, for the rates' distances to their mean taken as one vector), at most
//!   `d sqrt(M2) + e`. The bounds take the standard deviations at either end of the
//!   variance's margin less and plus `S = 2 d sqrt(M2) + 2 e`, `M2` the close rates' mean
//!   square. A bound on the variance instead, `2 d M2` to first order, would move a
//!   threshold by up to `d M2 / SD`: by a hundredth of the mean where the standard
//!   deviation is a millionth of it, and every row would be left to exact rates. Without
//!   `S`, the bars of a stage whose rates are half exact and half as far below as a
//!   Newton step puts them miss the exact threshold at `alpha` 1000 (the tests).
//! - The rows. A close rate below `low - 2 d |low| - 2 e` is an exact rate below `low`, and
//!   one at or above `high + 2 d |high| + 2 e` an exact rate at or above `high`.
//!
//! If every row is settled so, the rows flagged are the two-pass rule's. If not, the
//! first pass is made again with exact rates, and the scan goes on as above: only the
//! rows' answers come from the close rates, never a rate or a sum that a later pass uses.
//! That happens where a rate lies within the bounds' width of its stage's threshold, as
//! where the rates are all equal; the tests plant rates within a few units in the last
//! place of the threshold, with `alpha = 0` among them (where the bounds of exact rates
//! are the mean itself, and the close bars the mean less and plus `E`, widened), and check
//! that the rows flagged are the two-pass rule's; and stages whose close mean, or close
//! standard deviation, lies as far from the exact one as a Newton step puts it.

use serde::{Deserialize, Serialize};
use straggler_model::Snapshot;

use crate::error::check_param;
use crate::scan::{
    CLOSE_ABSOLUTE, CLOSE_RELATIVE, CloseRates, GroupSum, GroupSums, Rates, RowBlocks, Summands,
    Values, map_rows, means, originals_progress, rows_below, rows_below_settling,
};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`LateDetector`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LateParams {
    /// Standard deviations below the mean rate (`alpha`, the slow task threshold; 1.0 in
    /// the paper and Hadoop). Finite, `>= 0`.
    pub alpha: f64,
    /// How the scan uses threads.
    pub parallelism: Parallelism,
}

impl Default for LateParams {
    fn default() -> Self {
        LateParams {
            alpha: 1.0,
            parallelism: Parallelism::default(),
        }
    }
}

impl LateParams {
    /// Checks the parameters: `alpha` finite and `>= 0`.
    pub fn check(self) -> Result<CheckedLateParams, DetectError> {
        check_param("alpha", self.alpha, "finite and >= 0", |a| a >= 0.0)?;
        Ok(CheckedLateParams(self))
    }
}

/// [`LateParams`] that passed [`LateParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedLateParams(LateParams);

/// The LATE detector's slow-task rule.
#[derive(Debug, Clone, Default)]
pub struct LateDetector {
    params: LateParams,
    /// Buffers kept between scans.
    rates: Vec<f64>,
    sums: GroupSums,
    means: Vec<f64>,
    /// Each stage's bounds of its threshold, then (after a second pass) the threshold.
    low: Vec<f64>,
    high: Vec<f64>,
    thresholds: Vec<f64>,
    square_sums: GroupSums,
    blocks: RowBlocks,
    /// Scans since construction that needed the second pass (see the module docs; `reset`
    /// leaves it: it counts work, not what a scan finds).
    second_passes: u64,
    /// Scans since construction whose close rates left a row unsettled, so that their
    /// first pass was made again with exact rates (see the module docs, "Close rates").
    redone_exactly: u64,
    /// The third pass, for stages whose sums overflow.
    rescaled: Rescaled,
    /// The progress of originals, copies NaN, when the snapshot has copies.
    originals: Vec<f64>,
}

/// The buffers of the third pass (see the module docs, "Rates too large to square"),
/// untouched while no stage's sums overflow.
#[derive(Debug, Clone, Default)]
struct Rescaled {
    /// Per stage, the `k` of its factor `2^-k`; 0 for a stage whose sums are finite.
    exponents: Vec<i32>,
    /// Per stage, `2^-k`, or NaN for a stage whose sums are finite (its rows are left
    /// out of the third pass's sums).
    factors: Vec<f64>,
    rates: Vec<f64>,
    sums: GroupSums,
    means: Vec<f64>,
}

/// `2^k`, for `k` in `-1022..=1023`: exact, from its bits.
fn power_of_two(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// The `k` such that `largest x 2^-k` is in `[2^447, 2^448)`, for a normal `largest`; 0 or
/// less when `largest` is below `2^448` already.
fn downscale_exponent(largest: f64) -> i32 {
    let exponent = ((largest.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    exponent - 447
}

impl Rescaled {
    /// Replaces the thresholds of the stages whose sum of rates (`sums`) or of squared
    /// distances to the mean (`squares`) is infinite by those of their rates scaled down by
    /// a power of two, scaled back up (see the module docs). The rates are finite, so only
    /// an overflow makes a sum infinite.
    #[allow(clippy::too_many_arguments)]
    fn fix_overflows(
        &mut self,
        (sums, squares): (&[GroupSum], &[GroupSum]),
        rates: &[f64],
        stages: &[u32],
        group_count: usize,
        parallelism: Parallelism,
        alpha: f64,
        thresholds: &mut [f64],
    ) {
        self.exponents.clear();
        self.exponents
            .extend(sums.iter().zip(squares).map(|(sum, square)| {
                let finite = sum.sum.is_finite() && square.sum.is_finite();
                match sum.count > 0 && !finite {
                    true => downscale_exponent(sum.max).max(0),
                    false => 0,
                }
            }));
        if self.exponents.iter().all(|&k| k == 0) {
            return;
        }
        self.factors.clear();
        self.factors.extend(self.exponents.iter().map(|&k| match k {
            0 => f64::NAN,
            k => power_of_two(-k),
        }));
        let factors = &self.factors;
        let factor_of = |row: usize| match group_count {
            1 => factors[0],
            _ => factors[stages[row] as usize],
        };
        map_rows(rates.len(), parallelism, &mut self.rates, |row| {
            rates[row] * factor_of(row)
        });
        let scaled = &self.rates[..];
        let sums = self
            .sums
            .compute(stages, scaled, group_count, parallelism, Summands::Values);
        means(sums, &mut self.means);
        let squares = self.sums.compute(
            stages,
            scaled,
            group_count,
            parallelism,
            Summands::SquaredDeviations {
                centres: &self.means,
            },
        );
        for (stage, (&k, square)) in self.exponents.iter().zip(squares).enumerate() {
            if let (true, Some(variance)) = (k > 0, square.mean()) {
                let threshold = self.means[stage] - alpha * variance.sqrt();
                thresholds[stage] = threshold * power_of_two(k);
            }
        }
    }
}

/// The bounds `(low, high)` of a stage's threshold `mean - alpha * sqrt(V2)`, from the
/// one-pass variance (see the module docs): `count` rates of mean `mean` (as
/// `GroupSum::mean` gives it) whose squares sum to `square_sum`. A stage without a rate
/// has no threshold (`-inf`, as the two-pass rule); bounds that are not finite (an overflow)
/// are `(-inf, inf)`, which leave every row to the second pass. The margin's last term is
/// `2^-1022` (`f64::MIN_POSITIVE`), for results too small to be normal.
fn threshold_bounds(mean: f64, count: u64, square_sum: f64, alpha: f64) -> (f64, f64) {
    if count == 0 {
        return (f64::NEG_INFINITY, f64::NEG_INFINITY);
    }
    bounds_around(mean, count as i64 as f64, square_sum, alpha, 0.0, 0.0)
}

/// [`threshold_bounds`] of `n > 0` rates whose mean is within `mean_error` of `mean` and
/// whose standard deviation is within `sd_error` of that of the one-pass variance: the
/// thresholds at `mean - mean_error` and the largest standard deviation, and at
/// `mean + mean_error` and the least.
fn bounds_around(
    mean: f64,
    n: f64,
    square_sum: f64,
    alpha: f64,
    mean_error: f64,
    sd_error: f64,
) -> (f64, f64) {
    let mean_square = square_sum / n;
    let variance = mean_square - mean * mean;
    // The relative errors, and the absolute ones of results too small to be normal.
    let margin = 16.0 * (n + 4.0) * (f64::EPSILON / 2.0) * mean_square + f64::MIN_POSITIVE;
    let (least, most) = ((variance - margin).max(0.0), variance + margin);
    if !(mean.is_finite() && most.is_finite() && mean_error.is_finite() && sd_error.is_finite()) {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    (
        mean - mean_error - alpha * (most.sqrt() + sd_error),
        mean + mean_error - alpha * (least.sqrt() - sd_error).max(0.0),
    )
}

/// [`threshold_bounds`] for rates close to Eq. 7's: each within `d = CLOSE_RELATIVE` of
/// the exact rate relatively, plus `e = CLOSE_ABSOLUTE` (see the module docs, "Close
/// rates"). The stage's mean of exact rates is within `E = (2d + (4N + 32) u) max(|mean|,
/// sqrt(M2)) + 2^-1000` of `mean` (the rates are at least 0, so `|mean|` bounds the mean
/// of their magnitudes where `sqrt(M2)` underflows), and its standard deviation within
/// `S = 2 d sqrt(M2) + 2 e` of the close rates' (`M2` their mean square); the bounds are
/// those of the thresholds at `mean - E` and `mean + E`, the standard deviations moved
/// by `S`; then the low bound is lowered and the high one raised by `2 d |bound| + 2 e`, so
/// that a close rate below the first is an exact rate below the low bound, and one at or
/// above the second an exact rate at or above the high bound.
fn close_bars(mean: f64, count: u64, square_sum: f64, alpha: f64) -> (f64, f64) {
    /// `2^-1000`.
    const MEAN_ABSOLUTE: f64 = f64::from_bits((1023 - 1000) << 52);
    if count == 0 {
        return (f64::NEG_INFINITY, f64::NEG_INFINITY);
    }
    let n = count as i64 as f64;
    let (d, e) = (CLOSE_RELATIVE, CLOSE_ABSOLUTE);
    let root_mean_square = (square_sum / n).sqrt();
    let magnitude = mean.abs().max(root_mean_square);
    let mean_error =
        (2.0 * d + (4.0 * n + 32.0) * (f64::EPSILON / 2.0)) * magnitude + MEAN_ABSOLUTE;
    let sd_error = 2.0 * d * root_mean_square + 2.0 * e;
    let (low, high) = bounds_around(mean, n, square_sum, alpha, mean_error, sd_error);
    let widen = |bound: f64| 2.0 * d * bound.abs() + 2.0 * e;
    (low - widen(low), high + widen(high))
}

impl LateDetector {
    /// A detector with checked parameters.
    pub fn new(params: CheckedLateParams) -> Self {
        LateDetector {
            params: params.0,
            ..LateDetector::default()
        }
    }

    /// The parameters.
    pub fn params(&self) -> &LateParams {
        &self.params
    }
}

impl Detector for LateDetector {
    fn name(&self) -> &str {
        "late"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let parallelism = self.params.parallelism;
        parallelism.on_pool(snapshot.len(), || {
            self.scan_with(snapshot, findings, true);
        });
    }
}

impl LateDetector {
    /// The first pass: the rates (`rates`, Eq. 7) into `self.rates` with their stages'
    /// sums and sums of squares, the stages' means (Eq. 8), the bars of the candidates and
    /// of the settled rows into `self.high` and `self.low`, and the candidates appended to
    /// `out`; returns how many of them are unsettled. The bars are the bounds of each
    /// stage's threshold ([`threshold_bounds`]), widened where a rate may be close to Eq.
    /// 7's rather than equal to it ([`close_bars`]).
    fn first_pass(
        &mut self,
        stages: &[u32],
        rates: &(impl Values + ?Sized),
        group_count: usize,
        out: &mut Vec<u32>,
    ) -> usize {
        let parallelism = self.params.parallelism;
        self.sums.compute_storing(
            stages,
            rates,
            group_count,
            parallelism,
            Summands::Values,
            &mut self.rates,
            true,
        );
        let bars = match rates.approximated() {
            false => threshold_bounds,
            true => close_bars,
        };
        let (sums, squares) = self.sums.sums_and_squares();
        means(sums, &mut self.means);
        let alpha = self.params.alpha;
        self.low.clear();
        self.high.clear();
        for ((s, sq), &mean) in sums.iter().zip(squares).zip(&self.means) {
            let (low, high) = bars(mean, s.count, sq.sum, alpha);
            self.low.push(low);
            self.high.push(high);
        }
        rows_below_settling::<true>(
            &self.rates,
            stages,
            &self.high,
            &self.low,
            parallelism,
            &mut self.blocks,
            out,
        )
    }

    /// [`Detector::scan`]; without `use_bounds`, the rule as Eq. 9 reads: the second pass
    /// always made and every row compared with its stage's threshold (which the tests
    /// compare the scan with).
    fn scan_with(&mut self, snapshot: &Snapshot, findings: &mut Findings, use_bounds: bool) {
        // Each task once, at its original: a copy's progress NaN, so its rate is too.
        let mut originals = std::mem::take(&mut self.originals);
        let progress = originals_progress(snapshot, &mut originals);
        self.scan_progress(snapshot, progress, findings, use_bounds);
        self.originals = originals;
    }

    /// [`LateDetector::scan_with`] with the progress of each row's task (`progress`).
    fn scan_progress(
        &mut self,
        snapshot: &Snapshot,
        progress: &[f64],
        findings: &mut Findings,
        use_bounds: bool,
    ) {
        let now = snapshot.now_secs();
        let start = snapshot.start_secs();
        let stages = snapshot.stage_indices();
        let parallelism = self.params.parallelism;
        // Eq. 7, once per row, stored as Eq. 8's sums are taken; NaN marks "no rate" and
        // fails every comparison below.
        let rates = Rates {
            now_secs: now,
            progress,
            weights: None,
            start_secs: start,
        };
        let group_count = snapshot.stages().len();
        let first = findings.rows().len();
        let rows = findings.rows_mut();
        // With the bounds, first with rates close to Eq. 7's where the CPU computes those
        // faster (see the module docs, "Close rates"); again with exact ones if that
        // leaves a row unsettled.
        let unsettled = if use_bounds {
            let close = CloseRates::new(rates);
            let unsettled = self.first_pass(stages, &close, group_count, rows);
            if unsettled == 0 {
                return;
            }
            if close.approximated() {
                self.redone_exactly += 1;
                rows.truncate(first);
                self.first_pass(stages, &rates, group_count, rows)
            } else {
                unsettled
            }
        } else {
            self.first_pass(stages, &rates, group_count, rows)
        };
        if use_bounds && unsettled == 0 {
            return;
        }
        let (sums, _) = self.sums.sums_and_squares();
        let rates = &self.rates[..];
        let alpha = self.params.alpha;
        // The second pass: Eq. 9's squared distances to the mean, and the thresholds.
        self.second_passes += 1;
        let squares = self.square_sums.compute(
            stages,
            rates,
            group_count,
            parallelism,
            Summands::SquaredDeviations {
                centres: &self.means,
            },
        );
        self.thresholds.clear();
        self.thresholds
            .extend(self.means.iter().zip(squares).map(|(&mean, sq)| {
                sq.mean()
                    .map_or(f64::NEG_INFINITY, |variance| mean - alpha * variance.sqrt())
            }));
        // The stages whose sums overflowed, if any, taken again on scaled rates.
        self.rescaled.fix_overflows(
            (sums, squares),
            rates,
            stages,
            group_count,
            parallelism,
            alpha,
            &mut self.thresholds,
        );
        let stage_of = |row: u32| match group_count {
            1 => 0,
            _ => stages[row as usize] as usize,
        };
        let rows = findings.rows_mut();
        if !use_bounds {
            // The rule as Eq. 9 reads, every row against its stage's threshold.
            rows.truncate(first);
            rows_below(
                rates,
                stages,
                &self.thresholds,
                parallelism,
                &mut self.blocks,
                rows,
            );
            return;
        }
        let mut kept = first;
        for i in first..rows.len() {
            let row = rows[i];
            rows[kept] = row;
            kept += usize::from(rates[row as usize] < self.thresholds[stage_of(row)]);
        }
        rows.truncate(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{Row, SplitMix64, build_snapshot, straggling_stage};
    use crate::scan::originals_progress;

    fn late(alpha: f64, parallelism: Parallelism) -> LateDetector {
        LateDetector::new(LateParams { alpha, parallelism }.check().expect("alpha"))
    }

    /// The rows flagged, with the bounds and by the rule as Eq. 9 reads; and each stage's
    /// two-pass threshold checked to lie between its bounds.
    fn both_ways(detector: &mut LateDetector, snapshot: &Snapshot) -> (Vec<u32>, Vec<u32>) {
        let mut ways = [Findings::default(), Findings::default()];
        for (findings, use_bounds) in ways.iter_mut().zip([true, false]) {
            detector.scan_with(snapshot, findings, use_bounds);
        }
        let bounds = detector.low.iter().zip(&detector.high);
        for (stage, (&t, (&low, &high))) in detector.thresholds.iter().zip(bounds).enumerate() {
            let between = t.is_nan() || (low <= t && t <= high);
            assert!(between, "stage {stage}: {t} not in [{low}, {high}]");
        }
        let [bounded, two_pass] = ways.map(|f| f.rows().to_vec());
        (bounded, two_pass)
    }

    #[test]
    fn a_rate_at_the_threshold_takes_the_second_pass() {
        // Rates 0.25 and 0.75 (progress over one second): mean 0.5, SD 0.25, threshold
        // 0.25 exactly (alpha = 1), which the rate 0.25 is not below. The one-pass
        // variance cannot tell, so the second pass settles it: nothing flagged.
        let rows: [Row; 2] = [(0, 0, 9.0, 0.25, 1.0), (0, 1, 9.0, 0.75, 1.0)];
        let snapshot = build_snapshot(10.0, 2, 1, rows).expect("valid rows");
        let mut detector = late(1.0, Parallelism::Sequential);
        let mut findings = Findings::default();
        detector.scan(&snapshot, &mut findings);
        assert_eq!((findings.rows(), detector.second_passes), (&[][..], 1));
        // With a third rate at the mean, the SD falls to sqrt(0.125 / 3) = 0.204 and the
        // threshold rises to 0.296: the rate 0.25 is flagged, either way.
        let rows: [Row; 3] = [
            (0, 0, 9.0, 0.25, 1.0),
            (0, 1, 9.0, 0.75, 1.0),
            (0, 2, 9.0, 0.5, 1.0),
        ];
        let snapshot = build_snapshot(10.0, 3, 1, rows).expect("valid rows");
        let (bounded, two_pass) = both_ways(&mut detector, &snapshot);
        assert_eq!((&bounded[..], &two_pass[..]), (&[0][..], &[0][..]));
    }

    /// Rows whose rate lies within a few units in the last place of their stage's
    /// threshold, which close rates cannot settle: the first pass is made again with exact
    /// rates, and the rows flagged are the two-pass rule's.
    #[test]
    fn rates_at_the_threshold_are_settled_with_exact_rates() {
        let mut rng = SplitMix64(13);
        let (now, mut redone) = (1000.0, 0);
        for case in 0..40 {
            let n = 64 + 7 * case;
            let start: Vec<f64> = (0..n).map(|_| now - 50.0 - 100.0 * rng.unit()).collect();
            let mut progress: Vec<f64> = (0..n).map(|_| 0.2 + 0.7 * rng.unit()).collect();
            let alpha = [0.0, 0.5, 1.0][case % 3];
            let make = |progress: &[f64]| {
                let rows = progress
                    .iter()
                    .zip(&start)
                    .map(|(&p, &s)| (0, 0, s, p, 1.0));
                build_snapshot(now, 4, 1, rows).expect("valid rows")
            };
            let mut detector = late(alpha, Parallelism::Sequential);
            // Row 3's rate moved onto the threshold, again as the threshold moves with it.
            for _ in 0..6 {
                detector.scan_with(&make(&progress), &mut Findings::default(), false);
                progress[3] = detector.thresholds[0] * (now - start[3]);
            }
            assert!((0.0..1.0).contains(&progress[3]), "case {case}");
            // Then a few units in the last place either way.
            let at = progress[3].to_bits();
            for step in 0..7 {
                progress[3] = f64::from_bits(at + step - 3);
                let before = detector.redone_exactly;
                let (bounded, two_pass) = both_ways(&mut detector, &make(&progress));
                assert_eq!(bounded, two_pass, "case {case}, step {step}");
                redone += detector.redone_exactly - before;
            }
        }
        // Where the rates are close, some of those rows were left unsettled.
        assert_eq!(redone > 0, crate::scan::close_rates_differ(), "{redone}");
    }

    /// 1024 rows of rates near `2^-600`, whose squares underflow to 0 (so that the sum of
    /// squares says nothing of the rates' size), each chosen among rows whose close rate is
    /// off the exact one so that, lane by lane, the sum of the close rates rounds one way
    /// (`up`) where that of the exact ones rounds the other: the two means end up a few
    /// units in the last place apart where the close sums round up (a Newton step's
    /// quotients are at most the exact ones but for their rounding), and further apart than
    /// the sums' rounding alone would put them where they round down.
    fn rows_whose_close_sums_round_apart(seed: u64, up: bool) -> Vec<Row> {
        let mut rng = SplitMix64(seed);
        // Progress near 2^-301 over elapsed times near 2^299 (now 0, so that the elapsed
        // times are exact).
        let pool = 1 << 18;
        let progress: Vec<f64> = (0..pool)
            .map(|_| (1.0 + rng.unit()) * 2f64.powi(-301))
            .collect();
        let start: Vec<f64> = (0..pool)
            .map(|_| -(1.0 + rng.unit()) * 2f64.powi(299))
            .collect();
        let rates = Rates {
            now_secs: 0.0,
            progress: &progress,
            weights: None,
            start_secs: &start,
        };
        let mut close = vec![0.0; pool];
        crate::scan::fill_close_rates(&rates, &mut close);
        let differing: Vec<usize> = (0..pool)
            .filter(|&i| close[i] != progress[i] / -start[i])
            .collect();
        let direction = if up { 1.0 } else { -1.0 };
        let (mut exact_lanes, mut close_lanes) = ([0.0f64; 8], [0.0f64; 8]);
        (0..1024)
            .map(|row| {
                let lane = row % 8;
                let (exact_sum, close_sum) = (exact_lanes[lane], close_lanes[lane]);
                let apart = |i: usize| {
                    direction * ((close_sum + close[i]) - (exact_sum + progress[i] / -start[i]))
                };
                let &best = differing
                    .iter()
                    .max_by(|&&a, &&b| apart(a).total_cmp(&apart(b)))
                    .expect("rows whose close rate differs");
                exact_lanes[lane] += progress[best] / -start[best];
                close_lanes[lane] += close[best];
                (0, 0, start[best], progress[best], 1.0)
            })
            .collect()
    }

    /// 2^18 elapsed times from 400 to 900 s (from `seed`), sorted by how far below the
    /// exact rate a close rate over them lies, relatively (a Newton step's quotients are at
    /// most the exact ones, up to their rounding), the nearest first; `None` where the
    /// CPU's reciprocal estimates are too close to the exact ones for the tests that take
    /// the two ends to build their stages: the nearest 512 must lie within `2^-40` and
    /// the furthest 512 more than `2^-30` below (Intel's manual allows `2^-14` for an
    /// estimate, `2^-28` after the step; this Xeon's furthest lie near `0.8 x 2^-28`).
    fn elapsed_by_newton_error(seed: u64) -> Option<Vec<f64>> {
        let mut rng = SplitMix64(seed);
        let mut elapsed: Vec<f64> = (0..1 << 18).map(|_| 400.0 + 500.0 * rng.unit()).collect();
        let ones = vec![1.0; elapsed.len()];
        let start: Vec<f64> = elapsed.iter().map(|e| -e).collect();
        let rates = Rates {
            now_secs: 0.0,
            progress: &ones,
            weights: None,
            start_secs: &start,
        };
        let mut close = vec![0.0; elapsed.len()];
        crate::scan::fill_close_rates(&rates, &mut close);
        let below = |(e, c): (f64, f64)| (1.0 / e - c) * e;
        let mut pairs: Vec<(f64, f64)> = elapsed.iter().copied().zip(close).collect();
        pairs.sort_by(|&a, &b| below(a).total_cmp(&below(b)));
        let len = pairs.len();
        let usable =
            below(pairs[511]) <= 2f64.powi(-40) && below(pairs[len - 512]) > 2f64.powi(-30);
        if !usable {
            eprintln!("this CPU's reciprocal estimates are too close to build the stage");
            return None;
        }
        elapsed.clear();
        elapsed.extend(pairs.iter().map(|&(e, _)| e));
        Some(elapsed)
    }

    /// Adds to `rows` (1024 of one stage) a row over `elapsed` whose rate lies between
    /// the mean of the stage's exact rates and that of its close ones, in a segment of its
    /// own (rows are summed by 1024, and a segment's last rows are exact), moved there as
    /// the means move with it; the snapshot, and the row's rate.
    fn with_a_row_between_the_means(rows: &mut Vec<Row>, elapsed: f64) -> (Snapshot, f64) {
        rows.push((0, 0, -elapsed, 0.0, 1.0));
        let make = |rows: &[Row]| build_snapshot(0.0, 1, 1, rows.to_vec()).expect("valid");
        for _ in 0..8 {
            let (exact, close) = exact_and_close_means(&make(rows));
            rows[1024].3 = 0.5 * (exact + close) * elapsed;
        }
        (make(rows), rows[1024].3 / elapsed)
    }

    /// The stage's mean of exact rates and that of close ones, with `alpha` 0.
    fn exact_and_close_means(snapshot: &Snapshot) -> (f64, f64) {
        let mut detector = late(0.0, Parallelism::Sequential);
        detector.scan_with(snapshot, &mut Findings::default(), false);
        let exact = detector.means[0];
        close_first_pass(&mut detector, snapshot);
        (exact, detector.means[0])
    }

    /// `detector`'s first pass over `snapshot` (one stage) with close rates, which must
    /// differ from the exact ones; the bars of the stage.
    fn close_first_pass(detector: &mut LateDetector, snapshot: &Snapshot) -> (f64, f64) {
        let mut originals = Vec::new();
        let close = CloseRates::new(Rates {
            now_secs: snapshot.now_secs(),
            progress: originals_progress(snapshot, &mut originals),
            weights: None,
            start_secs: snapshot.start_secs(),
        });
        detector.first_pass(snapshot.stage_indices(), &close, 1, &mut Vec::new());
        assert!(close.approximated(), "close rates");
        (detector.low[0], detector.high[0])
    }

    /// Rates whose squares underflow, where the mean of close rates lies far from that of
    /// exact ones (`rows_whose_close_sums_round_apart`), and one more row whose rate lies
    /// between the two means: with `alpha` 0 the threshold is the exact mean, and the row
    /// is on the other side of the close one. The close bars must leave it unsettled: the
    /// rows flagged are the two-pass rule's.
    #[test]
    fn a_rate_between_the_close_and_the_exact_mean_is_settled_exactly() {
        if !crate::scan::close_rates_differ() {
            return;
        }
        for (seed, up) in [(21, true), (22, false)] {
            let mut rows = rows_whose_close_sums_round_apart(seed, up);
            // The last row, in a segment of its own (rows are summed by 1024), moved
            // between the two means as they move with it.
            let elapsed = 1.5 * 2f64.powi(298);
            let (snapshot, rate) = with_a_row_between_the_means(&mut rows, elapsed);
            // The means differ: by a few units in the last place where the close sums
            // round up (a Newton step's quotients are at most the exact ones but for their
            // rounding), by more than the sums' rounding alone allows (`(4N + 32) u
            // |mean|`) where they round down.
            let (exact, close) = exact_and_close_means(&snapshot);
            let case = format!("seed {seed}: means {exact:e}, {close:e}");
            let rounding = (4.0 * 1025.0 + 32.0) * (f64::EPSILON / 2.0) * exact;
            match up {
                true => assert!(close > exact, "{case}"),
                false => assert!(exact - close > rounding, "{case}"),
            }
            assert!(
                (exact.min(close)..exact.max(close)).contains(&rate),
                "{case}"
            );
            for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                let (bounded, two_pass) = both_ways(&mut late(0.0, parallelism), &snapshot);
                let only = |a: &[u32], b: &[u32]| -> Vec<u32> {
                    a.iter().copied().filter(|row| !b.contains(row)).collect()
                };
                assert!(
                    bounded == two_pass,
                    "{case}: flagged only with the bounds {:?}, only by the two-pass rule {:?}",
                    only(&bounded, &two_pass),
                    only(&two_pass, &bounded)
                );
            }
        }
    }

    /// A stage whose close rates all lie as far below the exact ones as a Newton step puts
    /// them, so that the close mean lies below the exact one by far more than the sums'
    /// rounding, and one more row whose rate lies between the two means: with `alpha` 0
    /// the threshold is the exact mean, which the close bars must hold (the mean's error
    /// `E` allows for `d`, and the rows' widening does too), and the rows flagged are the
    /// two-pass rule's.
    #[test]
    fn close_bars_hold_the_exact_mean_where_a_newton_step_moves_it() {
        if !crate::scan::close_rates_differ() {
            return;
        }
        // The 64 elapsed times, of 2^18, whose close rate is furthest below the exact one.
        let Some(elapsed_times) = elapsed_by_newton_error(41) else {
            return;
        };
        let furthest = &elapsed_times[elapsed_times.len() - 64..];
        // 1024 rows of rate 1e-3 over those times; the last row, in a segment of its own
        // (rows are summed by 1024, and a segment's last rows are exact), moved between
        // the two means as they move with it.
        let mut rows: Vec<Row> = (0..1024)
            .map(|i| {
                let elapsed = furthest[i % 64];
                (0, 0, -elapsed, 1e-3 * elapsed, 1.0)
            })
            .collect();
        let (snapshot, rate) = with_a_row_between_the_means(&mut rows, 600.0);
        // The means lie further apart than the sums' rounding allows (`(4N + 32) u
        // |mean|`), by most of a Newton step's error.
        let (exact, close) = exact_and_close_means(&snapshot);
        let case = format!("means {exact:e}, {close:e}");
        assert!(exact - close > 2f64.powi(-30) * exact, "{case}");
        assert!(close < rate && rate < exact, "{case}");
        // The close bars hold the exact threshold, the exact mean.
        let mut detector = late(0.0, Parallelism::Sequential);
        let (low, high) = close_first_pass(&mut detector, &snapshot);
        assert!(
            low <= exact && exact <= high,
            "{case}: bars {low:e}, {high:e}"
        );
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let (bounded, two_pass) = both_ways(&mut late(0.0, parallelism), &snapshot);
            assert!(two_pass.contains(&1024), "{case}");
            assert_eq!(bounded, two_pass, "{case}");
        }
    }

    /// A stage whose close rates have a smaller standard deviation than its exact ones
    /// (the rates of one half exact, of the other as far below as a Newton step puts
    /// them), with `alpha` 1000: the threshold of the close rates lies further from the
    /// exact one than the mean's error, the rows' widening and the variance's rounding
    /// cover, and the close bars must still hold the exact threshold (the standard
    /// deviation's error `S` does).
    #[test]
    fn close_bars_hold_the_exact_threshold_where_the_standard_deviation_moves() {
        if !crate::scan::close_rates_differ() {
            return;
        }
        let (alpha, half) = (1000.0, 512);
        // Elapsed times whose close rate is nearest the exact one, and those whose close
        // rate is furthest below it.
        let Some(elapsed_times) = elapsed_by_newton_error(31) else {
            return;
        };
        let (nearest, furthest) = (
            &elapsed_times[..half],
            &elapsed_times[elapsed_times.len() - half..],
        );
        let rates = |progress, start| Rates {
            now_secs: 0.0,
            progress,
            weights: None,
            start_secs: start,
        };
        // Rates 1% below 1e-3 with the first, 1% above with the others.
        let row = |elapsed: f64, rate: f64| (0, 0, -elapsed, rate * elapsed, 1.0);
        let rows = nearest.iter().map(|&e| row(e, 0.99e-3));
        let rows: Vec<Row> = rows
            .chain(furthest.iter().map(|&e| row(e, 1.01e-3)))
            .collect();
        let snapshot = build_snapshot(0.0, 1, 1, rows).expect("valid rows");
        // The thresholds of the exact rates and of the close ones, in two passes.
        let mut detector = late(alpha, Parallelism::Sequential);
        detector.scan_with(&snapshot, &mut Findings::default(), false);
        let exact = detector.thresholds[0];
        let mut close = vec![0.0; snapshot.len()];
        crate::scan::fill_close_rates(
            &rates(snapshot.progress(), snapshot.start_secs()),
            &mut close,
        );
        let n = close.len() as f64;
        let mean = close.iter().sum::<f64>() / n;
        let variance = close.iter().map(|c| (c - mean) * (c - mean)).sum::<f64>() / n;
        let moved = mean - alpha * variance.sqrt() - exact;
        // Further than the mean's error (`2 d` of about 1e-3), the widening (`2 d` of
        // about 9e-3) and the variance's rounding (`alpha 16 (N + 4) u M2 / 2 SD`).
        let (d, u) = (CLOSE_RELATIVE, f64::EPSILON / 2.0);
        let rounding = alpha * 16.0 * (n + 4.0) * u * 1e-6 / (2.0 * 1e-5);
        let case = format!("exact threshold {exact:e}, close one {moved:e} above it");
        assert!(moved > 2.0 * d * 1e-3 + 2.0 * d * 9e-3 + rounding, "{case}");
        // The close bars hold the exact threshold.
        let (low, high) = close_first_pass(&mut detector, &snapshot);
        assert!(
            low <= exact && exact <= high,
            "{case}: bars {low:e}, {high:e}"
        );
    }

    #[test]
    fn the_bounds_flag_what_the_two_pass_rule_flags() {
        // Snapshots of one and of several stages, rates near one another (a small
        // variance beside a large mean, where the one-pass variance loses most), equal
        // rates, rows with no rate, and the benchmark's straggling stage.
        let mut rng = SplitMix64(7);
        let mut snapshots = Vec::new();
        for (stages, rows, spread) in [
            (1, 50, 1e-6),
            (3, 5000, 0.3),
            (7, 20_000, 1e-9),
            (2, 300, 0.0),
        ] {
            let rows: Vec<Row> = (0..rows)
                .map(|i| {
                    let stage = (i * stages / rows) as u32;
                    // One row in 50 started now: no rate.
                    let start = if i % 50 == 7 {
                        1000.0
                    } else {
                        400.0 + 100.0 * rng.unit()
                    };
                    let rate = 1e-3 * (1.0 + spread * (rng.unit() - 0.5));
                    let progress = ((1000.0 - start) * rate).min(1.0);
                    (stage, (i % 10) as u32, start, progress, 1.0)
                })
                .collect();
            snapshots.push(build_snapshot(1000.0, 10, stages as u32, rows).expect("valid rows"));
        }
        // Rates whose squares are sub-normal, where rounding errors are absolute: pairs
        // that a margin of relative errors alone settled wrongly, one each way.
        for pair in [
            (9.728762221270454e-156, 1.0445270695553923e-155),
            (9.6343642441124e-156, 1.0347433736937232e-155),
        ] {
            let rows = [pair.0, pair.1].map(|rate| (0, 0, 0.0, rate, 1.0));
            snapshots.push(build_snapshot(1.0, 1, 1, rows).expect("valid rows"));
        }
        // Rates from 1e-170 to 1e-150, through the range where squares are sub-normal.
        let rows: Vec<Row> = (0..200)
            .map(|i| (0, 0, 0.0, 10f64.powf(-170.0 + 0.1 * f64::from(i)), 1.0))
            .collect();
        snapshots.push(build_snapshot(1.0, 1, 1, rows).expect("valid rows"));
        snapshots.push(straggling_stage(100_000, 1000, 3).expect("valid rows"));
        for snapshot in &snapshots {
            for alpha in [0.0, 0.5, 1.0, 2.0] {
                for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                    let mut detector = late(alpha, parallelism);
                    let (bounded, two_pass) = both_ways(&mut detector, snapshot);
                    assert_eq!(bounded, two_pass, "{} rows, alpha {alpha}", snapshot.len());
                }
            }
        }
        // The benchmark's stage never needed the second pass.
        let mut detector = late(1.0, Parallelism::default());
        let mut findings = Findings::default();
        detector.scan(snapshots.last().expect("a snapshot"), &mut findings);
        assert_eq!(detector.second_passes, 0);
    }

    #[test]
    fn rates_too_large_to_square_flag_what_their_scaled_down_values_flag() {
        // The progress of each stage's rows. Stage 0: one slow row, flagged. Stage 1: a
        // rate at the threshold (0.25 of 0.25 and 0.75), not flagged. Stage 2: the same
        // with a rate at the mean, which lifts the threshold over 0.25: flagged. Stage 3:
        // 10,000 rates spread evenly from 0.05 to 0.95 (three chunks of rows).
        let mut rng = SplitMix64(11);
        let stages: Vec<Vec<f64>> = vec![
            vec![0.9, 0.8, 0.85, 0.9, 0.1],
            vec![0.25, 0.75],
            vec![0.25, 0.75, 0.5],
            (0..10_000).map(|_| 0.05 + 0.9 * rng.unit()).collect(),
        ];
        // The rows of `huge` stages run for `elapsed` seconds before `now`, the others for
        // one second (`now - 1` rounds to -1: `now` is far below the rounding of 1).
        let snapshot = |now: f64, huge: &[u32]| {
            let rows = stages.iter().enumerate().flat_map(|(stage, progress)| {
                let stage = stage as u32;
                let start = if huge.contains(&stage) {
                    0.0
                } else {
                    now - 1.0
                };
                progress.iter().map(move |&p| (stage, 0, start, p, 1.0))
            });
            build_snapshot(now, 1, stages.len() as u32, rows).expect("valid rows")
        };
        let reference = snapshot(1.0, &[]);
        let mut detector = late(1.0, Parallelism::Sequential);
        let (expected, two_pass) = both_ways(&mut detector, &reference);
        assert_eq!(expected, two_pass);
        // Row 4 of stage 0, row 0 of stage 2 (rows 7 to 9), and about a fifth of stage 3
        // (below its mean 0.5 less its SD 0.26).
        assert_eq!(expected[..2], [4, 7]);
        assert!((1700..2500).contains(&expected.len()), "{}", expected.len());
        // Elapsed times of 2^-997 s (rates near 1e300, whose squares overflow) and of
        // 2^-1023 s, sub-normal (rates up to 2^1023, whose sums overflow too); 2^-500 s
        // overflows nothing. A rate is its progress times a power of two, exactly.
        for exponent in [-500, -997, -1023] {
            let now = 2f64.powi(exponent);
            for huge in [&[0, 1, 2, 3][..], &[0, 2], &[3]] {
                let scaled = snapshot(now, huge);
                for alpha in [0.0, 1.0, 2.0] {
                    for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                        let mut detector = late(alpha, parallelism);
                        let mut unscaled = late(alpha, parallelism);
                        let (bounded, two_pass) = both_ways(&mut detector, &scaled);
                        let (expected, _) = both_ways(&mut unscaled, &reference);
                        let case = format!("2^{exponent} s, stages {huge:?}, alpha {alpha}");
                        assert_eq!(bounded, expected, "{case}");
                        assert_eq!(two_pass, expected, "{case}");
                        // The thresholds of the huge stages are the unscaled ones, scaled.
                        for &stage in huge {
                            let (t, u) = (
                                detector.thresholds[stage as usize],
                                unscaled.thresholds[stage as usize],
                            );
                            assert_eq!(t, u / now, "{case}, stage {stage}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn close_bars_by_hand() {
        // Each case: the stage's mean, count, sum of squares and alpha, and the magnitude
        // of its rates; the bars are the bounds around the mean less and plus
        // E = (2d + (4N + 32) u) max(|mean|, sqrt(M2)) + 2^-1000, the standard deviations
        // moved by S = 2 d sqrt(M2) + 2 e, each bar moved out by 2 d |bar| + 2 e. Rates 1
        // and 3; a thousand rates near 2^-600 whose squares underflow to 0 (E scaled by
        // the mean), with alpha 1 and 0; one rate.
        let u = f64::EPSILON / 2.0;
        let (d, e) = (2f64.powi(-27), 2f64.powi(-1060));
        assert_eq!((CLOSE_RELATIVE, CLOSE_ABSOLUTE), (d, e));
        let widen = |bar: f64| 2.0 * d * bar.abs() + 2.0 * e;
        let tiny = 1.5 * 2f64.powi(-600);
        for (mean, count, square_sum, alpha, magnitude) in [
            (2.0, 2, 10.0, 1.0, 5f64.sqrt()),
            (tiny, 1000, 0.0, 1.0, tiny),
            (tiny, 1000, 0.0, 0.0, tiny),
            (0.5, 1, 0.25, 2.0, 0.5),
        ] {
            let n = count as f64;
            let mean_error = (2.0 * d + (4.0 * n + 32.0) * u) * magnitude + 2f64.powi(-1000);
            let sd_error = 2.0 * d * (square_sum / n).sqrt() + 2.0 * e;
            let (low, high) = bounds_around(mean, n, square_sum, alpha, mean_error, sd_error);
            let expected = (low - widen(low), high + widen(high));
            let case = format!("mean {mean:e}, {count} rates, alpha {alpha}");
            assert_eq!(
                close_bars(mean, count, square_sum, alpha),
                expected,
                "{case}"
            );
            // With alpha 0, the bars lie strictly outside the mean plus or less its error.
            if alpha == 0.0 {
                let (below, above) = (mean - mean_error, mean + mean_error);
                assert!(expected.0 < below && above < expected.1, "{case}");
            }
        }
        // Rates 1 and 3, worked through: one-pass variance 1 within 16 x 6 u x 5 +
        // 2^-1022, standard deviation within S = 2 d sqrt(5) + 2 e, mean 2 within
        // E = (2 d + 40 u) sqrt(5) + 2^-1000.
        let margin = 16.0 * 6.0 * u * 5.0 + f64::MIN_POSITIVE;
        let sd_error = 2.0 * d * 5f64.sqrt() + 2.0 * e;
        let mean_error = (2.0 * d + 40.0 * u) * 5f64.sqrt() + 2f64.powi(-1000);
        let (low, high) = (
            2.0 - mean_error - ((1.0 + margin).sqrt() + sd_error),
            2.0 + mean_error - ((1.0 - margin).sqrt() - sd_error),
        );
        assert_eq!(
            close_bars(2.0, 2, 10.0, 1.0),
            (low - widen(low), high + widen(high))
        );
        // No rate: no threshold, as without close rates.
        let none = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        assert_eq!(close_bars(f64::NAN, 0, 0.0, 1.0), none);
    }

    #[test]
    fn threshold_bounds_by_hand() {
        // Rates 1 and 3: mean 2, mean square 5, one-pass variance 1; margin
        // 16 x 6 x 2^-53 x 5 + 2^-1022; alpha 1.
        let (low, high) = threshold_bounds(2.0, 2, 10.0, 1.0);
        let margin = 16.0 * 6.0 * (f64::EPSILON / 2.0) * 5.0 + f64::MIN_POSITIVE;
        assert_eq!(low, 2.0 - (1.0 + margin).sqrt());
        assert_eq!(high, 2.0 - (1.0 - margin).sqrt());
        assert!(low < 1.0 && 1.0 < high);
        // No rate: no threshold. An overflow: no bound.
        assert_eq!(
            threshold_bounds(f64::NAN, 0, 0.0, 1.0),
            (f64::NEG_INFINITY, f64::NEG_INFINITY)
        );
        assert_eq!(
            threshold_bounds(1e300, 2, f64::INFINITY, 1.0),
            (f64::NEG_INFINITY, f64::INFINITY)
        );
    }
}
