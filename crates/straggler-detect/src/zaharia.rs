//! LATE as Zaharia et al. published it (Zaharia, Konwinski, Joseph, Katz, Stoica,
//! "Improving MapReduce Performance in Heterogeneous Environments", OSDI 2008, Section 4),
//! with its three knobs: SlowTaskThreshold, SpeculativeCap and SlowNodeThreshold.
//!
//! For a running attempt `j` that started before the snapshot's instant, its progress rate
//! and its estimated time left are
//!
//! ```text
//! PR_j        = PS_j / (t_now - t_start)
//! time_left_j = (1 - PS_j) / PR_j                (+infinity when PR_j = 0)
//! ```
//!
//! - **SlowTaskThreshold** (a percentile, 25 by default): an attempt is slow iff
//!   `PR_j < quantile(PR of the running attempts of its stage, p / 100)`, with the quantile
//!   taken by linear interpolation between order statistics (numpy's default: with the
//!   rates sorted, `h = (n - 1) q`, `x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h])`).
//! - **SpeculativeCap** (10% by default): at most
//!   `cap = max(floor(fraction * running attempts), 1)` copies run at once; the running
//!   copies of the snapshot count against it, so a scan flags at most
//!   `cap - running copies` attempts. The floor is of the fraction's value: the cap is the
//!   most copies `k` with `k / running <= fraction`, both rounded as binary64 rounds them
//!   (`0.7 x 90` rounds to `62.99999999999999`, but 0.7 of 90 attempts is 63).
//! - Candidates are the original attempts of tasks without a running copy that are slow;
//!   they are ranked by `time_left`, longest first (ties by row), and the first ones, up to
//!   the room left under the cap, are flagged.
//! - **SlowNodeThreshold** (a percentile, 25 by default): a node's score is the mean, over
//!   its running attempts with a rate, of `PR_j / mean(PR of j's stage)`; a node is slow iff
//!   its score is below that percentile of the scores of the nodes that have one. In LATE
//!   this threshold decides where a copy may *launch* (never on a slow node), not which
//!   tasks are stragglers, so it filters no row here: slow nodes are reported with
//!   [`Findings::push_slow_node`], and [`SlowNodeRule::NoCopies`] tells the engine to
//!   start no copy there.
//!
//! # Where this differs from the OSDI paper
//!
//! - LATE decides when a node asks for work, one copy per request; here each scan flags up
//!   to the room left under the cap at once, and the launch (when, where) is the engine's.
//! - The paper's cap is 10% of the cluster's task slots; a snapshot has no slot count, so
//!   the cap is a fraction of the running attempts (originals and copies, all stages).
//! - The paper scores a node by the total progress of its finished and running tasks; a
//!   snapshot holds running attempts only, so the score is the mean rate of the node's
//!   running attempts relative to their stage's mean, which makes nodes running different
//!   stages comparable.
//! - The percentile of rates is taken per stage (maps apart from reduces, jobs apart);
//!   the ranking and the cap span the whole snapshot.
//! - No minimum running time. Hadoop's own scheduler, as the paper describes it before
//!   LATE, judges a task only once it has run for a minute (Hadoop 1's `SPECULATIVE_LAG`,
//!   60 s, the `hadoop1` detector's `lag_secs`). Whether LATE keeps that wait was not
//!   checked against the paper: the stored copies of its text that could be searched
//!   gave its abstract and introduction, not Section 4. Here an attempt is judged from
//!   the first scan at which it has a rate (`now > start`), however young: after 2 s, as
//!   after 64 s, the slowest of eight attempts is flagged
//!   [`zaharia_judges_an_attempt_however_young`, in `tests/spark_late.rs`].
//!
//! # Where this differs from [`LateDetector`](crate::LateDetector)
//!
//! `late` is the seed paper's reading (Hadoop 0.21): every attempt with
//! `PR_j < mean(PR) - alpha * SD` is flagged, with no cap, no ranking and no node
//! threshold. `late-zaharia` flags below a percentile instead, and at most as many
//! attempts as the cap leaves room for, those with the longest time left first.
//!
//! The scan is sequential: the ranking is one sort over the candidates of every stage and
//! the percentiles need sorted copies of each stage's rates, so there is no per-row work
//! worth handing out; the [`Parallelism`] a caller may have is not
//! needed. Sums run in row order, so the result does not depend on threads. Where the rows
//! are fewer than half the nodes, the node scores are summed by the numbers of the nodes
//! the rows name (`scan::Renumbering`, as Hierarchical's speeds), so that no pass reads or
//! clears every node's score: the same sums in the same order, and the slow nodes reported
//! in node order as before.

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, NodeId, Snapshot, TaskId};

