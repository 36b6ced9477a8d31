//! Hierarchical: keeps another detector's detections on slow nodes only (Phan et al.,
//! Euro-Par 2017; seed paper, Section 5.5).
//!
//! For each running attempt `i` with elapsed time `t_now - t_start > 0` (and a finite
//! speed: one that a sub-normal elapsed time overflows is left out, as LATE's rate):
//!
//! ```text
//! Speed_i = PS_i * Size_total data,i / (t_now - t_start)
//! Perf_N  = (1/|N|) sum_{i on N} Speed_i          (mean speed of the node's attempts)
//! ```
//!
//! The cluster's average performance is the mean of `Perf_N` over the nodes running at
//! least one attempt with a speed. A detection of the wrapped detector is kept iff its
//! node's `Perf_N` is below `node_threshold` (0.9) times that average. Attempts of all
//! stages count, speculative copies too (they run on the node, and Default, the wrapped
//! detector, leaves them out of its own statistics), as in the paper ("the performance
//! information of all tasks running");
//! since speed is measured in input bytes per second, a node running tasks of a stage with
//! small inputs (reduces, say) beside another stage's looks slower. In the paper's job the
//! reduces start after the last map, so the stages never mix on a node.
//!
//! # Node speeds from sums and counts, usually
//!
//! A mean is kept at or below its group's largest value ([`GroupSum::mean`]), so the exact
//! `Perf_N` needs each node's largest speed besides its sum and count, and where the rows
//! of many nodes are mixed, every one of the three is a read, an addition and a write at a
//! place that changes from row to row. The scan decides with sums and counts alone when
//! it can, and flags the same rows as the exact rule. With `u = 2^-53` and
//! `gamma_k = k u / (1 - k u)` (Higham, *Accuracy and Stability of Numerical Algorithms*,
//! 2nd ed., Lemma 3.1 and Eq. 4.4: a sum of `n` non-negative numbers rounded in any order
//! is within `gamma_(n-1)` of the exact sum, relatively), for a node of `n` speeds of exact
//! mean `s`:
//!
//! - the exact rule's `Perf_N`, the rounded `sum / n` or, if that is above every speed, the
//!   largest speed (which is at least `s`), is `s (1 + t)` with `|t| <= gamma_n`;
//! - the scan's `m_N`, `sum / n` rounded without the bound, is too, so
//!   `Perf_N = m_N (1 + t')` with `|t'| <= gamma_2n` (Lemma 3.3);
//! - over the `M` nodes with a speed, the same steps bound the exact cluster average by the
//!   scan's within `gamma_(2 n_max + 2M)`, `n_max` the most speeds of one node, and the
//!   bars `node_threshold x average` within `gamma_(2 n_max + 2M + 2)`.
//!
//! So `Perf_N < bar` is decided by `m_N` against the scan's bar `B` widened by
//! `gamma_K`, `K = 4 n_max + 2M + 3` (one more for the results too small to be normal
//! that a division rounds absolutely: at most `2^-1074` each, beside an average of at
//! least `2^-900`). The scan computes `low = B (1 - 2 gamma_K)` and
//! `high = B (1 + 2 gamma_K)`, twice the width, which covers their own rounding: a node
//! below `low` is slow by the exact rule, one at or above `high` is not. If a node's
//! `m_N` lies between them, or the average or the bar is outside `[2^-900, 2^900]`
//! (where the bound does not hold, or a sum could overflow), the exact rule decides, in
//! a second pass that keeps the largest speeds. Speeds spread, so that is rare: the
//! snapshots of `cargo xtask bench scans` never need it, and nodes of identical speeds at
//! `node_threshold` 1 do. The tests compare the rows kept both ways.
//!
//! # Many nodes, few rows
//!
//! The sums and counts are kept per node, but where the rows are fewer than half the nodes
//! (and the scan runs on one thread), most nodes run nothing: the sums by node are scattered
//! over every node's, and a pass over every node (dividing, marking) costs more than the
//! pass over the rows. The scan then numbers the nodes that the rows name, in the order of
//! their first row ([`Renumbering`]), and keeps its sums, means and marks by number: the
//! same `m_N`, summed into the average in another order, which the bounds above allow
//! (Higham's bound holds for any order), so the same nodes are settled and the same rows
//! kept; the tests compare the three ways. On 10^4 nodes, that took the scan from 6.2 to
//! 3.9 ns per row with 10^3 rows, from 7.1 to 3.7 with 2,000 and from 4.3 to 3.4 with
//! 4,000; with as many rows as nodes, numbering cost more than it saved
//! (`docs/scan-measurements.md`, *The nodes numbered*).

