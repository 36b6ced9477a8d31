//! Metrics of straggler detection and of speculative execution, and their aggregation over
//! repetitions.
//!
//! The definitions follow the seed paper (Phan, Pallez, Ibrahim, Raghavan, TOMPECS 2019,
//! Sections 3.1, 3.2 and 6.2) and the framework spec; `docs/formulas.md` lists the same
//! formulas with one worked example each.
//!
//! # Detection metrics ([`detection_metrics`])
//!
//! Each task, post-execution, is a straggler or not (`stg`) and detected or not (`det`, at
//! its first detection). `TP = |stg & det|`, `FP = |!stg & det|`, `FN = |stg & !det|`.
//!
//! ```text
//! precision_raw     = TP / (TP + FP)                                         (Eq. 1)
//! recall            = TP / (TP + FN)                                         (Eq. 2)
//! detection_latency = mean over TP of (t_detection - t_start) / usual        (Eq. 3)
//! undetected_time   = mean over FN of exec / usual                           (Eq. 4)
//! fake              = TP with t_start + exec < t_detection + usual           (Section 6.2)
//! fake_positive     = |fake| / (TP + FP)                                     (Eq. 13)
//! precision         = (TP - |fake|) / (TP + FP) = precision_raw - fake_positive
//! ```
//!
//! The records of a finished [`Run`](straggler_model::Run)'s tasks, labelled against
//! usual times (from `straggler-truth`), come from [`task_records_of_run`].
//!
//! A fake is a TP whose remaining time `t_start + exec - t_detection` is below its usual
//! time, compared as two sums so that a remaining time equal to the usual time is not fake
//! ([`is_fake`]). The paper counts fake positives as false positives, which lowers the
//! precision (Section 6.2: 0.5 - 0.14 = 0.36); they stay true positives for recall and
//! detection latency. An empty denominator gives `None`, never NaN; a latency term that
//! overflows is an error, and the means of finite terms do not overflow.
//!
//! # Efficiency metrics ([`efficiency_metrics`], Table 2)
//!
//! Job execution time, resource consumption (container-seconds), heavy-tail ratio
//! (longest / mean task time), wasted resource of unsuccessful copies, numbers of
//! speculative, successful and unsuccessful copies. Energy is in `straggler-energy`.
//!
//! # Repetitions ([`summarize`])
//!
//! ```text
//! mean = (1/n) sum x_i,  s = sqrt(sum (x_i - mean)^2 / (n - 1)),  ci95 = t_{0.975, n-1} s / sqrt(n)
//! ```
//!
//! over the defined values (`n` of them); finite values give a finite mean, whatever
//! their magnitude. A NaN or infinite value is an error.
#![deny(missing_docs)]

mod detection;
mod efficiency;
mod error;
mod mean;
mod records;
mod student_t;
mod summary;

pub use detection::{DetectionMetrics, TaskRecord, detection_metrics, is_fake};
pub use efficiency::{EfficiencyMetrics, efficiency_metrics};
pub use error::MetricsError;
pub use records::task_records_of_run;
pub use student_t::student_t_quantile;
pub use summary::{Summary, summarize};
