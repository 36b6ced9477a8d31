//! How wrong the guessed usual time may be (seed paper, Section 6.1, "Limitations",
//! Eq. 11-12).
//!
//! Notation: `T` the true usual time (unknown), `s_min` the smallest slowdown of a real
//! straggler, `eps_setting` the relative variation of a task's time due to the settings,
//! `eps_guess` the relative error of the guessed usual time, `factor` the straggler
//! factor (the paper's 1.2). In the worst case a straggler runs `s_min T (1 - eps_setting)`
//! and a non-straggler `T (1 + eps_setting)`, while the guessed usual time is as high as
//! `T (1 + eps_guess)` or as low as `T (1 - eps_guess)`. Labelling stays right if
//!
//! ```text
//! factor T (1 + eps_guess) <= s_min T (1 - eps_setting)   (11) a straggler stays a straggler
//! T (1 + eps_setting)      <= factor T (1 - eps_guess)    (12) a non-straggler stays one
//! ```
//!
//! Solving each for `eps_guess`:
//!
//! ```text
//! (11)  eps_guess <= s_min (1 - eps_setting) / factor - 1
//! (12)  eps_guess <= 1 - (1 + eps_setting) / factor  =  (factor - 1 - eps_setting) / factor
//! ```
//!
//! **Erratum.** The paper prints the bound as
//! `min(s_min (1 - eps_guess) / 1.2 - 1, (0.2 - eps_guess) / 1.2)`, with `eps_guess` where
//! `eps_setting` belongs; solving (11) and (12) gives `eps_setting` in both terms, as here.
//!
//! Some non-negative `eps_guess` (and so some factor) exists iff, with `eps_guess = 0`,
//! a factor satisfies `1 + eps_setting <= factor <= s_min (1 - eps_setting)`, that is iff
//! `eps_setting <= (s_min - 1) / (s_min + 1)`: the paper's existence condition.

use straggler_model::{ValueError, check_range};

use crate::TruthError;

/// The largest relative error `eps_guess` allowed in the guessed usual time so that Eq. 11
/// and 12 hold:
///
/// ```text
/// eps_guess_max = min(s_min (1 - eps_setting) / factor - 1, 1 - (1 + eps_setting) / factor)
/// ```
///
/// `None` when that minimum is negative: with this factor even an exact guess can
/// mislabel a task. The bound is a supremum: at equality in Eq. 11 a straggler slowed
/// exactly `s_min` times takes exactly `factor` times the guessed usual time, which the
/// strict rule ([`StragglerRule`](crate::StragglerRule)) does not call a straggler.
///
/// # Errors
///
/// `factor < 1`, `s_min < 1`, `eps_setting` outside `[0, 1)`, or a non-finite input.
pub fn max_guess_error(
    factor: f64,
    s_min: f64,
    eps_setting: f64,
) -> Result<Option<f64>, TruthError> {
    check_range("factor", factor, 1.0, f64::MAX, ">= 1")?;
    check_inputs(s_min, eps_setting)?;
    let straggler_stays = s_min * (1.0 - eps_setting) / factor - 1.0;
    let non_straggler_stays = 1.0 - (1.0 + eps_setting) / factor;
    let bound = straggler_stays.min(non_straggler_stays);
    Ok((bound >= 0.0).then_some(bound))
}

/// Whether some straggler factor labels every task right with an exact usual time:
/// `eps_setting <= (s_min - 1) / (s_min + 1)` (seed paper, Section 6.1).
///
/// # Errors
///
/// `s_min < 1`, `eps_setting` outside `[0, 1)`, or a non-finite input.
pub fn factor_exists(s_min: f64, eps_setting: f64) -> Result<bool, TruthError> {
    check_inputs(s_min, eps_setting)?;
    Ok(eps_setting <= (s_min - 1.0) / (s_min + 1.0))
}

fn check_inputs(s_min: f64, eps_setting: f64) -> Result<(), TruthError> {
    check_range("s_min", s_min, 1.0, f64::MAX, ">= 1")?;
    check_range("eps_setting", eps_setting, 0.0, 1.0, "in [0, 1)")?;
    if eps_setting == 1.0 {
        return Err(ValueError::OutOfRange {
            field: "eps_setting",
            value: eps_setting,
            range: "in [0, 1)",
        }
        .into());
    }
    Ok(())
}
