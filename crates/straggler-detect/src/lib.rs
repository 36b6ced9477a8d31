//! Straggler detectors: the [`Detector`] trait and the detectors of the seed paper's
//! Section 5.5: [`DefaultDetector`] (Dean and Ghemawat's progress-gap rule),
//! [`LateDetector`] (progress rate against mean minus `alpha` standard deviations) and
//! [`Hierarchical`] (keeps another detector's detections on slow nodes only); and the
//! engines' rules for comparison: Hadoop's speculators in [`hadoop`] ([`HadoopSpeculator`]
//! over three runtime estimators, and [`Hadoop1`]), [`SparkDetector`] (Spark's
//! `checkSpeculatableTasks`, against the median duration of finished tasks) and
//! [`ZahariaLate`] (LATE as published at OSDI 2008, with its percentile threshold,
//! speculative cap and slow-node threshold); and the node-level detectors of the seeds:
//! [`ESplash`] (seed 001: performance levels, straggler nodes against their level) and
//! [`Dsb`] (seed 002: nodes ranked by intervals of normalised durations, the weakest
//! blacklisted).
//! From seed 004 (Garraghan et al.): [`GarraghanDetector`] (an offline progress model
//! stretched by `Diff`, an online median test, or both) and [`DosIndex`] (time per input
//! byte against the stage's). [`Oracle`] is told the stragglers of a run and flags each at
//! a chosen fraction of its time there: a bound on the run whose stragglers it was told,
//! not on a run its own copies change.
//!
//! A detector looks at a [`Snapshot`] of the running attempts and flags rows of it; what
//! the engine does with a flag (launch a copy, when, where) is not the detector's business.
//! A node-level detector also reports the nodes it judges slow, and declares with
//! [`Detector::slow_node_rule`] what its source paper keeps off them ([`SlowNodeRule`]:
//! nothing, copies, or all new work); the engine applies the rule.
//! Stateful detectors (estimators that learn from successive progress reports or finished
//! tasks, node-level detectors that rank nodes) receive every [`Observation`] before the
//! scan at the same instant through [`Detector::observe`]; on
//! [`Observation::StageFinished`] they forget what they learnt of that stage, whose index
//! an engine may then give to a new one (the kit checks it:
//! [`conformance::Conformance::forgets_finished_stages`]).
//!
//! Scans over large snapshots run in parallel with rayon (see [`Parallelism`]). Sums are
//! taken chunk by chunk in a fixed order whatever the number of threads, so a parallel
//! scan flags exactly the rows a sequential scan flags.
//!
//! # Features
//!
//! `dsb` (on by default) builds [`Dsb`], whose intervals take Student t quantiles from
//! `straggler-metrics` (and through it `statrs`). A scheduler author who only implements
//! [`Detector`], or compares with the other detectors, can turn it off
//! (`default-features = false`): the crate then depends on no other crate of the workspace
//! than `straggler-model`.
//!
//! ```
//! use straggler_detect::{DefaultDetector, DefaultParams, Detector, Findings};
//! use straggler_model::*;
//!
//! let stages = vec![Stage { job: JobId(0), kind: TaskKind::Map }];
//! let mut snapshot = Snapshot::new(100.0, 2, stages)?;
//! for (i, progress) in [0.9, 0.85, 0.4].into_iter().enumerate() {
//!     snapshot.push(SnapshotRow {
//!         attempt: AttemptId(i as u32),
//!         task: TaskId(i as u32),
//!         stage: StageId(0),
//!         node: NodeId(i as u32 % 2),
//!         role: AttemptRole::Original,
//!         start_secs: 0.0,
//!         progress,
//!         input_bytes: 64e6,
//!     })?;
//! }
//! let mut detector = DefaultDetector::new(DefaultParams::default().check()?);
//! let mut findings = Findings::default();
//! detector.scan(&snapshot, &mut findings);
//! // mean progress 0.7167; 0.4 < 0.7167 - 0.2
//! assert_eq!(findings.rows(), &[2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
// The links to `Dsb` above have no target without the `dsb` feature.
#![cfg_attr(not(feature = "dsb"), allow(rustdoc::broken_intra_doc_links))]

