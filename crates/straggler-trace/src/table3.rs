//! The seed paper's Table 3 on a log: per job, the successful-copy ratio and the
//! heavy-tail ratio, and their correlation over jobs.
//!
//! Phan et al. (TOMPECS 2019, Section 3.1, Table 3) correlate, over the jobs of three
//! production Hadoop traces, "the successful speculative copy ratio and the ratio of the
//! longest and the average task's execution time" and find |r| between 0.04 and 0.14. Per
//! job, over its map and reduce tasks (setup and cleanup left out):
//!
//! ```text
//! task time              = end of its first succeeded attempt - launch of its first attempt
//! heavy_tail_ratio       = max task time / mean task time             (completed tasks; Table 2)
//! successful_copy_ratio  = successful copies / copies launched        (jobs with a copy)
//! copies_per_task        = successful copies / completed tasks
//! r = sum (x - mean x)(y - mean y) / sqrt(sum (x - mean x)^2 sum (y - mean y)^2)   (Pearson)
//! ```
//!
//! The paper does not say what the successful-copy ratio is relative to; the table gives
//! both readings. Each correlation is over the `n` jobs where both of its values are
//! defined (a job without copies has no successful-copy ratio), and is `None` for `n < 2`
//! or a constant series.

use serde::{Deserialize, Serialize};

use crate::{AttemptOutcome, Recorded, StageKind, TraceJob};

/// One job's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table3Row {
    /// The job id as the log writes it.
    pub job: String,
    /// Map and reduce tasks that completed.
    pub completed_tasks: usize,
    /// Copies launched (of the job's maps and reduces).
    pub speculative_copies: usize,
    /// Copies that succeeded.
    pub successful_copies: usize,
    /// `successful_copies / speculative_copies`, `None` without copies.
    pub successful_copy_ratio: Option<f64>,
    /// `successful_copies / completed_tasks`, `None` without completed tasks.
    pub copies_per_task: Option<f64>,
    /// Longest / mean task time, `None` without completed tasks or with a zero mean.
    pub heavy_tail_ratio: Option<f64>,
}

/// A Pearson correlation and the number of pairs it is over.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    /// Pairs (jobs) with both values defined.
    pub n: usize,
    /// Pearson's r, `None` for `n < 2` or a constant series.
    pub r: Option<f64>,
}

/// Table 3 of a log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table3 {
    /// One row per job.
    pub rows: Vec<Table3Row>,
    /// Correlation of `successful_copy_ratio` with `heavy_tail_ratio`.
    pub per_copy: Correlation,
    /// Correlation of `copies_per_task` with `heavy_tail_ratio`.
    pub per_task: Correlation,
}

/// Pearson's correlation of the pairs (see the module docs).
pub fn pearson(pairs: &[(f64, f64)]) -> Correlation {
    let n = pairs.len();
    if n < 2 {
        return Correlation { n, r: None };
    }
    let mean_x = pairs.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let mean_y = pairs.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        sxy += (x - mean_x) * (y - mean_y);
        sxx += (x - mean_x) * (x - mean_x);
        syy += (y - mean_y) * (y - mean_y);
    }
    let denominator = (sxx * syy).sqrt();
    let r = (denominator > 0.0 && denominator.is_finite())
        .then(|| (sxy / denominator).clamp(-1.0, 1.0));
    Correlation { n, r }
}

