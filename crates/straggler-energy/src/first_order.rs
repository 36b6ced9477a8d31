//! The first-order approximation of Section 4.2: time and energy overheads predicted from
//! the straggler ratio and the detection metrics.

use serde::{Deserialize, Serialize};
use straggler_model::check_range;

use crate::EnergyError;

/// Rounding slack below zero tolerated in the probability of the last case before it
/// counts as negative.
const PROBABILITY_SLACK: f64 = 1e-12;

/// The inputs of the first-order predictor (seed paper, Section 4.2).
///
/// The paper's setting: `n` tasks on `2n` single-core nodes, every detected task copied at
/// once on a free node, the first replica to finish kills the other; a detected straggler's
/// copy always wins, and a non-straggler is detected on average at half its execution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FirstOrderInputs {
    /// `alpha`: the ratio of stragglers among the tasks, in `[0, 1]`.
    pub straggler_ratio: f64,
    /// `p`: precision of the detector, in `[0, 1]` (Eq. 1): `TP / (TP + FP)`, fake
    /// positives counted as true, which is `precision_raw` in `straggler-metrics` (not its
    /// `precision`, which counts them as false).
    pub precision: f64,
    /// `r`: recall of the detector, in `[0, 1]` (Eq. 2).
    pub recall: f64,
    /// Detection Latency (Eq. 3), in units of the usual execution time, `>= 0`.
    pub detection_latency: f64,
    /// Undetected Time (Eq. 4), in units of the usual execution time, `>= 0`.
    pub undetected_time: f64,
}

/// What the first-order predictor expects, per task.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// Expected time of a task, in units of its usual execution time.
    pub time_per_task: f64,
    /// Expected energy of a task, in units of `(P_static + P_dyn) x usual time`.
    pub energy_per_task: f64,
    /// `time_per_task - 1`: the overhead relative to a run without stragglers.
    pub time_overhead: f64,
    /// `energy_per_task - 1`: the overhead relative to a run without stragglers.
    pub energy_overhead: f64,
}

impl FirstOrderInputs {
    /// The inputs from one run's detection metrics, as `straggler-metrics` gives them
    /// (`None` where a metric is undefined): `straggler_ratio` is `(TP + FN) / tasks`, and
    /// `precision_raw`, `recall`, `detection_latency` and `undetected_time` are the
    /// metrics of those names. An input the prediction does not use may be undefined: the
    /// recall without stragglers (`alpha = 0`, taken as 0), precision and Detection
    /// Latency without a detected straggler (`r alpha = 0`, taken as 1 and 0), Undetected
    /// Time without an undetected one (`(1 - r) alpha = 0`, taken as 0). A run's own
    /// metrics always define the inputs that are used.
    ///
    /// ```
    /// use straggler_energy::FirstOrderInputs;
    ///
    /// // 4 tasks, 2 stragglers both detected (no Undetected Time), one false positive.
    /// let inputs = FirstOrderInputs::from_metrics(0.5, Some(2.0 / 3.0), Some(1.0), Some(1.05), None)?;
    /// assert_eq!(inputs.undetected_time, 0.0);
    /// let prediction = inputs.predict()?;
    /// // P1 = 0.5, P3 = 0.5 (1/3) / (2/3) = 0.25, P4 = 0.25:
    /// // time 0.5 x 2.05 + 0.25 + 0.25 = 1.525, energy 0.5 x 3.05 + 1.5 x 0.25 + 0.25 = 2.15.
    /// assert!((prediction.time_per_task - 1.525).abs() < 1e-12);
    /// assert!((prediction.energy_per_task - 2.15).abs() < 1e-12);
    /// # Ok::<(), straggler_energy::EnergyError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EnergyError::Undefined`] naming an input the prediction needs that is `None`.
    /// The inputs are checked only by [`FirstOrderInputs::predict`].
    pub fn from_metrics(
        straggler_ratio: f64,
        precision_raw: Option<f64>,
        recall: Option<f64>,
        detection_latency: Option<f64>,
        undetected_time: Option<f64>,
    ) -> Result<Self, EnergyError> {
        let needed = |value: Option<f64>, field, used: bool, otherwise| match value {
            Some(value) => Ok(value),
            None if !used => Ok(otherwise),
            None => Err(EnergyError::Undefined { field }),
        };
        let recall = needed(recall, "recall", straggler_ratio != 0.0, 0.0)?;
        let detects = recall * straggler_ratio != 0.0;
        let misses = (1.0 - recall) * straggler_ratio != 0.0;
        Ok(FirstOrderInputs {
            straggler_ratio,
            precision: needed(precision_raw, "precision_raw", detects, 1.0)?,
            recall,
            detection_latency: needed(detection_latency, "detection_latency", detects, 0.0)?,
            undetected_time: needed(undetected_time, "undetected_time", misses, 0.0)?,
        })
    }