use serde::{Deserialize, Serialize};
use straggler_model::{Observation, Snapshot};

use crate::error::check_param;
use crate::scan::{
    GroupSum, GroupSums, RateTotals, Rates, Renumbering, RowBlocks, Summands, keep_marked,
    mark_below, means,
};
use crate::{DetectError, Detector, Findings, Parallelism, SlowNodeRule};

/// Parameters of [`Hierarchical`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HierarchicalParams {
    /// Fraction of the cluster's average node performance below which a node is slow (0.9
    /// in the paper). Finite, `> 0`.
    pub node_threshold: f64,
    /// How the node statistics use threads.
    pub parallelism: Parallelism,
}

impl Default for HierarchicalParams {
    fn default() -> Self {
        HierarchicalParams {
            node_threshold: 0.9,
            parallelism: Parallelism::default(),
        }
    }
}

impl HierarchicalParams {
    /// Checks the parameters: `node_threshold` finite and `> 0`.
    pub fn check(self) -> Result<CheckedHierarchicalParams, DetectError> {
        check_param(
            "node_threshold",
            self.node_threshold,
            "finite and > 0",
            |t| t > 0.0,
        )?;
        Ok(CheckedHierarchicalParams(self))
    }
}

/// [`HierarchicalParams`] that passed [`HierarchicalParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedHierarchicalParams(HierarchicalParams);

/// Wraps a detector and keeps its detections on slow nodes only.
#[derive(Debug, Clone)]
pub struct Hierarchical<D> {
    inner: D,
    params: HierarchicalParams,
    name: String,
    /// Buffers kept between scans: the wrapped detector's findings, each node's
    /// performance (or each number's, [`Renumbering`]), the slow nodes or numbers (1 for
    /// each, 0 for another; padded with 0s to a power of two, which [`keep_marked`] looks
    /// up fastest), the kept rows.
    flagged: Findings,
    perf: Vec<f64>,
    slow: Vec<u8>,
    node_totals: RateTotals,
    node_sums: GroupSums,
    kept: RowBlocks,
    /// The numbers of the nodes that the rows name, where the scan judges by them.
    renumbering: Renumbering,
    /// Scans since construction whose nodes the exact rule judged (see the module docs;
    /// `reset` leaves it: it counts work, not what a scan finds).
    exact_passes: u64,
}

