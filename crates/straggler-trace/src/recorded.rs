//! The speculation that really ran, judged as a detector of its own ("recorded").
//!
//! The copies are the attempts [`attempt_roles`](crate::attempt_roles) marks speculative
//! (the log's flag, or for Hadoop 1 and Rumen the later-launched of a KILLED or unfinished
//! attempt and a SUCCEEDED one that raced it). The engine detected a task when it launched
//! its first copy:
//!
//! ```text
//! t_detection(task) = launch of its first copy launched at or after its original's launch
//! ```
//!
//! (a copy of an earlier, failed original does not detect the original that ran after it).
//! Copies are counted as in the seed paper's Table 2:
//!
//! ```text
//! speculative_copies    = copies launched
//! successful_copies     = copies whose success was their task's first (finished before
//!                         their original)
//! unsuccessful_copies   = copies KILLED or FAILED, or that SUCCEEDED after their task had
//!                         (a copy the log leaves unfinished is neither)
//! wasted_container_secs = sum over unsuccessful copies of (end - launch)
//! ```
//!
//! A copy can succeed after its task did: Hadoop logs a second attempt's success when it
//! comes before the kill (`TaskImpl.AttemptSucceededAtSucceededTransition`), and Spark
//! before 2.0 did not kill the loser of a race (SPARK-13965), which then ended with
//! `Success` too, as it could up to 2.3 when it finished before the kill (SPARK-13343).
//! The task's output is the first success's, and the copy's run was waste.

use serde::{Deserialize, Serialize};
use straggler_model::AttemptRole;

use crate::{AttemptOutcome, Labels, StageKind, TraceJob};

/// The copies of a job or a trace.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CopyCounts {
    /// Copies launched.
    pub speculative_copies: usize,
    /// Copies whose success was their task's first.
    pub successful_copies: usize,
    /// Copies killed or failed, or that succeeded after their task had.
    pub unsuccessful_copies: usize,
    /// Seconds run by the unsuccessful copies.
    pub wasted_container_secs: f64,
}

impl CopyCounts {
    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &CopyCounts) {
        self.speculative_copies += other.speculative_copies;
        self.successful_copies += other.successful_copies;
        self.unsuccessful_copies += other.unsuccessful_copies;
        self.wasted_container_secs += other.wasted_container_secs;
    }
}

/// What the engine's own speculation did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    /// For each labelled task (`labels.tasks` order), the first copy's launch, seconds since
    /// its job's first launch.
    pub detections: Vec<Option<f64>>,
    /// The copies of each job (of its maps and reduces: setup and cleanup tasks are left
    /// out, as they are of Table 3's task counts).
    pub per_job: Vec<CopyCounts>,
    /// The copies of the whole trace.
    pub total: CopyCounts,
    /// For each labelled task, whether a copy won it (its first succeeded attempt is a
    /// copy). Such a task's duration is a lower bound of its original's (see
    /// [`label`](crate::label)), so a detection of it may count as fake where the original
    /// had more time left: [`fakes_won_by_copy`] counts them.
    pub won_by_copy: Vec<bool>,
}

/// How many of the fake positives of `detections` (seed 000, Section 6.2: detected when
/// the original's remaining time was already below its usual time) are tasks a copy won.
/// For these the remaining time is measured up to the copy's end, a lower bound: the
/// original was still running then, so such a fake may not be one.
pub fn fakes_won_by_copy(
    labels: &crate::Labels,
    detections: &[Option<f64>],
    won_by_copy: &[bool],
) -> usize {
    // The records the metrics judge, so that a fake here is one there.
    crate::task_records(labels, detections)
        .iter()
        .zip(won_by_copy)
        .filter(|(record, won)| {
            **won
                && record.straggler
                && record
                    .first_detection_secs
                    .is_some_and(|d| straggler_metrics::is_fake(record, d))
        })
        .count()
}