    /// Checks the ratios in `[0, 1]` and the two times finite and `>= 0`; returns the
    /// checked inputs.
    pub fn check(self) -> Result<Self, EnergyError> {
        check_range(
            "straggler_ratio",
            self.straggler_ratio,
            0.0,
            1.0,
            "in [0, 1]",
        )?;
        check_range("precision", self.precision, 0.0, 1.0, "in [0, 1]")?;
        check_range("recall", self.recall, 0.0, 1.0, "in [0, 1]")?;
        check_range(
            "detection_latency",
            self.detection_latency,
            0.0,
            f64::MAX,
            ">= 0",
        )?;
        check_range(
            "undetected_time",
            self.undetected_time,
            0.0,
            f64::MAX,
            ">= 0",
        )?;
        Ok(self)
    }

    /// The expected time and energy of a task (seed paper, Section 4.2):
    ///
    /// ```text
    /// case         probability                       time     energy
    /// stg & det    P1 = r alpha                      1 + DL   2 + DL
    /// stg & !det   P2 = (1 - r) alpha                UT       UT
    /// !stg & det   P3 = r alpha (1 - p) / p          1        1.5
    /// !stg & !det  P4 = 1 - alpha (1 + r (1 - p)/p)  1        1
    ///
    /// time_per_task   = P1 (1 + DL) + P2 UT + P3 + P4
    /// energy_per_task = P1 (2 + DL) + P2 UT + 1.5 P3 + P4
    /// ```
    ///
    /// Degenerate inputs: when `r alpha = 0` nothing is detected among stragglers and `P3`
    /// is 0 whatever `p` (the paper's `P3` counts false positives through `TP (1-p)/p`):
    /// a detector whose every detection is false has no `(alpha, p, r)` describing it, and
    /// the cost of its false positives is left out. A rounding error of at most `1e-12` below zero in `P4` is read as 0.
    ///
    /// # Errors
    ///
    /// The errors of [`FirstOrderInputs::check`]; [`EnergyError::Impossible`] for `p = 0`
    /// with `r alpha > 0` (true positives with zero precision), or when `P4` is negative
    /// (more detections than tasks).
    pub fn predict(&self) -> Result<Prediction, EnergyError> {
        let FirstOrderInputs {
            straggler_ratio: alpha,
            precision: p,
            recall: r,
            detection_latency,
            undetected_time,
        } = self.check()?;
        let detected_stragglers = r * alpha;
        let undetected_stragglers = (1.0 - r) * alpha;
        let detected_non_stragglers = if detected_stragglers == 0.0 {
            0.0
        } else if p == 0.0 {
            return Err(EnergyError::Impossible {
                field: "precision",
                value: p,
                reason: "a detector that finds stragglers (recall * straggler_ratio > 0) has precision > 0",
            });
        } else {
            detected_stragglers * (1.0 - p) / p
        };
        let mut undetected_non_stragglers = 1.0 - alpha - detected_non_stragglers;
        if undetected_non_stragglers < -PROBABILITY_SLACK {
            return Err(EnergyError::Impossible {
                field: "P(!stg & !det) = 1 - alpha (1 + r (1 - p) / p)",
                value: undetected_non_stragglers,
                reason: "a probability cannot be negative (more detections than tasks)",
            });
        }
        undetected_non_stragglers = undetected_non_stragglers.max(0.0);
        let time_per_task = detected_stragglers * (1.0 + detection_latency)
            + undetected_stragglers * undetected_time
            + detected_non_stragglers
            + undetected_non_stragglers;
        let energy_per_task = detected_stragglers * (2.0 + detection_latency)
            + undetected_stragglers * undetected_time
            + 1.5 * detected_non_stragglers
            + undetected_non_stragglers;
        Ok(Prediction {
            time_per_task,
            energy_per_task,
            time_overhead: time_per_task - 1.0,
            energy_overhead: energy_per_task - 1.0,
        })
    }
}
