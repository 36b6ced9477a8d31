//! LATE's slow-task rule as the seed paper uses it (Section 5.5, Eqs. 7-10).
//!
//! The progress rate of an attempt is `PR = PS / (t_now - t_start)` (Eq. 7). With the mean
//! `mean(PR)` (Eq. 8) and the population standard deviation `SD` (Eq. 9) of the rates of
//! the running attempts of its stage, an attempt is a straggler iff
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
//! the statistics and never flagged.

use serde::{Deserialize, Serialize};
use straggler_model::Snapshot;

use crate::error::check_param;
use crate::scan::{GroupSums, Rates, RowBlocks, Summands, means, rows_below};
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
    thresholds: Vec<f64>,
    blocks: RowBlocks,
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
        let now = snapshot.now_secs();
        let (progress, start) = (snapshot.progress(), snapshot.start_secs());
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
        let sums = self.sums.compute_storing(
            stages,
            &rates,
            group_count,
            parallelism,
            Summands::Values,
            &mut self.rates,
        );
        let rates = &self.rates[..];
        means(sums, &mut self.means);
        let means = &self.means;
        let squares = self.sums.compute(
            stages,
            rates,
            group_count,
            parallelism,
            Summands::SquaredDeviations { centres: means },
        );
        self.thresholds.clear();
        self.thresholds.extend(
            means
                .iter()
                .zip(squares)
                .map(|(&mean, sq)| match sq.mean() {
                    Some(variance) => mean - self.params.alpha * variance.sqrt(),
                    None => f64::NEG_INFINITY,
                }),
        );
        rows_below(
            rates,
            stages,
            &self.thresholds,
            parallelism,
            &mut self.blocks,
            findings.rows_mut(),
        );
    }
}