use crate::error::check_param;
use crate::scan::{IdSet, Parallelism, Renumbering, elapsed_secs, filter_rows};
use crate::{DetectError, Detector, Findings, SlowNodeRule};

/// Parameters of [`ZahariaLate`], the knobs of LATE's Section 4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ZahariaLateParams {
    /// SlowTaskThreshold: the percentile of the stage's progress rates below which an
    /// attempt is slow (25). In `[0, 100]`.
    pub slow_task_percentile: f64,
    /// SpeculativeCap: the fraction of running attempts that may be copies (0.1, the
    /// paper's 10% of slots), at least one copy. In `(0, 1]`: a cap of zero would still
    /// allow that one copy, so it is refused rather than silently raised.
    pub speculative_cap: f64,
    /// SlowNodeThreshold: the percentile of node scores below which a node is slow (25).
    /// In `[0, 100]`.
    pub slow_node_percentile: f64,
}

impl Default for ZahariaLateParams {
    fn default() -> Self {
        ZahariaLateParams {
            slow_task_percentile: 25.0,
            speculative_cap: 0.1,
            slow_node_percentile: 25.0,
        }
    }
}

impl ZahariaLateParams {
    /// Checks the parameters: percentiles in `[0, 100]`, the cap in `(0, 1]`.
    pub fn check(self) -> Result<CheckedZahariaLateParams, DetectError> {
        let percentile =
            |param, value| check_param(param, value, "in [0, 100]", |p| (0.0..=100.0).contains(&p));
        percentile("slow_task_percentile", self.slow_task_percentile)?;
        check_param("speculative_cap", self.speculative_cap, "in (0, 1]", |c| {
            c > 0.0 && c <= 1.0
        })?;
        percentile("slow_node_percentile", self.slow_node_percentile)?;
        Ok(CheckedZahariaLateParams(self))
    }
}

/// [`ZahariaLateParams`] that passed [`ZahariaLateParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedZahariaLateParams(ZahariaLateParams);

/// LATE with Zaharia's knobs (OSDI 2008).
///
/// An original attempt without a running copy is slow iff its progress rate
/// `PS / (now - start)` is below the `slow_task_percentile` of its stage's rates; the slow
/// ones with the longest estimated time left `(1 - PS) / rate` are flagged, at most
/// `max(floor(speculative_cap * running attempts), 1)` minus the running copies. Nodes
/// whose mean rate relative to their attempts' stage means is below the
/// `slow_node_percentile` of the node scores are reported as slow (LATE launches no copy
/// there); no row is filtered on them. `src/zaharia.rs` documents the formulas and the
/// differences with the paper and with [`LateDetector`](crate::LateDetector).
#[derive(Debug, Clone, Default)]
pub struct ZahariaLate {
    params: ZahariaLateParams,
    /// Scratch, kept between scans (a buffer per scan cost page faults at 10^6 rows): the
    /// rate of every row (NaN: none), the rates grouped by stage, the slow rows, the
    /// candidates, each node's score (or each number's), the slow nodes; with far more
    /// nodes than rows, the numbers of the nodes the rows name.
    rates: Vec<f64>,
    by_stage: Vec<f64>,
    slow: Vec<u32>,
    candidates: Vec<(f64, u32)>,
    node_scores: Vec<Mean>,
    slow_nodes: Vec<u32>,
    renumbering: Renumbering,
}

impl ZahariaLate {
    /// A detector with checked parameters.
    pub fn new(params: CheckedZahariaLateParams) -> Self {
        ZahariaLate {
            params: params.0,
            ..ZahariaLate::default()
        }
    }