impl<D: Detector> Hierarchical<D> {
    /// Wraps `inner`. The name is `"hierarchical"` over Default (the paper's detector) and
    /// `"hierarchical(<inner>)"` over any other detector.
    pub fn new(inner: D, params: CheckedHierarchicalParams) -> Self {
        let name = match inner.name() {
            "default" => "hierarchical".to_owned(),
            other => format!("hierarchical({other})"),
        };
        Hierarchical {
            inner,
            params: params.0,
            name,
            flagged: Findings::default(),
            perf: Vec::new(),
            slow: Vec::new(),
            node_totals: RateTotals::default(),
            node_sums: GroupSums::mixed(),
            kept: RowBlocks::default(),
            renumbering: Renumbering::default(),
            exact_passes: 0,
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// Marks the slow groups in `self.slow` from sums and counts alone (see the module
    /// docs), `groups[row]` being the group of each row, below `group_count`: the nodes, or
    /// their numbers ([`Renumbering`]); `false` when the exact rule must decide.
    fn mark_settled(&mut self, snapshot: &Snapshot, groups: &[u32], group_count: usize) -> bool {
        let average = self.node_totals.means(
            groups,
            &speeds(snapshot),
            group_count,
            self.params.parallelism,
            &mut self.perf,
        );
        self.bounds(average, groups.len())
            .is_some_and(|(low, high)| mark_below(&self.perf, low, high, &mut self.slow) == 0)
    }

    /// Each node's `m_N` into `self.perf` (NaN for a node without a speed) and the bounds
    /// of the exact bar from them (see [`Hierarchical::bounds`]).
    #[cfg(test)]
    fn fast_bounds(&mut self, snapshot: &Snapshot) -> Option<(f64, f64)> {
        let nodes = snapshot.node_indices();
        let average = self.node_totals.means(
            nodes,
            &speeds(snapshot),
            snapshot.node_count() as usize,
            self.params.parallelism,
            &mut self.perf,
        );
        self.bounds(average, nodes.len())
    }

    /// The bounds `(low, high)` of the exact bar from the sums of the nodes' `m_N` over
    /// `rows` rows (see the module docs): a node below `low` is slow, one at or above
    /// `high` is not. `(NaN, NaN)` when no node has a speed (no node is slow); `None` when
    /// the average or the bar is outside `[2^-900, 2^900]`, or `K u` reaches `10^-3` (rows
    /// by the trillion, where `gamma_K` grows apart from `K u`).
    fn bounds(&self, average: GroupSum, rows: usize) -> Option<(f64, f64)> {
        /// Where the bound holds and no sum overflows: from `2^-900` (this) to `2^900`.
        const LEAST: f64 = f64::from_bits((1023 - 900) << 52);
        let Some(mean) = average.mean() else {
            return Some((f64::NAN, f64::NAN));
        };
        let bar = self.params.node_threshold * mean;
        // `K = 4 n_max + 2M + 3`, a node having at most every row.
        let k = 4.0 * rows as f64 + 2.0 * average.count as f64 + 3.0;
        let ku = k * (f64::EPSILON / 2.0);
        let within = |v: f64| (LEAST..=1.0 / LEAST).contains(&v);
        if !(within(mean) && within(bar) && ku < 1e-3) {
            return None;
        }
        let gamma = ku / (1.0 - ku);
        Some((bar * (1.0 - 2.0 * gamma), bar * (1.0 + 2.0 * gamma)))
    }

    /// Marks the slow nodes in `self.slow` by the exact rule: `Perf_N` of every node into
    /// `self.perf` (NaN for a node without one), below the bar returned, `node_threshold`
    /// times the cluster's average (NaN, no node slow, when no node has a performance).
    fn mark_exact(&mut self, snapshot: &Snapshot) -> f64 {
        let node_count = snapshot.node_count() as usize;
        let nodes = snapshot.node_indices();
        let parallelism = self.params.parallelism;
        // Speed_i of each row (NaN for a row without one), computed as it is summed: Perf_N.
        let sums = self.node_sums.compute(
            nodes,
            &speeds(snapshot),
            node_count,
            parallelism,
            Summands::Values,
        );
        means(sums, &mut self.perf);
        // The mean of the nodes' performances, those without one left out; NaN (no node
        // slow) when no node has one.
        let average = GroupSum::of_run(&self.perf).mean().unwrap_or(f64::NAN);
        let bar = self.params.node_threshold * average;
        mark_below(&self.perf, bar, bar, &mut self.slow);
        bar
    }

    /// [`Detector::scan`], the nodes judged as `judging` says (the tests compare the
    /// ways).
    fn scan_with(&mut self, snapshot: &Snapshot, findings: &mut Findings, judging: Judging) {
        self.flagged.clear();
        self.inner.scan(snapshot, &mut self.flagged);
        for &node in self.flagged.slow_nodes() {
            findings.push_slow_node(node);
        }
        if self.flagged.rows().is_empty() {
            return;
        }
        let nodes = snapshot.node_indices();
        let node_count = snapshot.node_count() as usize;
        let judging = match judging {
            Judging::Auto => {
                let rows = snapshot.len();
                if !self.params.parallelism.is_parallel(rows) && Renumbering::pays(rows, node_count)
                {
                    Judging::RenumberedNodes
                } else {
                    Judging::AllNodes
                }
            }
            judging => judging,
        };
        // The nodes' numbers, taken out of `self` while the nodes are judged by them.
        let mut renumbering = std::mem::take(&mut self.renumbering);
        let (groups, settled) = match judging {
            Judging::AllNodes => (nodes, self.mark_settled(snapshot, nodes, node_count)),
            Judging::RenumberedNodes => {
                let numbers = renumbering.renumber(nodes, node_count);
                let groups = renumbering.numbers();
                (groups, self.mark_settled(snapshot, groups, numbers))
            }
            _ => (nodes, false),
        };
        let groups = if settled {
            groups
        } else {
            self.exact_passes += 1;
            self.mark_exact(snapshot);
            nodes
        };
        // Padded with 0s to a power of two, which `keep_marked` looks up fastest.
        self.slow.resize(self.slow.len().next_power_of_two(), 0);
        let flagged = self.flagged.rows();
        let slow = &self.slow[..];
        self.kept.append(
            flagged.len(),
            self.params.parallelism,
            |rows, slots| keep_marked(&flagged[rows], groups, slow, slots),
            findings.rows_mut(),
        );
        self.renumbering = renumbering;
    }
}

/// How [`Hierarchical`]'s scan judges the nodes (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Judging {
    /// From sums and counts, by the nodes' numbers where the rows are fewer than half the
    /// nodes and the scan runs on one thread, by every node otherwise.
    Auto,
    /// From sums and counts, by every node.
    AllNodes,
    /// From sums and counts, by the numbers of the nodes that the rows name
    /// ([`Renumbering`]).
    RenumberedNodes,
    /// By the exact rule.
    #[cfg(test)]
    Exact,
}

/// `Speed_i` of each row, NaN for a row without one.
fn speeds(snapshot: &Snapshot) -> Rates<'_> {
    Rates {
        now_secs: snapshot.now_secs(),
        progress: snapshot.progress(),
        weights: Some(snapshot.input_bytes()),
        start_secs: snapshot.start_secs(),
    }
}