pub mod conformance;
mod default;
mod dos_index;
#[cfg(feature = "dsb")]
mod dsb;
mod error;
mod esplash;
pub mod garraghan;
pub mod hadoop;
mod hierarchical;
mod id_table;
mod job_starts;
mod late;
mod oracle;
mod scan;
mod spark;
mod staged_table;
mod zaharia;

pub use default::{DefaultDetector, DefaultParams};
pub use dos_index::{DosIndex, DosIndexParams};
#[cfg(feature = "dsb")]
pub use dsb::{CheckedDsbParams, Dsb, DsbOver, DsbParams, NodeInterval};
pub use error::DetectError;
pub use esplash::{CheckedESplashParams, ESplash, ESplashParams};
pub use garraghan::{GarraghanDetector, GarraghanMode, GarraghanParams};
pub use hadoop::{Hadoop1, Hadoop1Params, HadoopParams, HadoopSpeculator};
pub use hierarchical::{Hierarchical, HierarchicalParams};
pub use late::{LateDetector, LateParams};
pub use oracle::{Oracle, OracleParams};
pub use scan::{GroupSum, GroupSums, Parallelism};
pub use spark::{SparkDetector, SparkParams};
pub use zaharia::{ZahariaLate, ZahariaLateParams};

use straggler_model::{NodeId, Observation, Snapshot};

/// What one scan found: the snapshot rows flagged as stragglers and, for node-level
/// detectors, the nodes judged slow.
///
/// Rows are indices into the scanned [`Snapshot`], in strictly increasing order (each row
/// once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    rows: Vec<u32>,
    slow_nodes: Vec<NodeId>,
}

impl Findings {
    /// Empties the findings, keeping their allocations.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.slow_nodes.clear();
    }
    /// Flags a row. Rows must be pushed in strictly increasing order (no row twice), each
    /// below the snapshot's length; an engine checks this after each scan
    /// ([`Findings::check`]).
    pub fn push_row(&mut self, row: u32) {
        self.rows.push(row);
    }
    /// Reports a node as slow; what it is kept from is the detector's
    /// [`Detector::slow_node_rule`].
    pub fn push_slow_node(&mut self, node: NodeId) {
        self.slow_nodes.push(node);
    }
    /// The flagged rows, in strictly increasing order.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }
    /// The nodes judged slow.
    pub fn slow_nodes(&self) -> &[NodeId] {
        &self.slow_nodes
    }
    /// Keeps only the rows for which `keep` is true.
    pub fn retain_rows(&mut self, keep: impl FnMut(&u32) -> bool) {
        self.rows.retain(keep);
    }
    /// Mutable access to the rows, for detectors that compute them in bulk. The caller
    /// keeps them in increasing order.
    pub fn rows_mut(&mut self) -> &mut Vec<u32> {
        &mut self.rows
    }

    /// Checks the findings of `detector`'s scan of `snapshot`: rows strictly increasing and
    /// below its length, slow nodes below its node count. Engines call it after each scan,
    /// so that a detector that breaks the contract is an error naming it, not rows
    /// silently ignored.
    ///
    /// # Errors
    ///
    /// [`DetectError::BadFindings`], naming the detector and the first row or node at
    /// fault.
    pub fn check(&self, detector: &str, snapshot: &Snapshot) -> Result<(), DetectError> {
        let bad = |problem: String| DetectError::BadFindings {
            detector: detector.to_owned(),
            problem,
        };
        let len = snapshot.len();
        let mut previous: Option<u32> = None;
        for &row in &self.rows {
            if row as usize >= len {
                return Err(bad(format!(
                    "row {row} flagged in a snapshot of {len} rows at {} s",
                    snapshot.now_secs()
                )));
            }
            if let Some(previous) = previous.filter(|&p| p >= row) {
                return Err(bad(format!(
                    "row {row} flagged after row {previous}: rows must increase"
                )));
            }
            previous = Some(row);
        }
        let nodes = snapshot.node_count();
        if let Some(node) = self.slow_nodes.iter().find(|n| n.0 >= nodes) {
            return Err(bad(format!(
                "slow node {} reported in a cluster of {nodes} nodes",
                node.0
            )));
        }
        Ok(())
    }
}

