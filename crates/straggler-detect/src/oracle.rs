//! The oracle: a detector told the truth of an undisturbed run, that flags those
//! stragglers, and nothing else, once each has run a chosen fraction of its execution time.
//! It is the evaluation's reference, with a detection latency set by `fraction`: a bound
//! on a run whose stragglers are those it was told, not on one its own copies change.
//!
//! It is built with the straggler tasks and their execution times, keyed by [`TaskId`]. The
//! simulator is deterministic, so an undisturbed run of the same seed gives them (the
//! tasks labelled stragglers and the execution times of their original attempts). For a
//! straggler `task` of execution time `exec_secs`, its original attempt is flagged iff
//!
//! ```text
//! now - start >= fraction * exec_secs
//! ```
//!
//! Copies are never flagged. Its precision and recall are therefore not 1 by construction:
//! in the run it is scored on, the copies it causes change the nodes' loads and, where
//! copies start while regular tasks wait, which node runs which later task, so an
//! original may run longer or shorter than in the undisturbed run (and be labelled
//! differently), a task may straggle that did not there (it is never flagged), and the
//! oracle still flags at `fraction` of the undisturbed time; a straggler is missed if its
//! original has ended, or has not reported progress yet, at every scan from then on. `fraction` is below 1: at `fraction = 1` an original of the
//! undisturbed run would be flagged only at a scan at the very instant it ends, after it
//! has left the snapshot.
//!
//! The stragglers are kept in a map, so any task id, `TaskId(u32::MAX)` included, costs one
//! entry.
//!
//! The per-row test sums nothing, so the parallel filter flags exactly the rows the
//! sequential one flags.

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, Snapshot, TaskId};

use crate::error::check_param;
use crate::scan::{IdMap, filter_rows};
use crate::{DetectError, Detector, Findings, Parallelism};

/// Parameters of [`Oracle`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OracleParams {
    /// The fraction of its execution time after which a straggler is flagged. In `(0, 1)`.
    pub fraction: f64,
    /// How the row filter uses threads.
    pub parallelism: Parallelism,
}

impl Default for OracleParams {
    /// Detects each straggler at 10% of its own execution time.
    fn default() -> Self {
        OracleParams {
            fraction: 0.1,
            parallelism: Parallelism::default(),
        }
    }
}

impl OracleParams {
    /// Checks the parameters: `fraction` in `(0, 1)` (see the module docs for why 1 is
    /// out).
    pub fn check(self) -> Result<CheckedOracleParams, DetectError> {
        check_param("fraction", self.fraction, "in (0, 1)", |f| {
            f > 0.0 && f < 1.0
        })?;
        Ok(CheckedOracleParams(self))
    }
}

/// [`OracleParams`] that passed [`OracleParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedOracleParams(OracleParams);

/// Knows the stragglers and flags each at `fraction` of its execution time.
#[derive(Debug, Clone)]
pub struct Oracle {
    params: OracleParams,
    /// By task id: the elapsed time from which the task's original is flagged.
    detect_after_secs: IdMap<u32, f64>,
}

impl Oracle {
    /// An oracle for the straggler tasks `stragglers`, given with their execution times in
    /// seconds. A task given twice keeps the last time. An execution time that is negative
    /// or not finite is an error naming the task.
    pub fn new(
        params: CheckedOracleParams,
        stragglers: impl IntoIterator<Item = (TaskId, f64)>,
    ) -> Result<Self, DetectError> {
        let params = params.0;
        let mut detect_after_secs = IdMap::default();
        for (task, exec_secs) in stragglers {
            check_param(
                "stragglers: execution time (s)",
                exec_secs,
                "finite and >= 0",
                |e| e >= 0.0,
            )?;
            detect_after_secs.insert(task.0, params.fraction * exec_secs);
        }
        Ok(Oracle {
            params,
            detect_after_secs,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &OracleParams {
        &self.params
    }

    /// How many straggler tasks it knows.
    pub fn stragglers(&self) -> usize {
        self.detect_after_secs.len()
    }
}

impl Detector for Oracle {
    fn name(&self) -> &str {
        "oracle"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (tasks, roles, start) = (snapshot.tasks(), snapshot.roles(), snapshot.start_secs());
        let after = &self.detect_after_secs;
        filter_rows(
            tasks.len(),
            self.params.parallelism,
            |row| {
                roles[row] == AttemptRole::Original
                    && after
                        .get(&tasks[row].0)
                        .is_some_and(|&after| now - start[row] >= after)
            },
            findings.rows_mut(),
        );
    }
}