impl<D: Detector> Detector for Hierarchical<D> {
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let parallelism = self.params.parallelism;
        parallelism.on_pool(snapshot.len(), || {
            self.scan_with(snapshot, findings, Judging::Auto);
        });
    }

    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }

    fn reset(&mut self) {
        self.inner.reset();
    }

    /// The wrapped detector's: the slow nodes reported are its.
    fn slow_node_rule(&self) -> SlowNodeRule {
        self.inner.slow_node_rule()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DefaultDetector;
    use crate::conformance::{FlagAll, Row, SplitMix64, build_snapshot, straggling_stage};

    fn hierarchical<D: Detector>(
        inner: D,
        threshold: f64,
        parallel: Parallelism,
    ) -> Hierarchical<D> {
        let params = HierarchicalParams {
            node_threshold: threshold,
            parallelism: parallel,
        };
        Hierarchical::new(inner, params.check().expect("node_threshold"))
    }

    /// The rows kept with the bounds and by the exact rule. Where the bounds are given, the
    /// exact bar lies between them, every node below `low` is slow by the exact rule and
    /// every node at or above `high` is not, and each node's `Perf_N` is within
    /// `gamma_2n` of its `m_N` (`n` at most the rows).
    fn both_ways<D: Detector>(
        detector: &mut Hierarchical<D>,
        snapshot: &Snapshot,
    ) -> (Vec<u32>, Vec<u32>) {
        let bounds = detector.fast_bounds(snapshot);
        let fast_means = detector.perf.clone();
        let bar = detector.mark_exact(snapshot);
        if let Some((low, high)) = bounds.filter(|(low, _)| !low.is_nan()) {
            assert!(low <= bar && bar <= high, "{bar} not in [{low}, {high}]");
            let ku = 2.0 * snapshot.len() as f64 * (f64::EPSILON / 2.0);
            let gamma = ku / (1.0 - ku);
            for (node, (&m, &p)) in fast_means.iter().zip(&detector.perf).enumerate() {
                assert_eq!(m.is_nan(), p.is_nan(), "node {node}");
                assert!(
                    (p - m).abs() <= gamma * m || m.is_nan(),
                    "node {node}: {p}, {m}"
                );
                if m < low {
                    assert!(p < bar, "node {node}: {p} not below {bar}");
                }
                if m >= high {
                    assert!(p >= bar, "node {node}: {p} below {bar}");
                }
            }
        }
        // By the nodes' numbers, before and after scans that leave marks by node, and
        // again after one that leaves none.
        let judgings = [
            Judging::RenumberedNodes,
            Judging::AllNodes,
            Judging::RenumberedNodes,
            Judging::Exact,
            Judging::RenumberedNodes,
            Judging::RenumberedNodes,
        ];
        let ways = judgings.map(|judging| {
            let mut findings = Findings::default();
            detector.scan_with(snapshot, &mut findings, judging);
            findings.rows().to_vec()
        });
        for (way, judging) in ways.iter().zip(judgings) {
            assert_eq!(way, &ways[3], "{judging:?}");
        }
        let [_, bounded, .., exact, _, _] = ways;
        (bounded, exact)
    }

    /// Rows of `nodes` nodes whose speeds are `speed(rng)` bytes per second, one in
    /// `at_now` (if any) started at the snapshot's instant (no speed), over three stages.
    fn speeds_rows(
        rows: usize,
        nodes: u32,
        at_now: Option<usize>,
        mut speed: impl FnMut(&mut SplitMix64) -> f64,
    ) -> Snapshot {
        let mut rng = SplitMix64(rows as u64 ^ u64::from(nodes));
        let rows: Vec<Row> = (0..rows)
            .map(|i| {
                let (stage, node) = ((i % 3) as u32, rng.below(nodes));
                if at_now.is_some_and(|k| i % k == 0) {
                    return (stage, node, 1000.0, 0.0, 1e6);
                }
                // Progress 0.5 over 500 s: the input sets the speed.
                (stage, node, 500.0, 0.5, speed(&mut rng) * 1000.0)
            })
            .collect();
        build_snapshot(1000.0, nodes, 3, rows).expect("valid rows")
    }

    #[test]
    fn the_bounds_keep_what_the_exact_rule_keeps() {
        let snapshots = [
            // The benchmark's stage, as many nodes as rows, and ten nodes per row.
            straggling_stage(10_000, 100, 1).expect("valid rows"),
            straggling_stage(3000, 3000, 2).expect("valid rows"),
            straggling_stage(1000, 10_000, 3).expect("valid rows"),
            // Speeds spread over five orders of magnitude, a few nodes to many, some
            // rows with no speed.
            speeds_rows(2000, 1, Some(7), |r| 10f64.powf(5.0 * r.unit())),
            speeds_rows(2000, 3, Some(50), |r| 10f64.powf(5.0 * r.unit())),
            speeds_rows(5000, 700, None, |r| 10f64.powf(5.0 * r.unit())),
            speeds_rows(300, 5000, Some(7), |r| 10f64.powf(5.0 * r.unit())),
            // Nearly equal speeds, and equal ones (0.1: a mean of three rounds above it).
            speeds_rows(3000, 40, None, |r| 1.0 + 1e-14 * r.unit()),
            speeds_rows(300, 40, Some(3), |_| 0.1),
            // Nodes 0 and 2 run three attempts at 0.1, node 1 one: their m_N are 0.1 and
            // 0.10000000000000002, and the scan's average is above 0.1, where the exact one
            // is 0.1; at a threshold of 1, bounds without a margin would make node 1 slow.
            build_snapshot(
                1.0,
                3,
                1,
                [0, 0, 0, 1, 2, 2, 2].map(|node| (0, node, 0.0, 0.1, 1.0)),
            )
            .expect("valid rows"),
            // Speeds too small and too large for the bounds.
            speeds_rows(500, 10, None, |r| 1e-290 * (1.0 + r.unit())),
            speeds_rows(500, 10, None, |r| 1e290 * (1.0 + r.unit())),
            // No speed at all.
            speeds_rows(50, 10, Some(1), |_| 1.0),
        ];
        for snapshot in &snapshots {
            for threshold in [0.5, 0.9, 1.0, 1.25, 3.0] {
                for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                    let case = format!("{} rows, threshold {threshold}", snapshot.len());
                    let mut detector = hierarchical(FlagAll, threshold, parallelism);
                    let (bounded, exact) = both_ways(&mut detector, snapshot);
                    assert_eq!(bounded, exact, "{case}");
                    let mut detector =
                        hierarchical(DefaultDetector::default(), threshold, parallelism);
                    let (bounded, exact) = both_ways(&mut detector, snapshot);
                    assert_eq!(bounded, exact, "{case}, over Default");
                }
            }
        }
    }

    #[test]
    fn the_exact_rule_decides_only_what_the_bounds_cannot() {
        let passes = |snapshot: &Snapshot, threshold: f64| {
            let mut detector = hierarchical(FlagAll, threshold, Parallelism::default());
            detector.scan(snapshot, &mut Findings::default());
            detector.exact_passes
        };
        // The snapshots of `cargo xtask bench scans`, sizes and seeds: never.
        for (tasks, nodes) in [
            (1000, 10_000),
            (1000, 100),
            (10_000, 100),
            (10_000, 10_000),
            (100_000, 1000),
            (1_000_000, 10_000),
        ] {
            let seed = 0x5ca1_ab1e_0000_0000 ^ tasks as u64;
            let snapshot = straggling_stage(tasks, nodes, seed).expect("valid rows");
            assert_eq!(passes(&snapshot, 0.9), 0, "{tasks} tasks on {nodes} nodes");
        }
        // Equal speeds at a threshold of 1: every node's m_N is at the bar.
        assert_eq!(passes(&speeds_rows(300, 40, None, |_| 0.1), 1.0), 1);
        // Three nodes running 0.1, three times, once and three times: m_N 0.1 + 2^-56
        // (0.3 + 2^-54 over 3), 0.1 and 0.1 + 2^-56; the bar from them is above 0.1 and
        // node 1 lies between the bounds.
        let rows = [0, 0, 0, 1, 2, 2, 2].map(|node| (0, node, 0.0, 0.1, 1.0));
        let snapshot = build_snapshot(1.0, 3, 1, rows).expect("valid rows");
        let mut detector = hierarchical(FlagAll, 1.0, Parallelism::Sequential);
        let (low, high) = detector.fast_bounds(&snapshot).expect("bounded");
        let above = 0.1 + 2f64.powi(-56);
        assert_eq!(detector.perf, [above, 0.1, above]);
        assert!(low < 0.1 && above < high, "{low}, {high}");
        assert_eq!(passes(&snapshot, 1.0), 1);
        // Speeds too small or too large for the bounds.
        assert_eq!(passes(&speeds_rows(50, 5, None, |_| 1e-290), 0.9), 1);
        assert_eq!(passes(&speeds_rows(50, 5, None, |_| 1e290), 0.9), 1);
        // No speed: no node is slow, without the exact rule.
        assert_eq!(passes(&speeds_rows(50, 5, Some(1), |_| 1.0), 0.9), 0);
    }

    #[test]
    fn a_scan_by_the_nodes_numbers_keeps_no_mark_of_an_earlier_scan() {
        // Node 0 at speed 1 and three at 10: node 0 is slow (0.9 x 3.25).
        let first = build_snapshot(
            1.0,
            4,
            1,
            [
                (0, 0.5, 2.0),
                (1, 0.5, 20.0),
                (2, 0.5, 20.0),
                (3, 0.5, 20.0),
            ]
            .map(|(node, p, input)| (0, node, 0.0, p, input)),
        )
        .expect("valid rows");
        // Then node 0 runs an attempt started now (no speed, so node 0 is not slow), and
        // node 3 is the slow one; numbered 0, 1, 2 and 3 again, where number 0 was slow.
        let second = build_snapshot(
            1.0,
            4,
            1,
            [(0, 1.0, 0.0, 2.0), (1, 0.0, 0.5, 20.0), (2, 0.0, 0.5, 20.0)]
                .into_iter()
                .chain([(3, 0.0, 0.5, 2.0)])
                .map(|(node, start, p, input)| (0, node, start, p, input)),
        )
        .expect("valid rows");
        for first_judging in [Judging::AllNodes, Judging::RenumberedNodes, Judging::Exact] {
            let mut detector = hierarchical(FlagAll, 0.9, Parallelism::Sequential);
            let mut findings = Findings::default();
            detector.scan_with(&first, &mut findings, first_judging);
            assert_eq!(findings.rows(), [0], "{first_judging:?}");
            for scan in 0..3 {
                let mut findings = Findings::default();
                detector.scan_with(&second, &mut findings, Judging::RenumberedNodes);
                assert_eq!(findings.rows(), [3], "scan {scan} after {first_judging:?}");
            }
        }
    }

    #[test]
    fn a_scan_after_another_snapshots_keeps_the_exact_rows() {
        // Each snapshot scanned after each other by a detector judging by the nodes'
        // numbers: the marks and numbers of the first scan must not decide the second,
        // where the bounds settle it, where they do not apply (speeds too small or too
        // large: the exact rule decides), and where a node lies between them (equal speeds
        // at 1.0).
        let snapshots = [
            (
                speeds_rows(40, 400, None, |r| 10f64.powf(3.0 * r.unit())),
                0.9,
            ),
            (
                speeds_rows(41, 400, None, |r| 1e-290 * 10f64.powf(3.0 * r.unit())),
                0.9,
            ),
            (
                speeds_rows(42, 400, None, |r| 1e287 * 10f64.powf(3.0 * r.unit())),
                0.9,
            ),
            (
                speeds_rows(30, 200, Some(3), |r| 10f64.powf(3.0 * r.unit())),
                0.9,
            ),
            (speeds_rows(43, 400, None, |_| 0.1), 1.0),
        ];
        let scan = |detector: &mut Hierarchical<FlagAll>, at: usize, judging| {
            let (snapshot, threshold) = &snapshots[at];
            detector.params.node_threshold = *threshold;
            let mut findings = Findings::default();
            detector.scan_with(snapshot, &mut findings, judging);
            findings.rows().to_vec()
        };
        let exact: Vec<Vec<u32>> = (0..snapshots.len())
            .map(|at| {
                let mut detector = hierarchical(FlagAll, 0.9, Parallelism::Sequential);
                scan(&mut detector, at, Judging::Exact)
            })
            .collect();
        // Slow nodes in all but the last (equal speeds: none).
        assert!(exact[..4].iter().all(|rows| !rows.is_empty()), "{exact:?}");
        for first in 0..snapshots.len() {
            for second in 0..snapshots.len() {
                let mut detector = hierarchical(FlagAll, 0.9, Parallelism::Sequential);
                assert_eq!(
                    scan(&mut detector, first, Judging::RenumberedNodes),
                    exact[first]
                );
                let rows = scan(&mut detector, second, Judging::RenumberedNodes);
                assert_eq!(rows, exact[second], "{second} after {first}");
            }
        }
    }

    #[test]
    fn a_wrapped_detectors_row_past_the_snapshot_is_dropped() {
        // The filter of the flagged rows by node is `kernels::keep_marked`, tested there.
        /// Flags every row and one past the snapshot.
        #[derive(Debug)]
        struct PastTheEnd;
        impl Detector for PastTheEnd {
            fn name(&self) -> &str {
                "past-the-end"
            }
            fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
                findings.rows_mut().extend(0..=snapshot.len() as u32);
            }
        }
        // Node 0 at speed 1, node 1 at 3: node 0 slow at 0.9 x 2.
        let rows = [(0, 0, 0.0, 0.5, 2.0), (0, 1, 0.0, 0.5, 6.0)];
        let snapshot = build_snapshot(1.0, 2, 1, rows).expect("valid rows");
        for judging in [Judging::AllNodes, Judging::RenumberedNodes, Judging::Exact] {
            let mut detector = hierarchical(PastTheEnd, 0.9, Parallelism::Sequential);
            let mut findings = Findings::default();
            detector.scan_with(&snapshot, &mut findings, judging);
            assert_eq!(findings.rows(), [0]);
        }
    }
}