/// What the nodes a detector reports slow ([`Findings::slow_nodes`]) are kept from until its
/// next scan, as the detector's source paper says. Declared by
/// [`Detector::slow_node_rule`]; an engine applies it to the nodes of each scan's findings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SlowNodeRule {
    /// Nothing: the slow nodes are information (the default). An engine may still keep
    /// copies off them by its own policy.
    #[default]
    Report,
    /// No speculative copy starts there; new regular tasks still do (LATE's
    /// SlowNodeThreshold, OSDI 2008; eSplash, seed 001, Section IV-D: "the marked straggler
    /// nodes are excluded from hosting any speculative task").
    NoCopies,
    /// Neither a new task nor a copy starts there; running attempts go on (DSB, seed 002:
    /// "no new tasks/replications are assigned to those straggler-prone nodes within the
    /// following time window").
    NoNewWork,
}

impl SlowNodeRule {
    /// Whether a copy may not start on a slow node.
    pub fn keeps_copies_off(self) -> bool {
        matches!(self, SlowNodeRule::NoCopies | SlowNodeRule::NoNewWork)
    }
    /// Whether a new regular task may not start on a slow node.
    pub fn keeps_tasks_off(self) -> bool {
        matches!(self, SlowNodeRule::NoNewWork)
    }
}

/// A straggler detector.
///
/// The engine calls [`observe`](Detector::observe) with every progress report, every
/// ended attempt, each job's submission where the engine knows it and, in an engine of
/// many jobs, every finished stage, in time order, then
/// [`scan`](Detector::scan) with a snapshot of the
/// running attempts; the detector adds the rows it judges stragglers to `findings` (which
/// the engine has cleared). A detection means "this attempt is a straggler now"; the
/// engine decides whether to launch a copy.
///
/// Implementations must be deterministic: the same observations and snapshots give the
/// same findings, whatever the number of threads.
pub trait Detector: Send {
    /// A short lower-case name, used in results (`"default"`, `"late"`).
    fn name(&self) -> &str;

    /// Flags the straggling rows of `snapshot`.
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings);

    /// Learns from an event. Stateless detectors ignore it (the default). On
    /// [`Observation::StageFinished`], forget what was learnt of that stage: its index may
    /// be given to a new stage.
    fn observe(&mut self, observation: &Observation) {
        let _ = observation;
    }

    /// Forgets everything learnt, ready for a new run. Stateless detectors have nothing to
    /// forget (the default).
    fn reset(&mut self) {}

    /// What the nodes this detector reports slow are kept from until its next scan
    /// ([`SlowNodeRule::Report`], nothing, by default). Constant over a detector's life.
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::Report
    }
}

impl<D: Detector + ?Sized> Detector for &mut D {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (**self).scan(snapshot, findings);
    }
    fn observe(&mut self, observation: &Observation) {
        (**self).observe(observation);
    }
    fn reset(&mut self) {
        (**self).reset();
    }
    fn slow_node_rule(&self) -> SlowNodeRule {
        (**self).slow_node_rule()
    }
}

impl<D: Detector + ?Sized> Detector for Box<D> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (**self).scan(snapshot, findings);
    }
    fn observe(&mut self, observation: &Observation) {
        (**self).observe(observation);
    }
    fn reset(&mut self) {
        (**self).reset();
    }
    fn slow_node_rule(&self) -> SlowNodeRule {
        (**self).slow_node_rule()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn trait_objects_are_send() {
        assert_send::<Box<dyn Detector>>();
        assert_send::<&mut dyn Detector>();
        assert_send::<Hierarchical<Box<dyn Detector>>>();
    }
}
