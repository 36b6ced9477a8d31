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
//! stages count, as in the paper ("the performance information of all tasks running");
//! since speed is measured in input bytes per second, a node running tasks of a stage with
//! small inputs (reduces, say) beside another stage's looks slower. In the paper's job the
//! reduces start after the last map, so the stages never mix on a node.

use serde::{Deserialize, Serialize};
use straggler_model::{Observation, Snapshot};

use crate::error::check_param;
use crate::scan::{GroupSum, GroupSums, Rates, RowBlocks, Summands, means};
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

/// Writes the rows of `flagged` that `keep` keeps, in order, at the start of `slots` (as
/// long at least), and returns how many: each row written, the next written over it unless
/// it is kept, so no branch on whether a row is kept.
fn keep_rows(flagged: &[u32], keep: impl Fn(u32) -> bool, slots: &mut [u32]) -> usize {
    let mut kept = 0;
    for &row in flagged {
        slots[kept] = row;
        kept += usize::from(keep(row));
    }
    kept
}

/// Wraps a detector and keeps its detections on slow nodes only.
#[derive(Debug, Clone)]
pub struct Hierarchical<D> {
    inner: D,
    params: HierarchicalParams,
    name: String,
    /// Buffers kept between scans: the wrapped detector's findings, each node's
    /// performance, the kept rows.
    flagged: Findings,
    perf: Vec<f64>,
    node_sums: GroupSums,
    kept: RowBlocks,
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
            node_sums: GroupSums::mixed(),
            kept: RowBlocks::default(),
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// Computes every node's `Perf_N` into `self.perf` (NaN for a node without one) and
    /// returns the bar below which a node is slow: `node_threshold` times the cluster's
    /// average, NaN (no node slow) when no node has a performance.
    fn slow_node_bar(&mut self, snapshot: &Snapshot) -> f64 {
        let now = snapshot.now_secs();
        let (progress, start, input) = (
            snapshot.progress(),
            snapshot.start_secs(),
            snapshot.input_bytes(),
        );
        let node_count = snapshot.node_count() as usize;
        let nodes = snapshot.node_indices();
        let parallelism = self.params.parallelism;
        // Speed_i of each row (NaN for a row without one), computed as it is summed: Perf_N.
        let speeds = Rates {
            now_secs: now,
            progress,
            weights: Some(input),
            start_secs: start,
        };
        let sums =
            self.node_sums
                .compute(nodes, &speeds, node_count, parallelism, Summands::Values);
        means(sums, &mut self.perf);
        // The mean of the nodes' performances, those without one left out; NaN (no node
        // slow) when no node has one.
        let average = GroupSum::of_run(&self.perf).mean().unwrap_or(f64::NAN);
        self.params.node_threshold * average
    }
}

impl<D: Detector> Detector for Hierarchical<D> {
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        self.flagged.clear();
        self.inner.scan(snapshot, &mut self.flagged);
        for &node in self.flagged.slow_nodes() {
            findings.push_slow_node(node);
        }
        if self.flagged.rows().is_empty() {
            return;
        }
        let bar = self.slow_node_bar(snapshot);
        let (nodes, perf) = (snapshot.node_indices(), &self.perf[..]);
        // A row the wrapped detector flagged past the snapshot is dropped, not a panic; so
        // is a row of a node without a performance (NaN, never below the bar).
        let on_slow_node = |row: u32| {
            nodes
                .get(row as usize)
                .and_then(|&n| perf.get(n as usize))
                .is_some_and(|&p| p < bar)
        };
        let flagged = self.flagged.rows();
        self.kept.append(
            flagged.len(),
            self.params.parallelism,
            |rows, slots| keep_rows(&flagged[rows], on_slow_node, slots),
            findings.rows_mut(),
        );
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
