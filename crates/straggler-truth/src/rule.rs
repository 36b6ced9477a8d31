//! The straggler rule and the straggler ratios of Table 5.

use serde::{Deserialize, Serialize};
use straggler_model::{TaskKey, check_range};

use crate::usual::group_samples;
use crate::{TruthError, UsualTimes};

/// A task execution is a straggler iff it takes more than `factor` times its usual
/// execution time (seed paper, Section 6.1, after Dean and Ghemawat: factor 1.2; seeds 002
/// and 004 use 1.5 against the job's mean or median):
///
/// ```text
/// straggler <=> exec > factor * usual        (strict)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StragglerRule {
    /// How many times its usual time a straggler takes at least (strictly more), `>= 1`.
    pub factor: f64,
}

impl Default for StragglerRule {
    fn default() -> Self {
        StragglerRule { factor: 1.2 }
    }
}

impl StragglerRule {
    /// Checks `factor` finite and `>= 1`; returns the checked rule.
    pub fn check(self) -> Result<Self, TruthError> {
        check_range("factor", self.factor, 1.0, f64::MAX, ">= 1")?;
        Ok(self)
    }

    /// Whether an execution of `exec_secs` is a straggler against `usual_secs`:
    /// `exec_secs > factor * usual_secs`, the product rounded once (an execution time
    /// computed as `factor * usual_secs` is not a straggler). False whenever an argument
    /// is NaN.
    pub fn is_straggler(&self, exec_secs: f64, usual_secs: f64) -> bool {
        exec_secs > self.factor * usual_secs
    }
}

/// The straggler ratio among baseline executions for one quantile X (one column of the
/// seed paper's Table 5).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QuantileRatio {
    /// The quantile X the usual times were taken at.
    pub quantile: f64,
    /// Executions labelled stragglers.
    pub stragglers: usize,
    /// Executions in all.
    pub executions: usize,
    /// `stragglers / executions`; `None` without executions.
    pub straggler_ratio: Option<f64>,
}

/// Table 5 of the seed paper: for each quantile X, the usual time of every key is the
/// X-quantile of its samples, and the ratio is the share of samples with
/// `exec > factor * usual(key)`. The paper's 21 outliers among 3200 map executions give
/// 0.66% at X = 0.5.
///
/// # Errors
///
/// An invalid rule or quantile, or an execution time that is NaN, infinite or negative.
pub fn straggler_ratios(
    samples: &[(TaskKey, f64)],
    quantiles: &[f64],
    rule: StragglerRule,
) -> Result<Vec<QuantileRatio>, TruthError> {
    let rule = rule.check()?;
    for &quantile in quantiles {
        check_range("quantile", quantile, 0.0, 1.0, "in [0, 1]")?;
    }
    let groups = group_samples(samples.iter().copied())?;
    let executions = samples.len();
    Ok(quantiles
        .iter()
        .map(|&quantile| {
            let usual = UsualTimes::from_groups(&groups, quantile);
            let stragglers = samples
                .iter()
                .filter(|(key, exec)| {
                    usual
                        .get(key)
                        .is_some_and(|usual| rule.is_straggler(*exec, usual))
                })
                .count();
            let straggler_ratio = (executions > 0).then(|| stragglers as f64 / executions as f64);
            QuantileRatio {
                quantile,
                stragglers,
                executions,
                straggler_ratio,
            }
        })
        .collect())
}