    /// The parameters.
    pub fn params(&self) -> &ZahariaLateParams {
        &self.params
    }
}

/// The `q`-quantile (`q` in `[0, 1]`) of `values` by linear interpolation between order
/// statistics (numpy's default), kept between the two it interpolates; `None` when empty.
/// Found by selection (O(n)) rather than by sorting (O(n log n)):
/// the two order statistics it interpolates are exact, so the result is the one
/// `quantile` gives on the sorted values. Reorders `values`.
fn quantile_unsorted(values: &mut [f64], q: f64) -> Option<f64> {
    let last = values.len().checked_sub(1)?;
    let h = last as f64 * q;
    let lo = (h.floor() as usize).min(last);
    let (_, &mut a, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    // The next order statistic is the smallest value above the `lo`-th.
    let b = above.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    Some((a + (h - lo as f64) * (b - a)).max(a).min(b))
}

/// SpeculativeCap's number of copies for `fraction` (in `(0, 1]`) of `running` attempts:
/// the most copies `k` with `k / running <= fraction`, the quotient rounded as binary64
/// rounds it, and at least one. That is `floor(fraction x running)` but where the product
/// rounds below a whole number that the fraction reaches: `0.7 x 90` is
/// `62.99999999999999` in binary64, while `63 / 90` rounds to `0.7`, so the cap is 63.
fn copy_cap(fraction: f64, running: usize) -> usize {
    let quotient = |k: usize| k as f64 / running as f64;
    let mut cap = ((fraction * running as f64).floor() as usize).min(running);
    if cap > 0 && quotient(cap) > fraction {
        cap -= 1;
    } else if cap < running && quotient(cap + 1) <= fraction {
        cap += 1;
    }
    cap.max(1)
}

/// Orders candidates by time left, longest first, ties by row.
fn by_time_left(a: &(f64, u32), b: &(f64, u32)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// Mean of values summed in order, kept within their range; `None` when there are none.
#[derive(Debug, Clone, Copy)]
struct Mean {
    sum: f64,
    count: u32,
    min: f64,
    max: f64,
}

impl Default for Mean {
    fn default() -> Self {
        Mean {
            sum: 0.0,
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Mean {
    fn add(&mut self, v: f64) {
        self.sum += v;
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }
    fn get(self) -> Option<f64> {
        (self.count > 0).then(|| {
            (self.sum / f64::from(self.count))
                .max(self.min)
                .min(self.max)
        })
    }
}

impl Detector for ZahariaLate {
    fn name(&self) -> &str {
        "late-zaharia"
    }

    /// [`SlowNodeRule::NoCopies`]: LATE launches no copy on a node below SlowNodeThreshold.
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::NoCopies
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        let (progress, start) = (snapshot.progress(), snapshot.start_secs());
        let (stages, nodes) = (snapshot.stage_indices(), snapshot.node_indices());
        let (tasks, roles) = (snapshot.tasks(), snapshot.roles());
        let stage_count = snapshot.stages().len();
        // PR_j, NaN for an attempt started now (or a rate that overflows).
        self.rates.clear();
        self.rates
            .extend(progress.iter().zip(start).map(|(&p, &s)| {
                let rate = elapsed_secs(now, s).map_or(f64::NAN, |e| p / e);
                if rate.is_finite() { rate } else { f64::NAN }
            }));
        let rates = &self.rates;
        // SlowTaskThreshold, per stage: the defined rates grouped by stage (a counting
        // sort), then each stage's percentile by selection.
        let mut offsets = vec![0usize; stage_count + 1];
        for (rate, &stage) in rates.iter().zip(stages) {
            if !rate.is_nan() {
                offsets[stage as usize + 1] += 1;
            }
        }
        for s in 0..stage_count {
            offsets[s + 1] += offsets[s];
        }
        self.by_stage.clear();
        self.by_stage.resize(offsets[stage_count], 0.0);
        let mut next = offsets.clone();
        for (&rate, &stage) in rates.iter().zip(stages) {
            if !rate.is_nan() {
                let slot = &mut next[stage as usize];
                self.by_stage[*slot] = rate;
                *slot += 1;
            }
        }
        let q_task = self.params.slow_task_percentile / 100.0;
        let thresholds: Vec<f64> = (0..stage_count)
            .map(|s| {
                quantile_unsorted(&mut self.by_stage[offsets[s]..offsets[s + 1]], q_task)
                    .unwrap_or(f64::NEG_INFINITY)
            })
            .collect();
        // SpeculativeCap.
        let running_copies = roles
            .iter()
            .filter(|&&r| r == AttemptRole::Speculative)
            .count();
        let copied: IdSet<TaskId> = if running_copies == 0 {
            IdSet::default()
        } else {
            tasks
                .iter()
                .zip(roles)
                .filter(|(_, role)| **role == AttemptRole::Speculative)
                .map(|(&task, _)| task)
                .collect()
        };
        let cap = copy_cap(self.params.speculative_cap, tasks.len());
        let room = cap.saturating_sub(running_copies);
        if room > 0 {
            // The slow originals without a copy (NaN, no rate, fails the comparison), a
            // word of answers at a time, then their time left.
            self.slow.clear();
            let slow = |row: usize| {
                (rates[row] < thresholds[stages[row] as usize])
                    & (roles[row] == AttemptRole::Original)
            };
            filter_rows(tasks.len(), Parallelism::Sequential, slow, &mut self.slow);
            if running_copies > 0 {
                self.slow
                    .retain(|&row| !copied.contains(&tasks[row as usize]));
            }
            self.candidates.clear();
            self.candidates.extend(self.slow.iter().map(|&row| {
                let rate = rates[row as usize];
                let time_left = if rate > 0.0 {
                    (1.0 - progress[row as usize]) / rate
                } else {
                    f64::INFINITY
                };
                (time_left, row)
            }));
            // The `room` first in (time left descending, row) order: a total order, so
            // selection keeps exactly the candidates a full sort would.
            let candidates = &mut self.candidates;
            if candidates.len() > room {
                candidates.select_nth_unstable_by(room - 1, by_time_left);
                candidates.truncate(room);
            }
            let first = findings.rows().len();
            let rows = findings.rows_mut();
            rows.extend(candidates.iter().map(|&(_, row)| row));
            rows[first..].sort_unstable();
        }
        // SlowNodeThreshold: report the slow nodes.
        let mut stage_means = vec![Mean::default(); stage_count];
        for (&rate, &stage) in rates.iter().zip(stages) {
            if !rate.is_nan() {
                stage_means[stage as usize].add(rate);
            }
        }
        let stage_means: Vec<Option<f64>> = stage_means.into_iter().map(Mean::get).collect();
        // Scores by node, or, with far more nodes than rows, by the numbers of the nodes
        // the rows name (`Renumbering`): the same scores, without a pass over every node.
        let node_count = snapshot.node_count() as usize;
        let group_count = self.renumbering.number_if_it_pays(nodes, node_count);
        let groups = self.renumbering.sum_groups(nodes);
        let node_scores = &mut self.node_scores;
        node_scores.clear();
        node_scores.resize(group_count, Mean::default());
        for row in 0..tasks.len() {
            let relative = Some(rates[row])
                .filter(|r| !r.is_nan())
                .zip(stage_means[stages[row] as usize])
                .filter(|&(_, mean)| mean > 0.0)
                .map(|(rate, mean)| rate / mean);
            if let Some(relative) = relative {
                node_scores[groups[row] as usize].add(relative);
            }
        }
        let node_scores: Vec<Option<f64>> = node_scores.iter().map(|m| m.get()).collect();
        let mut scores: Vec<f64> = node_scores.iter().flatten().copied().collect();
        if let Some(bar) = quantile_unsorted(&mut scores, self.params.slow_node_percentile / 100.0)
        {
            let slow = node_scores
                .iter()
                .enumerate()
                .filter(|(_, score)| score.is_some_and(|s| s < bar))
                .map(|(group, _)| group as u32);
            self.slow_nodes.clear();
            self.slow_nodes.extend(slow);
            // In node order, by node or by number.
            self.renumbering.found_groups(nodes, &mut self.slow_nodes);
            for &node in &self.slow_nodes {
                findings.push_slow_node(NodeId(node));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::conformance::{SplitMix64, build_snapshot};

    /// The `q`-quantile (`q` in `[0, 1]`) of sorted values by linear interpolation (numpy's
    /// default), kept between the two order statistics it interpolates; `None` when empty.
    fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
        let last = sorted.len().checked_sub(1)?;
        let h = last as f64 * q;
        let lo = (h.floor() as usize).min(last);
        let hi = (lo + 1).min(last);
        let (a, b) = (sorted[lo], sorted[hi]);
        Some((a + (h - lo as f64) * (b - a)).max(a).min(b))
    }

    /// The scan as it was before selection replaced sorting: the reference the faster
    /// scan must match exactly.
    fn reference_scan(params: &ZahariaLateParams, snapshot: &Snapshot) -> Findings {
        let mut findings = Findings::default();
        let now = snapshot.now_secs();
        let (progress, start) = (snapshot.progress(), snapshot.start_secs());
        let (stages, nodes) = (snapshot.stage_indices(), snapshot.node_indices());
        let (tasks, roles) = (snapshot.tasks(), snapshot.roles());
        let stage_count = snapshot.stages().len();
        let rates: Vec<Option<f64>> = progress
            .iter()
            .zip(start)
            .map(|(&p, &s)| {
                elapsed_secs(now, s)
                    .map(|e| p / e)
                    .filter(|r| r.is_finite())
            })
            .collect();
        let mut by_stage: Vec<Vec<f64>> = vec![Vec::new(); stage_count];
        for (rate, &stage) in rates.iter().zip(stages) {
            if let Some(rate) = *rate {
                by_stage[stage as usize].push(rate);
            }
        }
        let thresholds: Vec<f64> = by_stage
            .iter_mut()
            .map(|rates| {
                rates.sort_by(f64::total_cmp);
                quantile(rates, params.slow_task_percentile / 100.0).unwrap_or(f64::NEG_INFINITY)
            })
            .collect();
        let copied: HashSet<TaskId> = tasks
            .iter()
            .zip(roles)
            .filter(|(_, role)| **role == AttemptRole::Speculative)
            .map(|(&task, _)| task)
            .collect();
        let running_copies = roles
            .iter()
            .filter(|&&r| r == AttemptRole::Speculative)
            .count();
        let cap = copy_cap(params.speculative_cap, tasks.len());
        let room = cap.saturating_sub(running_copies);
        if room > 0 {
            let mut candidates: Vec<(f64, u32)> = (0..tasks.len())
                .filter_map(|row| {
                    let rate = rates[row]?;
                    let eligible = roles[row] == AttemptRole::Original
                        && !copied.contains(&tasks[row])
                        && rate < thresholds[stages[row] as usize];
                    let time_left = if rate > 0.0 {
                        (1.0 - progress[row]) / rate
                    } else {
                        f64::INFINITY
                    };
                    eligible.then_some((time_left, row as u32))
                })
                .collect();
            candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            candidates.truncate(room);
            let mut flagged: Vec<u32> = candidates.into_iter().map(|(_, row)| row).collect();
            flagged.sort_unstable();
            findings.rows_mut().extend(flagged);
        }
        let mut stage_means = vec![Mean::default(); stage_count];
        for (rate, &stage) in rates.iter().zip(stages) {
            if let Some(rate) = *rate {
                stage_means[stage as usize].add(rate);
            }
        }
        let stage_means: Vec<Option<f64>> = stage_means.into_iter().map(Mean::get).collect();
        let mut node_scores = vec![Mean::default(); snapshot.node_count() as usize];
        for row in 0..tasks.len() {
            let relative = rates[row]
                .zip(stage_means[stages[row] as usize])
                .filter(|&(_, mean)| mean > 0.0)
                .map(|(rate, mean)| rate / mean);
            if let Some(relative) = relative {
                node_scores[nodes[row] as usize].add(relative);
            }
        }
        let node_scores: Vec<Option<f64>> = node_scores.into_iter().map(Mean::get).collect();
        let mut sorted: Vec<f64> = node_scores.iter().flatten().copied().collect();
        sorted.sort_by(f64::total_cmp);
        if let Some(bar) = quantile(&sorted, params.slow_node_percentile / 100.0) {
            for (node, score) in node_scores.iter().enumerate() {
                if score.is_some_and(|s| s < bar) {
                    findings.push_slow_node(NodeId(node as u32));
                }
            }
        }
        findings
    }

    #[test]
    fn selection_matches_sorting() {
        let mut rng = SplitMix64(0x2a);
        // One detector per parameters over every case, so that the numbers of a case's
        // nodes are given over the entries an earlier case left.
        let params = [
            (25.0, 25.0, 0.1),
            (0.0, 100.0, 1.0),
            (100.0, 0.0, 0.01),
            (50.0, 50.0, 0.5),
        ]
        .map(|(task, node, cap)| ZahariaLateParams {
            slow_task_percentile: task,
            speculative_cap: cap,
            slow_node_percentile: node,
        });
        let mut detectors = params.map(|p| ZahariaLate::new(p.check().expect("valid")));
        for case in 0..60u32 {
            let rows = 1 + rng.below(3_000) as usize;
            // In a third of the cases, up to 20,000 nodes: most often more than twice the
            // rows, where the scan numbers the nodes the rows name.
            let most_nodes = if case % 3 == 1 { 20_000 } else { 50 };
            let (stage_count, node_count) = (1 + rng.below(4), 1 + rng.below(most_nodes));
            let now = 1_000.0;
            // Repeated values (a few progress levels and start times) make ties, some
            // rows start at `now`, some have zero progress.
            let data: Vec<_> = (0..rows)
                .map(|_| {
                    let start = [0.0, 100.0, 500.0, now][rng.below(4) as usize];
                    let progress = if case % 2 == 0 {
                        f64::from(rng.below(5)) / 4.0
                    } else {
                        rng.unit()
                    };
                    (
                        rng.below(stage_count),
                        rng.below(node_count),
                        start,
                        progress,
                        1.0,
                    )
                })
                .collect();
            let mut snapshot = build_snapshot(now, node_count, stage_count, data).expect("valid");
            if case % 3 == 0 {
                // A few copies of the first tasks.
                for row in 0..rows.min(5) {
                    let mut copy = snapshot.row(row).expect("row");
                    copy.role = AttemptRole::Speculative;
                    snapshot.push(copy).expect("valid");
                }
            }
            for (params, detector) in params.iter().zip(&mut detectors) {
                let mut fast = Findings::default();
                detector.scan(&snapshot, &mut fast);
                assert_eq!(
                    fast,
                    reference_scan(params, &snapshot),
                    "case {case}, {params:?}"
                );
            }
        }
    }

    #[test]
    fn copy_cap_is_the_most_copies_within_the_fraction() {
        // 0.7 x 90 = 62.99999999999999 in binary64; 63 / 90 rounds to 0.7.
        assert_eq!(copy_cap(0.7, 90), 63);
        assert_eq!(
            (copy_cap(0.1, 8), copy_cap(0.25, 9), copy_cap(1.0, 0)),
            (1, 2, 1)
        );
        // Every percentage of up to 500 attempts: the most k with k / n <= fraction.
        for percent in 1..=100u32 {
            let fraction = f64::from(percent) / 100.0;
            for n in 0..=500usize {
                let most = (0..=n)
                    .rfind(|&k| k as f64 / n as f64 <= fraction)
                    .unwrap_or(0);
                assert_eq!(copy_cap(fraction, n), most.max(1), "{fraction} of {n}");
            }
        }
    }

    #[test]
    fn quantile_by_selection_is_the_sorted_one() {
        let mut rng = SplitMix64(7);
        for n in 1..40 {
            let values: Vec<f64> = (0..n).map(|_| f64::from(rng.below(6))).collect();
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            for q in [0.0, 0.1, 0.25, 0.5, 0.77, 1.0] {
                let mut scratch = values.clone();
                assert_eq!(quantile_unsorted(&mut scratch, q), quantile(&sorted, q));
            }
        }
        assert_eq!(quantile_unsorted(&mut [], 0.5), None);
    }
}
