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
use crate::scan::{GroupSums, rate_rows};
use crate::{DetectError, Detector, Findings, Parallelism};

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
    /// Buffers kept between scans.
    slow: Vec<bool>,
    speeds: Vec<f64>,
    node_sums: GroupSums,
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
            slow: Vec::new(),
            speeds: Vec::new(),
            node_sums: GroupSums::default(),
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// Marks in `self.slow` the nodes whose performance is below the threshold.
    fn mark_slow_nodes(&mut self, snapshot: &Snapshot) {
        let now = snapshot.now_secs();
        let (progress, start, input) = (
            snapshot.progress(),
            snapshot.start_secs(),
            snapshot.input_bytes(),
        );
        let node_count = snapshot.node_count() as usize;
        let nodes = snapshot.node_indices();
        let parallelism = self.params.parallelism;
        // Speed_i once per row, NaN for a row without one; then Perf_N per node.
        rate_rows(
            now,
            progress,
            Some(input),
            start,
            parallelism,
            &mut self.speeds,
        );
        let perf = self
            .node_sums
            .compute(nodes, &self.speeds, node_count, parallelism, |s, _| s);
        let (sum, nodes, min, max) = perf.iter().filter_map(|s| s.mean()).fold(
            (0.0, 0u32, f64::INFINITY, f64::NEG_INFINITY),
            |(sum, n, min, max), p| (sum + p, n + 1, min.min(p), max.max(p)),
        );
        self.slow.clear();
        if nodes == 0 {
            self.slow.resize(node_count, false);
            return;
        }
        // Within the nodes' range despite rounding, as `GroupSum::mean`.
        let average = (sum / f64::from(nodes)).max(min).min(max);
        let bar = self.params.node_threshold * average;
        self.slow
            .extend(perf.iter().map(|s| s.mean().is_some_and(|p| p < bar)));
    }
}

impl<D: Detector> Detector for Hierarchical<D> {
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let first = findings.rows().len();
        self.inner.scan(snapshot, findings);
        if findings.rows().len() == first {
            return;
        }
        self.mark_slow_nodes(snapshot);
        let nodes = snapshot.node_indices();
        let slow = &self.slow;
        let rows = findings.rows_mut();
        let kept: Vec<u32> = rows[first..]
            .iter()
            .copied()
            .filter(|&row| {
                // A row the wrapped detector flagged past the snapshot is dropped, not a panic.
                let node = nodes.get(row as usize).copied();
                node.and_then(|n| slow.get(n as usize))
                    .copied()
                    .unwrap_or(false)
            })
            .collect();
        rows.truncate(first);
        rows.extend(kept);
    }

    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}
