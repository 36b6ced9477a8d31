//! Default: Dean and Ghemawat's progress-gap rule (seed paper, Section 5.5, Eq. 6).
//!
//! An attempt is a straggler iff its progress score is below the mean progress score of the
//! running tasks of its stage minus a gap (0.2 by default):
//!
//! ```text
//! PS_j < (1/N) sum_i PS_i - gap
//! ```
//!
//! `N` counts tasks ("the number of total tasks within the same category", Eq. 6), each
//! once, at its original attempt: a speculative copy is not a task of its own, and is
//! neither in the mean nor flagged (a task is copied once).

use serde::{Deserialize, Serialize};
use straggler_model::Snapshot;

use crate::error::check_param;
use crate::scan::{GroupSums, RowBlocks, Summands, means, originals_progress, rows_below};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`DefaultDetector`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DefaultParams {
    /// The progress gap below the stage mean (paper and Hadoop 1: 0.2). In `[0, 1]`.
    pub gap: f64,
    /// How the scan uses threads.
    pub parallelism: Parallelism,
}

impl Default for DefaultParams {
    fn default() -> Self {
        DefaultParams {
            gap: 0.2,
            parallelism: Parallelism::default(),
        }
    }
}

impl DefaultParams {
    /// Checks the parameters: `gap` finite and in `[0, 1]`.
    pub fn check(self) -> Result<CheckedDefaultParams, DetectError> {
        check_param("gap", self.gap, "in [0, 1]", |g| (0.0..=1.0).contains(&g))?;
        Ok(CheckedDefaultParams(self))
    }
}

/// [`DefaultParams`] that passed [`DefaultParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedDefaultParams(DefaultParams);

/// The Default detector (Dean and Ghemawat; Hadoop 1).
#[derive(Debug, Clone, Default)]
pub struct DefaultDetector {
    params: DefaultParams,
    /// Buffers kept between scans.
    sums: GroupSums,
    thresholds: Vec<f64>,
    blocks: RowBlocks,
    originals: Vec<f64>,
}

impl DefaultDetector {
    /// A detector with checked parameters.
    pub fn new(params: CheckedDefaultParams) -> Self {
        DefaultDetector {
            params: params.0,
            ..DefaultDetector::default()
        }
    }

    /// The parameters.
    pub fn params(&self) -> &DefaultParams {
        &self.params
    }
}

impl Detector for DefaultDetector {
    fn name(&self) -> &str {
        "default"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let parallelism = self.params.parallelism;
        parallelism.on_pool(snapshot.len(), || self.scan_rows(snapshot, findings));
    }
}

impl DefaultDetector {
    /// [`Detector::scan`], on the calling thread.
    fn scan_rows(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let progress = originals_progress(snapshot, &mut self.originals);
        let stages = snapshot.stage_indices();
        let parallelism = self.params.parallelism;
        let sums = self.sums.compute(
            stages,
            progress,
            snapshot.stages().len(),
            parallelism,
            Summands::Values,
        );
        // A stage without a mean has a NaN bar, which no progress is below.
        means(sums, &mut self.thresholds);
        for bar in &mut self.thresholds {
            *bar -= self.params.gap;
        }
        rows_below(
            progress,
            stages,
            &self.thresholds,
            parallelism,
            &mut self.blocks,
            findings.rows_mut(),
        );
    }
}