/// Table 3 of `jobs`, with the copies of `recorded` (from [`recorded`](crate::recorded())
/// on the same jobs).
pub fn table3(jobs: &[TraceJob], recorded: &Recorded) -> Table3 {
    let mut rows = Vec::with_capacity(jobs.len());
    for (j, job) in jobs.iter().enumerate() {
        let mut times = Vec::new();
        for task in &job.tasks {
            if task.kind == StageKind::Other {
                continue;
            }
            let first_launch = task
                .attempts
                .iter()
                .map(|a| a.start_secs)
                .filter(|s| s.is_finite())
                .fold(f64::INFINITY, f64::min);
            let completion = task
                .attempts
                .iter()
                .filter(|a| a.outcome == AttemptOutcome::Succeeded)
                .filter_map(|a| a.end_secs)
                .filter(|e| e.is_finite())
                .fold(f64::INFINITY, f64::min);
            let time = completion - first_launch;
            if time.is_finite() && time >= 0.0 {
                times.push(time);
            }
        }
        let heavy_tail_ratio = if times.is_empty() {
            None
        } else {
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            let longest = times.iter().copied().fold(0.0, f64::max);
            (mean > 0.0).then(|| longest / mean)
        };
        let copies = recorded.per_job.get(j).copied().unwrap_or_default();
        let completed_tasks = times.len();
        rows.push(Table3Row {
            job: job.id.clone(),
            completed_tasks,
            speculative_copies: copies.speculative_copies,
            successful_copies: copies.successful_copies,
            successful_copy_ratio: (copies.speculative_copies > 0)
                .then(|| copies.successful_copies as f64 / copies.speculative_copies as f64),
            copies_per_task: (completed_tasks > 0)
                .then(|| copies.successful_copies as f64 / completed_tasks as f64),
            heavy_tail_ratio,
        });
    }
    let pairs = |x: fn(&Table3Row) -> Option<f64>| -> Vec<(f64, f64)> {
        rows.iter()
            .filter_map(|row| Some((x(row)?, row.heavy_tail_ratio?)))
            .collect()
    };
    let per_copy = pearson(&pairs(|row| row.successful_copy_ratio));
    let per_task = pearson(&pairs(|row| row.copies_per_task));
    Table3 {
        rows,
        per_copy,
        per_task,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truth::tests::{attempt, job, plain_task};
    use crate::{TruthConfig, label, recorded};
    use AttemptOutcome::{Killed, Succeeded};

    #[test]
    fn pearson_by_hand() {
        // x = 1, 2, 3; y = 2, 4, 7: means 2 and 13/3; dx = -1, 0, 1; dy = -7/3, -1/3, 8/3;
        // sxy = 7/3 + 8/3 = 5; sxx = 2; syy = (49 + 1 + 64)/9 = 38/3;
        // r = 5 / sqrt(2 x 38/3) = 5 / sqrt(76/3) = 0.99339...
        let c = pearson(&[(1.0, 2.0), (2.0, 4.0), (3.0, 7.0)]);
        assert_eq!(c.n, 3);
        let expected = 5.0 / (76.0f64 / 3.0).sqrt();
        assert!((c.r.unwrap() - expected).abs() < 1e-12);
        assert!((expected - 0.993_399).abs() < 1e-6);
        assert_eq!(pearson(&[(1.0, 2.0)]).r, None);
        assert_eq!(pearson(&[(1.0, 2.0), (1.0, 3.0)]).r, None, "constant x");
        let anti = pearson(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]);
        assert!((anti.r.unwrap() + 1.0).abs() < 1e-12);
    }

    #[test]
    fn per_job_ratios_by_hand() {
        // Job "a": tasks of 10, 10, 40 s (the 40 s one rescued by a copy launched at 20 that
        // succeeded at 40; its original was killed at 40), and a 10 s task with a copy that
        // lost. Task times 10, 10, 40, 10: mean 17.5, heavy tail 40/17.5 = 2.2857;
        // copies 2, successful 1: ratio 0.5, per task 1/4.
        // Job "b": tasks 10, 20: mean 15, heavy tail 20/15; no copy: ratio None, per task 0.
        // Job "c": tasks 10, 30 (mean 20, heavy tail 1.5), one successful copy of one:
        // ratio 1, per task 1/2.
        let mut rescued = plain_task("r", "map", 0.0, 0.0);
        rescued.attempts = vec![
            attempt("r0", 0.0, Some(40.0), Killed, None),
            attempt("r1", 20.0, Some(40.0), Succeeded, None),
        ];
        let mut lost = plain_task("l", "map", 0.0, 10.0);
        lost.attempts
            .push(attempt("l1", 5.0, Some(10.0), Killed, None));
        let mut rescued_c = plain_task("rc", "map", 0.0, 0.0);
        rescued_c.attempts = vec![
            attempt("x0", 0.0, Some(30.0), Killed, None),
            attempt("x1", 12.0, Some(30.0), Succeeded, None),
        ];
        let jobs = vec![
            job(
                "a",
                vec![
                    plain_task("m0", "map", 0.0, 10.0),
                    plain_task("m1", "map", 0.0, 10.0),
                    rescued,
                    lost,
                ],
            ),
            job(
                "b",
                vec![
                    plain_task("m0", "map", 0.0, 10.0),
                    plain_task("m1", "map", 0.0, 20.0),
                ],
            ),
            job("c", vec![plain_task("m0", "map", 0.0, 10.0), rescued_c]),
        ];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let recorded = recorded(&jobs, &labels);
        let table = table3(&jobs, &recorded);
        let a = &table.rows[0];
        assert_eq!((a.speculative_copies, a.successful_copies), (2, 1));
        assert_eq!(a.successful_copy_ratio, Some(0.5));
        assert_eq!(a.copies_per_task, Some(0.25));
        assert!((a.heavy_tail_ratio.unwrap() - 40.0 / 17.5).abs() < 1e-12);
        assert_eq!(table.rows[1].successful_copy_ratio, None);
        assert_eq!(table.rows[1].copies_per_task, Some(0.0));
        assert_eq!(table.rows[2].heavy_tail_ratio, Some(1.5));
        // Per copy: jobs a and c only, (0.5, 2.2857), (1, 1.5): two points, r = -1.
        assert_eq!(table.per_copy.n, 2);
        assert!((table.per_copy.r.unwrap() + 1.0).abs() < 1e-12);
        // Per task: (0.25, 2.2857), (0, 1.3333), (0.5, 1.5) over n = 3.
        let expected = pearson(&[(0.25, 40.0 / 17.5), (0.0, 20.0 / 15.0), (0.5, 1.5)]);
        assert_eq!(table.per_task.n, 3);
        assert_eq!(table.per_task.r, expected.r);
        // By hand: x mean 0.25, dx = 0, -0.25, 0.25; y = 2.285714, 1.333333, 1.5, mean
        // 1.706349; dy = 0.579365, -0.373016, -0.206349; sxy = 0.093254 - 0.051587 =
        // 0.041667; sxx = 0.125; syy = 0.335661 + 0.139141 + 0.042580 = 0.517382;
        // r = 0.041667 / sqrt(0.125 x 0.517382) = 0.041667 / 0.254308 = 0.16384.
        assert!((expected.r.unwrap() - 0.16384).abs() < 1e-4);
    }
}
