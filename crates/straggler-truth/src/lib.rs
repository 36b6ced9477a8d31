//! Ground truth for straggler detection: which task executions were stragglers.
//!
//! The seed paper (Phan, Pallez, Ibrahim, Raghavan, TOMPECS 2019, Section 6.1) labels a
//! task execution a straggler when it takes more than 1.2 times its *usual execution time*,
//! the X-quantile (X = 0.5) of the times of the same task over repeated runs of the job on
//! a homogeneous platform. `docs/formulas.md` lists the same formulas with one worked
//! example each.
//!
//! # Quantile ([`quantile()`])
//!
//! numpy's default ("linear", Hyndman and Fan type 7) on `n` sorted values `x[0..n]`:
//!
//! ```text
//! h = (n - 1) q,  lo = floor(h),  Q(q) = x[lo] + (h - lo) (x[lo + 1] - x[lo])
//! ```
//!
//! # Usual time and straggler rule (Section 6.1)
//!
//! ```text
//! usual(key)  = Q_X(execution times of key in the baseline runs)        (X = 0.5)
//! straggler  <=> exec > factor * usual(key)                             (factor = 1.2)
//! ```
//!
//! [`UsualTimes`] (each task of a run's: [`UsualTimes::of_run`]), [`StragglerRule`];
//! Table 5's straggler ratios for several X:
//! [`straggler_ratios`].
//!
//! # Error allowed in the guessed usual time (Section 6.1, Eq. 11-12)
//!
//! ```text
//! factor T (1 + eps_guess) <= s_min T (1 - eps_setting)        (11)
//! T (1 + eps_setting)      <= factor T (1 - eps_guess)         (12)
//! => eps_guess <= min(s_min (1 - eps_setting) / factor - 1, 1 - (1 + eps_setting) / factor)
//! ```
//!
//! [`max_guess_error`], [`factor_exists`] (with the paper's erratum).
//!
//! # Sibling reference (seeds 002 and 004)
//!
//! Without baseline runs the reference is the median or mean of the sibling tasks (same
//! job and stage), optionally per unit of input as in Garraghan et al.'s DoS-index:
//! [`sibling_usual_times`], or [`sibling_usual_times_among`] some of the siblings.
#![deny(missing_docs)]

mod error;
mod guess_error;
mod quantile;
mod rule;
mod sibling;
mod usual;

pub use error::TruthError;
pub use guess_error::{factor_exists, max_guess_error};
pub use quantile::{quantile, quantile_of};
pub use rule::{QuantileRatio, StragglerRule, straggler_ratios};
pub use sibling::{
    SiblingReference, sibling_usual_times, sibling_usual_times_among, sibling_usual_times_of_run,
};
pub use usual::{UsualTimes, baseline_samples};
