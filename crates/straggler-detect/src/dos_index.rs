//! The Degree of Straggler index (Garraghan et al., IEEE TSC 2019; seed 004, Section 5,
//! Eq. 1): a task's time per input byte against its job's.
//!
//! ```text
//! DoS_i = (Dur(T_i) / Inp(T_i)) / ( (sum_j Dur(T_j) / n) / (sum_j Inp(T_j) / n) )
//!       = (Dur_i / Inp_i) / (sum_j Dur_j / sum_j Inp_j)
//! straggler  iff  DoS_i >= threshold          (2.5 by default in the paper's datacenter, 10 for diagnosis)
//! ```
//!
//! `Dur(T_i)` is "the current execution duration of T_i" (`now - start` for a running
//! attempt) and `Inp(T_i)` its input size in bytes.
//!
//! # Used online, where the paper used it on reports
//!
//! Seed 004 applies the index to the day's stragglers for reporting and diagnosis (Section
//! 5, Table 3: counts per day at 2.5 and 10); its online detector is another (Section 6,
//! [`GarraghanDetector`](crate::GarraghanDetector)), and its evaluation of detection
//! measures "the estimated finish time as opposed to the DoS-index" (Section 7.1). Here it
//! is applied at every scan to running attempts, and early in a stage it judges inputs,
//! not speed: while the `n` tasks have run about as long (none finished), `Dur_i` is about
//! `sum_j Dur_j / n` and
//!
//! ```text
//! DoS_i = (t / Inp_i) / (n t / sum_j Inp_j) = mean_j Inp_j / Inp_i
//! ```
//!
//! so a task with at most 40% of its stage's mean input (itself included) has an index of
//! 2.5 or more at its first scan, however fast it runs. Inputs 100, 100 and 30 B, all at
//! 1 s: 3 s / 230 B, the third index `(1 / 30) / (3 / 230) = 2.556`, flagged at once
//! though its progress is 0.9 and the others' 0.1; on 31 B, `77 / 31 = 2.484`, not
//! [`dos_index_flags_a_small_input_at_its_first_scan`, in `tests/seed004_oracle.rs`]. The
//! index measures speed once durations differ, as successes and long runs make them.
//!
//! # Decisions where the paper is not specific
//!
//! - **The n tasks of the job** are those of the attempt's stage (the maps, or the reduces,
//!   of one job) that have started: the original attempts running in the snapshot, with
//!   their current duration, and the tasks that succeeded, with the duration of their first
//!   success (learnt from [`Observation::AttemptEnded`]). Speculative copies are left out of
//!   the sums (a copy reads the same input as its original: counting both would count the
//!   task twice) and are never flagged; so is an original still in the snapshot after its
//!   task succeeded (an original killed a moment after its copy won, which a snapshot
//!   may still list): its task is counted once, as a success.
//! - A running attempt with no input (`Inp = 0`) has no index: it is left out of the sums
//!   and never flagged; so is a success with no input or a negative or non-finite
//!   duration. A stage whose sums give no finite positive time per byte flags nothing.
//!   A row is flagged iff its time per byte is at least `threshold` times its stage's,
//!   or, where that product overflows (inputs of a fraction of a byte), iff the quotient
//!   of Eq. 1 is at least `threshold`: durations of 1 s on inputs of 1e-308, 1e-308 and
//!   5e-324 B give the stage 1.5e308 s/B, and the third index `(1 / 5e-324) / 1.5e308 =
//!   +inf` is flagged, where a bar of `2.5 x 1.5e308 = +inf` flagged nothing.
//!
//! Sums are taken by the chunked [`GroupSums`], so the parallel scan flags exactly the
//! rows the sequential one flags.

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, AttemptStatus, Observation, Snapshot};

use crate::error::check_param;
use crate::scan::{GroupSums, IdMap, Summands, filter_rows, map_rows};
use crate::spark::StageTaskSet;
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`DosIndex`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DosIndexParams {
    /// The index from which a task is a straggler: 2.5 (the paper's datacenter default) or
    /// 10 (its threshold for root-cause diagnosis). Finite, `> 0`.
    pub threshold: f64,
    /// How the sums and the row filter use threads.
    pub parallelism: Parallelism,
}

impl Default for DosIndexParams {
    fn default() -> Self {
        DosIndexParams {
            threshold: 2.5,
            parallelism: Parallelism::default(),
        }
    }
}

impl DosIndexParams {
    /// The diagnosis threshold of seed 004, Section 5: `DoS >= 10`.
    pub fn diagnosis() -> Self {
        DosIndexParams {
            threshold: 10.0,
            ..DosIndexParams::default()
        }
    }

    /// Checks the parameters: `threshold` finite and `> 0`.
    pub fn check(self) -> Result<CheckedDosIndexParams, DetectError> {
        check_param("threshold", self.threshold, "finite and > 0", |t| t > 0.0)?;
        Ok(CheckedDosIndexParams(self))
    }
}

/// [`DosIndexParams`] that passed [`DosIndexParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedDosIndexParams(DosIndexParams);

