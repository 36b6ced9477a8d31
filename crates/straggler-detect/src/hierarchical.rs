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
use crate::scan::{GroupSums, Rates, Summands, clamp};
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
    perf: Vec<f64>,
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
            perf: Vec::new(),
            node_sums: GroupSums::default(),
        }
    }

    /// The wrapped detector.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// Computes `Perf_N` of every node into `self.perf` (NaN for a node without one) and
    /// returns the bar below which a node is slow (NaN when no node has a performance).
    fn node_performance(&mut self, snapshot: &Snapshot) -> f64 {
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
        self.perf.clear();
        self.perf
            .extend(sums.iter().map(|s| s.mean().unwrap_or(f64::NAN)));
        // Branch-free over the nodes: a NaN (no performance) adds nothing and fails both
        // comparisons.
        let (mut sum, mut count, mut min, mut max) = (0.0, 0u32, f64::INFINITY, f64::NEG_INFINITY);
        for &p in &self.perf {
            let defined = !p.is_nan();
            sum += if defined { p } else { 0.0 };
            count += u32::from(defined);
            min = if p < min { p } else { min };
            max = if p > max { p } else { max };
        }
        if count == 0 {
            return f64::NAN;
        }
        // Within the nodes' range despite rounding, as `GroupSum::mean`.
        let average = clamp(sum / f64::from(count), min, max);
        self.params.node_threshold * average
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
        let bar = self.node_performance(snapshot);
        let (nodes, perf) = (snapshot.node_indices(), &self.perf);
        // A row the wrapped detector flagged past the snapshot is dropped, not a panic; so
        // is a row of a node without a performance (NaN fails the comparison).
        let on_slow_node = |row: u32| {
            let node = nodes.get(row as usize).copied();
            node.and_then(|n| perf.get(n as usize))
                .is_some_and(|&p| p < bar)
        };
        // Kept rows moved down in place, without a branch on whether a row is kept.
        let rows = findings.rows_mut();
        let mut kept = first;
        for read in first..rows.len() {
            let row = rows[read];
            rows[kept] = row;
            kept += usize::from(on_slow_node(row));
        }
        rows.truncate(kept);
    }

    fn observe(&mut self, observation: &Observation) {
        self.inner.observe(observation);
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}