/// The recorded speculation of `jobs`, with the roles and origins of `labels` (which must
/// come from [`label`](crate::label) on the same jobs).
pub fn recorded(jobs: &[TraceJob], labels: &Labels) -> Recorded {
    let mut detections = vec![None; labels.tasks.len()];
    let mut won_by_copy = vec![false; labels.tasks.len()];
    let mut per_job = Vec::with_capacity(jobs.len());
    let mut total = CopyCounts::default();
    for (j, job) in jobs.iter().enumerate() {
        let origin = labels.job_origin_secs.get(j).copied().unwrap_or(0.0);
        let mut counts = CopyCounts::default();
        for (t, task) in job.tasks.iter().enumerate() {
            // Copies of maps and reduces only: setup and cleanup tasks are never labelled,
            // and Table 3 divides by completed maps and reduces.
            if task.kind == StageKind::Other {
                continue;
            }
            let Some(roles) = labels.roles.get(j).and_then(|r| r.get(t)) else {
                continue;
            };
            let labelled = labels
                .index
                .get(j)
                .and_then(|i| i.get(t).copied().flatten())
                .and_then(|i| Some((i, labels.tasks.get(i)?)));
            if let Some((index, _)) = labelled {
                let first_success = task
                    .attempts
                    .iter()
                    .zip(roles)
                    .filter(|(a, _)| a.outcome == AttemptOutcome::Succeeded)
                    .filter_map(|(a, role)| Some((a.end_secs?, *role)))
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                won_by_copy[index] =
                    first_success.is_some_and(|(_, role)| role == AttemptRole::Speculative);
            }
            // The task's first success; a copy that succeeded after it won nothing.
            let first_success_end = (task.attempts.iter())
                .filter(|a| a.outcome == AttemptOutcome::Succeeded)
                .filter_map(|a| a.end_secs)
                .min_by(f64::total_cmp);
            for (attempt, role) in task.attempts.iter().zip(roles) {
                if *role != AttemptRole::Speculative {
                    continue;
                }
                counts.speculative_copies += 1;
                let first = (attempt.end_secs.zip(first_success_end))
                    .is_none_or(|(end, first)| end <= first);
                match attempt.outcome {
                    AttemptOutcome::Succeeded if first => counts.successful_copies += 1,
                    AttemptOutcome::Succeeded | AttemptOutcome::Killed | AttemptOutcome::Failed => {
                        counts.unsuccessful_copies += 1;
                        if let Some(end) = attempt.end_secs {
                            let ran = end - attempt.start_secs;
                            if ran.is_finite() && ran > 0.0 {
                                counts.wasted_container_secs += ran;
                            }
                        }
                    }
                    AttemptOutcome::Unfinished => {}
                }
                let Some((index, labelled)) = labelled else {
                    continue;
                };
                let launch = attempt.start_secs - origin;
                let original_start = task
                    .attempts
                    .get(labelled.original)
                    .map_or(f64::INFINITY, |a| a.start_secs);
                if attempt.start_secs >= original_start && launch.is_finite() {
                    let launch = launch.max(labelled.start_secs);
                    let slot = &mut detections[index];
                    *slot = Some(slot.map_or(launch, |d: f64| d.min(launch)));
                }
            }
        }
        total.add(&counts);
        per_job.push(counts);
    }
    Recorded {
        detections,
        per_job,
        total,
        won_by_copy,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::truth::tests::{attempt, job, plain_task};
    use crate::{TruthConfig, label};
    use AttemptOutcome::{Failed, Killed, Succeeded};

    /// The job of the hand-worked tests: maps of 10 s, 10 s, 10 s with a failed copy
    /// launched at 5, "won" (original killed at 30, copy launched at 18) and "lost"
    /// (original 0..32, copy launched at 25 and killed).
    pub(crate) fn copies_job() -> Vec<TraceJob> {
        let mut won = plain_task("won", "map", 0.0, 0.0);
        won.attempts = vec![
            attempt("w0", 0.0, Some(30.0), Killed, None),
            attempt("w1", 18.0, Some(30.0), Succeeded, None),
        ];
        let mut lost = plain_task("lost", "map", 0.0, 0.0);
        lost.attempts = vec![
            attempt("l0", 0.0, Some(32.0), Succeeded, Some(false)),
            attempt("l1", 25.0, Some(32.0), Killed, Some(true)),
        ];
        let mut noisy = plain_task("n", "map", 0.0, 10.0);
        noisy
            .attempts
            .push(attempt("n1", 5.0, Some(8.0), Failed, Some(true)));
        vec![job(
            "j",
            vec![
                plain_task("a", "map", 0.0, 10.0),
                plain_task("b", "map", 0.0, 10.0),
                noisy,
                won,
                lost,
            ],
        )]
    }

    #[test]
    fn copies_detect_at_their_launch_and_count_as_successful_or_wasted() {
        // Job origin 0. Maps of 10 s, 10 s, 10 s, and two slow ones:
        // - "won": original 0..(killed 30), copy launched 18 succeeded at 30: exec 30,
        //   detection 18;
        // - "lost": original 0..32 succeeded, copy launched 25 killed at 32: exec 32,
        //   detection 25, wasted 7 s;
        // - "failed copy" on a 10 s task: copy 5..8 failed, wasted 3 s, a false positive.
        // Median of (10, 10, 10, 30, 32) = 10, factor 1.5 -> stragglers: won, lost.
        let jobs = copies_job();
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        assert_eq!(labels.stragglers(), 2);
        let recorded = recorded(&jobs, &labels);
        assert_eq!(
            recorded.detections,
            [None, None, Some(5.0), Some(18.0), Some(25.0)]
        );
        assert_eq!(
            recorded.total,
            CopyCounts {
                speculative_copies: 3,
                successful_copies: 1,
                unsuccessful_copies: 2,
                wasted_container_secs: 10.0,
            }
        );
        assert_eq!(recorded.per_job, [recorded.total]);
        assert_eq!(recorded.won_by_copy, [false, false, false, true, false]);
        // "won": remaining at detection 0 + 30 - 18 = 12 >= 10, not fake; "lost" is fake
        // (32 - 25 = 7 < 10) but its original won.
        assert_eq!(
            fakes_won_by_copy(&labels, &recorded.detections, &recorded.won_by_copy),
            0
        );
        // Had "won"'s copy come at 25 (remaining 5 s, measured to the copy's end), its fake
        // would be one won by a copy.
        let mut later = recorded.detections.clone();
        later[3] = Some(25.0);
        assert_eq!(fakes_won_by_copy(&labels, &later, &recorded.won_by_copy), 1);
        // At 20, exactly the usual time left: no fake, here as in the metrics.
        later[3] = Some(20.0);
        assert_eq!(fakes_won_by_copy(&labels, &later, &recorded.won_by_copy), 0);
        assert_eq!(crate::judge(&labels, &later).unwrap().fake_positives, 1);
    }

    #[test]
    fn a_copy_that_succeeds_after_its_task_is_waste() {
        // Original 0..30 succeeded; copy launched at 10 succeeded at 31, after the task
        // (Hadoop logs such a second success): unsuccessful, 21 s wasted. A copy that
        // succeeded first is successful, the one that ends with it too.
        let mut late = plain_task("late", "map", 0.0, 0.0);
        late.attempts = vec![
            attempt("a0", 0.0, Some(30.0), Succeeded, Some(false)),
            attempt("a1", 10.0, Some(31.0), Succeeded, Some(true)),
        ];
        let mut tie = plain_task("tie", "map", 0.0, 0.0);
        tie.attempts = vec![
            attempt("b0", 0.0, Some(30.0), Succeeded, Some(false)),
            attempt("b1", 10.0, Some(30.0), Succeeded, Some(true)),
        ];
        let jobs = vec![job("j", vec![late, tie])];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        assert_eq!(
            recorded(&jobs, &labels).total,
            CopyCounts {
                speculative_copies: 2,
                successful_copies: 1,
                unsuccessful_copies: 1,
                wasted_container_secs: 21.0,
            }
        );
    }
}