/// Durations and inputs of a stage's succeeded tasks.
#[derive(Debug, Clone, Copy, Default)]
struct Finished {
    duration_secs: f64,
    input_bytes: f64,
}

/// The DoS-index rule: flags the original attempts whose time per input byte is at least
/// `threshold` times their stage's (running and succeeded tasks). `src/dos_index.rs`
/// documents the formula and the decisions taken where seed 004 is not specific.
#[derive(Debug, Clone)]
pub struct DosIndex {
    params: DosIndexParams,
    name: String,
    succeeded: StageTaskSet,
    /// By stage index (a map: a stray stage id allocates nothing).
    finished: IdMap<u32, Finished>,
    /// The counted rows' elapsed seconds and input bytes, NaN for the others.
    elapsed: Vec<f64>,
    inputs: Vec<f64>,
    sums: GroupSums,
}

impl Default for DosIndex {
    fn default() -> Self {
        DosIndex::new(CheckedDosIndexParams(DosIndexParams::default()))
    }
}

impl DosIndex {
    /// A detector with checked parameters, named `dos-index` at 2.5, `dos-index-10` at 10,
    /// `dos-index-<threshold>` otherwise.
    pub fn new(params: CheckedDosIndexParams) -> Self {
        let params = params.0;
        let name = if params.threshold == 2.5 {
            "dos-index".to_owned()
        } else {
            format!("dos-index-{}", params.threshold)
        };
        DosIndex {
            params,
            name,
            succeeded: StageTaskSet::default(),
            finished: IdMap::default(),
            elapsed: Vec::new(),
            inputs: Vec::new(),
            sums: GroupSums::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &DosIndexParams {
        &self.params
    }
}

impl Detector for DosIndex {
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (start, input) = (snapshot.start_secs(), snapshot.input_bytes());
        let (stages, roles, tasks) = (snapshot.stage_indices(), snapshot.roles(), snapshot.tasks());
        let stage_count = snapshot.stages().len();
        let parallelism = self.params.parallelism;
        let succeeded = &self.succeeded;
        let counted = |row: usize| {
            roles[row] == AttemptRole::Original
                && input[row] > 0.0
                && !succeeded.contains(stages[row], tasks[row])
        };
        let rows = start.len();
        map_rows(rows, parallelism, &mut self.elapsed, |row| {
            if counted(row) {
                now - start[row]
            } else {
                f64::NAN
            }
        });
        map_rows(rows, parallelism, &mut self.inputs, |row| {
            if counted(row) { input[row] } else { f64::NAN }
        });
        // Per stage (a few): the sums copied out of the kept buffers.
        let mut sum_by_stage = |values: &[f64]| -> Vec<f64> {
            let sums =
                self.sums
                    .compute(stages, values, stage_count, parallelism, Summands::Values);
            sums.iter().map(|s| s.sum).collect()
        };
        let durations = sum_by_stage(&self.elapsed);
        let inputs = sum_by_stage(&self.inputs);
        // Per stage, its seconds per byte and that times the threshold, the bar of a row's
        // seconds per byte; NaN for a stage without a finite positive rate, which fails
        // every comparison and so flags nothing. Where the bar overflows (a rate near
        // f64::MAX, on inputs of a fraction of a byte), a row's index is taken as the
        // division of Eq. 1 instead.
        let threshold = self.params.threshold;
        let bars: Vec<(f64, f64)> = (0..stage_count)
            .map(|s| {
                let done = self.finished.get(&(s as u32)).copied().unwrap_or_default();
                let secs = durations[s] + done.duration_secs;
                let bytes = inputs[s] + done.input_bytes;
                let rate = secs / bytes;
                if rate.is_finite() && rate > 0.0 {
                    (threshold * rate, rate)
                } else {
                    (f64::NAN, f64::NAN)
                }
            })
            .collect();
        filter_rows(
            start.len(),
            parallelism,
            |row| {
                let (bar, rate) = bars[stages[row] as usize];
                let per_byte = (now - start[row]) / input[row];
                counted(row)
                    && if bar.is_finite() {
                        per_byte >= bar
                    } else {
                        per_byte / rate >= threshold
                    }
            },
            findings.rows_mut(),
        );
    }

    fn observe(&mut self, observation: &Observation) {
        let end = match observation {
            Observation::AttemptEnded(end) => end,
            Observation::StageFinished { stage, .. } => {
                self.finished.remove(&stage.0);
                self.succeeded.forget_stage(stage.0);
                return;
            }
            _ => return,
        };
        if end.status != AttemptStatus::Succeeded || !self.succeeded.insert(end.stage.0, end.task) {
            return;
        }
        let duration_secs = end.end_secs - end.start_secs;
        let input_bytes = end.input_bytes as f64;
        if !(duration_secs.is_finite() && duration_secs >= 0.0 && input_bytes > 0.0) {
            return;
        }
        let finished = self.finished.entry(end.stage.0).or_default();
        finished.duration_secs += duration_secs;
        finished.input_bytes += input_bytes;
    }

    fn reset(&mut self) {
        self.succeeded.clear();
        self.finished.clear();
    }
}
