//! Straggler causes beyond the paper's disabled cores, each a parameterised injection that
//! is off by default: node slowdown episodes, node failures and restarts, naturally slow
//! node levels, weak nodes whose speed drifts, data-skewed tasks, a root-cause mix after
//! Garraghan et al.'s Table 4, and the three phases of a reduce's progress score.
//!
//! Node conditions ([`NodeConditions`]) change at discrete instants, so the engine jumps to
//! the next change as it jumps to the next completion. Per-task draws ([`task_draw`]) are
//! stateless hashes of the seed and the task's index: no per-task storage, and the same
//! task gets the same factors whatever the order in which tasks run.
//!
//! Sources and defaults are listed in `docs/simulation.md`, "Straggler causes".

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::SimError;
use crate::error::check;
use crate::limits::{self, at_most};
use crate::rng::{Stream, label, splitmix};

/// Every injectable straggler cause; the default injects nothing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Causes {
    /// Node slowdown episodes that start, last and recover (seed 001, Section V.B.2).
    pub episodes: Vec<Episode>,
    /// Node failures, each followed by a restart (seed 001, Section V.B.3).
    pub failures: Vec<Failure>,
    /// Naturally slow node levels: same hardware, more containers (seed 001, Section V.A).
    pub levels: Option<Levels>,
    /// Weak nodes whose speed drifts over time (seed 002, Sections II and V).
    pub weak_nodes: Option<WeakNodes>,
    /// Data-skewed tasks: larger input, every attempt as slow (seed 004, Table 4, type 6).
    pub skew: Option<Skew>,
    /// Stragglers drawn from seed 004's root-cause mix (Table 4).
    pub mix: Option<RootCauseMix>,
    /// Reduce progress in three phases of unequal speed (seed 003, Figure 1).
    pub reduce_phases: Option<ReducePhases>,
}

/// One node is slowed down by background processes for a while, then recovers.
///
/// Seed 001 (eSplash, Section V.B.2) runs four CPU-intensive and four disk-intensive
/// processes on one node for 1000 s. Here they are `background_tasks` extra tasks in the
/// node's slowdown model: they share its cores and memory with the containers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Episode {
    /// The node (index in the cluster).
    pub node: u32,
    /// When the episode starts, seconds since the start of the run.
    pub start_secs: f64,
    /// How long it lasts (seed 001: 1000 s).
    #[serde(default = "defaults::episode_secs")]
    pub duration_secs: f64,
    /// Background processes competing with the containers (seed 001: 4 + 4 = 8).
    #[serde(default = "defaults::episode_tasks")]
    pub background_tasks: u32,
}

/// One node goes down and comes back: its running attempts are lost (status `Failed`)
/// and their tasks run again elsewhere (seed 001, Section V.B.3: NodeManager and
/// DataNode shut down after 1000 s of slowdown and restarted 600 s later).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// The node.
    pub node: u32,
    /// When it goes down.
    pub at_secs: f64,
    /// How long it stays down (seed 001: 600 s).
    #[serde(default = "defaults::down_secs")]
    pub down_secs: f64,
}

/// Nodes of the same hardware split into levels that run more containers, hence slower
/// containers (seed 001, Section V: 32, 16, 8 and 4 vcores on identical 8-core servers).
/// The nodes are split into `containers.len()` equal groups (the first groups get one
/// more node when the split is uneven); group `i` runs `containers[i]` containers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Levels {
    /// Containers per node of each level, slowest level first.
    pub containers: Vec<u32>,
}

/// Some nodes are weak and their speed drifts: every `step_secs` it moves by a uniform
/// draw in `[-drift, +drift]`, kept in `[min_speed, max_speed]`; the `k`-th step comes at
/// `k * step_secs` since the start of the run (seed 002, Section II:
/// "the ability of nodes to effectively execute tasks changes over time"; its experiments
/// inject CPU and memory contention on 5 of 30 VMs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WeakNodes {
    /// How many nodes are weak, chosen by the seed.
    pub count: u32,
    /// A weak node's speed at the start, as a factor of a normal node's (assumption: 0.5).
    pub initial_speed: f64,
    /// Time between two drift steps (assumption: 60 s; at least 0.001 s, as the
    /// speculation's intervals: finer, a run would take drift steps without end).
    pub step_secs: f64,
    /// Largest change of speed in one step (assumption: 0.1).
    pub drift: f64,
    /// Lowest speed (assumption: 0.2).
    pub min_speed: f64,
    /// Highest speed (assumption: 1.0, a normal node).
    pub max_speed: f64,
}

impl Default for WeakNodes {
    fn default() -> Self {
        WeakNodes {
            count: 5,
            initial_speed: 0.5,
            step_secs: 60.0,
            drift: 0.1,
            min_speed: 0.2,
            max_speed: 1.0,
        }
    }
}

/// Data-skewed tasks: with probability `probability` a task's input and work are
/// `factor` times the usual. Every attempt of the task does the same work, so a copy is
/// just as slow (seed 004, Table 4: "uneven file block input resulting in data skew").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Skew {
    /// Probability that a task is skewed (assumption: 0.03, seed 004's share of skew
    /// among stragglers).
    pub probability: f64,
    /// Input and work multiplier of a skewed task (assumption: 3).
    pub factor: f64,
}

impl Default for Skew {
    fn default() -> Self {
        Skew {
            probability: 0.03,
            factor: 3.0,
        }
    }
}

/// The root causes of seed 004's Table 4, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootCause {
    /// High CPU utilisation (30%).
    Cpu,
    /// High disk utilisation (23%).
    Disk,
    /// Unhandled file-system requests (23%).
    Requests,
    /// Network packet loss (14%).
    Network,
    /// Hardware faults: time-outs, hangs (7%).
    Hardware,
    /// Data skew (3%).
    DataSkew,
}

impl RootCause {
    /// Every cause, in Table 4's order.
    pub const ALL: [RootCause; 6] = [
        RootCause::Cpu,
        RootCause::Disk,
        RootCause::Requests,
        RootCause::Network,
        RootCause::Hardware,
        RootCause::DataSkew,
    ];

    /// The name used in results and scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            RootCause::Cpu => "cpu",
            RootCause::Disk => "disk",
            RootCause::Requests => "requests",
            RootCause::Network => "network",
            RootCause::Hardware => "hardware",
            RootCause::DataSkew => "data_skew",
        }
    }
}

/// Stragglers with seed 004's root causes: a task is a straggler with probability
/// `probability` (seed 004, abstract: "approximately 5% of task stragglers"); its cause
/// is drawn with Table 4's frequencies and its slowdown from a bounded Pareto law on
/// `[min_factor, max_factor]` with tail index `tail_index`:
///
/// ```text
/// factor = min * (1 - u * (1 - (min / max)^a))^(-1 / a),   u uniform in [0, 1)
/// ```
///
/// A data-skew straggler has `factor` times the input and the work in every attempt (a
/// copy cannot help). Every other cause slows the original attempt only: the contention,
/// lost packets or fault are where it runs, and a copy elsewhere escapes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RootCauseMix {
    /// Probability that a task is a straggler (seed 004: 0.05).
    pub probability: f64,
    /// Smallest slowdown (assumption: 1.5, seed 004's "> 150%" criterion).
    pub min_factor: f64,
    /// Largest slowdown (the issue's "tail to 10x").
    pub max_factor: f64,
    /// Pareto tail index `a` (assumption: 1).
    pub tail_index: f64,
    /// Relative frequency of each cause, Table 4's order (30, 23, 23, 14, 7, 3). A file
    /// must give exactly six numbers (serde's arrays would drop extra elements).
    #[serde(deserialize_with = "six_weights")]
    pub weights: [f64; 6],
}

/// What `causes.mix.weights` must be.
const SIX_WEIGHTS: &str = "exactly 6 numbers, one per cause of Table 4 \
                           (cpu, disk, requests, network, hardware, data_skew)";

/// Reads `causes.mix.weights`: an array of exactly six numbers, or an error that says so
/// (a shorter or longer array, or an element that is not a number).
fn six_weights<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<[f64; 6], D::Error> {
    use serde::de::{Error, SeqAccess, Visitor};

    /// One element: a number (an integer is taken as a float).
    struct Weight(f64);
    struct WeightVisitor;
    impl Visitor<'_> for WeightVisitor {
        type Value = Weight;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "a number: the weights are {SIX_WEIGHTS}")
        }
        fn visit_f64<E: Error>(self, v: f64) -> Result<Weight, E> {
            Ok(Weight(v))
        }
        fn visit_i64<E: Error>(self, v: i64) -> Result<Weight, E> {
            Ok(Weight(v as f64))
        }
        fn visit_u64<E: Error>(self, v: u64) -> Result<Weight, E> {
            Ok(Weight(v as f64))
        }
    }
    impl<'de> Deserialize<'de> for Weight {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_f64(WeightVisitor)
        }
    }

    struct SixVisitor;
    impl<'de> Visitor<'de> for SixVisitor {
        type Value = [f64; 6];
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(SIX_WEIGHTS)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f64; 6], A::Error> {
            let mut weights = Vec::with_capacity(6);
            while let Some(Weight(w)) = seq.next_element()? {
                weights.push(w);
            }
            let count = weights.len();
            <[f64; 6]>::try_from(weights).map_err(|_| A::Error::invalid_length(count, &self))
        }
    }
    deserializer.deserialize_seq(SixVisitor)
}

impl Default for RootCauseMix {
    fn default() -> Self {
        RootCauseMix {
            probability: 0.05,
            min_factor: 1.5,
            max_factor: 10.0,
            tail_index: 1.0,
            weights: [30.0, 23.0, 23.0, 14.0, 7.0, 3.0],
        }
    }
}

/// A reduce's progress score in three phases (copy, sort, reduce), each worth a third of
/// the score (Hadoop; seed 003, Section 2.1, Eq. 1) but taking unequal shares of the
/// reduce's work (seed 003, Figure 1: the copy phase is slow, the sort fast). The shares
/// are assumptions read off the figure's shape; they are normalised to sum to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReducePhases {
    /// Share of the work in the copy (shuffle) phase (assumption: 0.6).
    pub copy: f64,
    /// Share in the sort phase (assumption: 0.1).
    pub sort: f64,
    /// Share in the reduce phase (assumption: 0.3).
    pub reduce: f64,
}

impl Default for ReducePhases {
    fn default() -> Self {
        ReducePhases {
            copy: 0.6,
            sort: 0.1,
            reduce: 0.3,
        }
    }
}

impl ReducePhases {
    /// The progress score after a fraction `done` of the work:
    /// `(k + (done - s_k) / w_k) / 3` in phase `k`, where `s_k` is the share of the
    /// phases before it and `w_k` its own share.
    pub fn score(&self, done: f64) -> f64 {
        let total = self.copy + self.sort + self.reduce;
        let shares = [self.copy / total, self.sort / total, self.reduce / total];
        let done = done.clamp(0.0, 1.0);
        let mut start = 0.0;
        for (k, &share) in shares.iter().enumerate() {
            let end = start + share;
            if done < end || k == 2 {
                let within = if share > 0.0 {
                    ((done - start) / share).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                return (k as f64 + within) / 3.0;
            }
            start = end;
        }
        1.0
    }
}

mod defaults {
    pub(super) fn episode_secs() -> f64 {
        1000.0
    }
    pub(super) fn episode_tasks() -> u32 {
        8
    }
    pub(super) fn down_secs() -> f64 {
        600.0
    }
}

impl Causes {
    /// Whether no cause is injected.
    pub fn is_empty(&self) -> bool {
        *self == Causes::default()
    }

    /// Checks every value against a cluster of `nodes` nodes; the error names the key.
    pub fn check(&self, nodes: u32) -> Result<(), SimError> {
        let node_ok = |field: &str, node: u32| {
            check(field, f64::from(node), "a node of the cluster", |n| {
                n < f64::from(nodes)
            })
        };
        let non_negative = |field: &str, v: f64| check(field, v, ">= 0", |v| v >= 0.0);
        let positive = |field: &str, v: f64| check(field, v, "> 0", |v| v > 0.0);
        for (i, e) in self.episodes.iter().enumerate() {
            node_ok(&format!("causes.episodes[{i}].node"), e.node)?;
            non_negative(&format!("causes.episodes[{i}].start_secs"), e.start_secs)?;
            positive(
                &format!("causes.episodes[{i}].duration_secs"),
                e.duration_secs,
            )?;
            at_most(
                &format!("causes.episodes[{i}].background_tasks"),
                e.background_tasks,
                limits::MAX_BACKGROUND_TASKS,
            )?;
        }
        for (i, f) in self.failures.iter().enumerate() {
            node_ok(&format!("causes.failures[{i}].node"), f.node)?;
            non_negative(&format!("causes.failures[{i}].at_secs"), f.at_secs)?;
            positive(&format!("causes.failures[{i}].down_secs"), f.down_secs)?;
        }
        if let Some(levels) = &self.levels {
            if levels.containers.is_empty() || levels.containers.len() > nodes as usize {
                return Err(SimError::InvalidConfig {
                    field: "causes.levels.containers".to_owned(),
                    value: format!("{} levels", levels.containers.len()),
                    expected: "between 1 and as many levels as nodes".into(),
                });
            }
            for (i, &c) in levels.containers.iter().enumerate() {
                check(
                    &format!("causes.levels.containers[{i}]"),
                    f64::from(c),
                    ">= 1",
                    |c| c >= 1.0,
                )?;
                at_most(
                    &format!("causes.levels.containers[{i}]"),
                    c,
                    limits::MAX_CONTAINERS_PER_NODE,
                )?;
            }
        }
        if let Some(w) = &self.weak_nodes {
            check(
                "causes.weak_nodes.count",
                f64::from(w.count),
                "at most the number of nodes",
                |c| c <= f64::from(nodes),
            )?;
            // At least a millisecond, as the speculation's intervals: finer, a run would take
            // drift steps without end (at 1e-300 s, `now + step` is `now`).
            check(
                "causes.weak_nodes.step_secs",
                w.step_secs,
                ">= 0.001",
                |v| v >= 1e-3,
            )?;
            non_negative("causes.weak_nodes.drift", w.drift)?;
            check(
                "causes.weak_nodes.min_speed",
                w.min_speed,
                "in (0, 1]",
                |v| v > 0.0 && v <= 1.0,
            )?;
            check(
                "causes.weak_nodes.max_speed",
                w.max_speed,
                "in [min_speed, 1]",
                |v| v >= w.min_speed && v <= 1.0,
            )?;
            check(
                "causes.weak_nodes.initial_speed",
                w.initial_speed,
                "in [min_speed, max_speed]",
                |v| v >= w.min_speed && v <= w.max_speed,
            )?;
        }
        if let Some(s) = &self.skew {
            check("causes.skew.probability", s.probability, "in [0, 1]", |v| {
                (0.0..=1.0).contains(&v)
            })?;
            check("causes.skew.factor", s.factor, ">= 1", |v| v >= 1.0)?;
        }
        if let Some(m) = &self.mix {
            check("causes.mix.probability", m.probability, "in [0, 1]", |v| {
                (0.0..=1.0).contains(&v)
            })?;
            check("causes.mix.min_factor", m.min_factor, ">= 1", |v| v >= 1.0)?;
            check(
                "causes.mix.max_factor",
                m.max_factor,
                ">= causes.mix.min_factor",
                |v| v >= m.min_factor,
            )?;
            positive("causes.mix.tail_index", m.tail_index)?;
            for (i, &w) in m.weights.iter().enumerate() {
                non_negative(&format!("causes.mix.weights[{i}]"), w)?;
            }
            positive("causes.mix.weights (sum)", m.weights.iter().sum())?;
        }
        if let Some(p) = &self.reduce_phases {
            non_negative("causes.reduce_phases.copy", p.copy)?;
            non_negative("causes.reduce_phases.sort", p.sort)?;
            non_negative("causes.reduce_phases.reduce", p.reduce)?;
            positive("causes.reduce_phases (sum)", p.copy + p.sort + p.reduce)?;
        }
        Ok(())
    }

    /// Containers of node `index` of `nodes`, by level, or `default` without levels.
    pub fn containers_of(&self, index: u32, nodes: u32, default: u32) -> u32 {
        let Some(levels) = &self.levels else {
            return default;
        };
        let count = levels.containers.len() as u64;
        if count == 0 || nodes == 0 {
            return default;
        }
        // Group sizes differ by at most one, the first groups larger.
        let (base, extra) = (u64::from(nodes) / count, u64::from(nodes) % count);
        let i = u64::from(index);
        let big = extra * (base + 1);
        let level = if i < big {
            i / (base + 1)
        } else {
            extra + (i - big) / base.max(1)
        };
        levels
            .containers
            .get(level as usize)
            .copied()
            .unwrap_or(default)
    }

    /// The factors of task number `task` (its index over the whole workload).
    pub fn task_draw(&self, seed: u64, task: u64) -> TaskDraw {
        task_draw(self, seed, task)
    }
}

/// What the causes do to one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaskDraw {
    /// Multiplier of the work and input of every attempt (data skew).
    pub every_attempt: f64,
    /// Multiplier of the work of the original attempt only (other root causes).
    pub original_only: f64,
    /// The root cause, if the task was drawn a straggler by the mix or the skew.
    pub cause: Option<RootCause>,
}

impl TaskDraw {
    /// No cause.
    pub const NONE: TaskDraw = TaskDraw {
        every_attempt: 1.0,
        original_only: 1.0,
        cause: None,
    };

    /// The multiplier of the work of the task's first original attempt, the one attempt
    /// that both factors apply to: `every_attempt * original_only`.
    pub fn original_factor(&self) -> f64 {
        self.every_attempt * self.original_only
    }

    /// Whether the causes slow the task at all: its [`original_factor`] is above 1.
    ///
    /// A cause can be drawn with a factor of exactly 1 (a skew `factor` of 1, a mix whose
    /// `min_factor` is 1 drawing its minimum): the task then runs as if no cause had been
    /// drawn, and is no injected straggler. Every factor is at least 1
    /// ([`Causes::check`]), so the product is above 1 exactly when one of them is (a
    /// rounded product of factors of at least 1 is at least the larger), which is when at
    /// least one attempt of the task is slowed.
    ///
    /// [`original_factor`]: TaskDraw::original_factor
    pub fn slows(&self) -> bool {
        self.original_factor() > 1.0
    }
}

/// Uniform in `[0, 1)` from a stateless hash of the seed, the task and a purpose.
fn hash_uniform(seed: u64, task: u64, purpose: u64) -> f64 {
    let z = splitmix(splitmix(seed ^ purpose) ^ task);
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The per-task draws of the skew and mix causes (see [`Causes::task_draw`]).
pub fn task_draw(causes: &Causes, seed: u64, task: u64) -> TaskDraw {
    let mut draw = TaskDraw::NONE;
    if let Some(skew) = &causes.skew
        && hash_uniform(seed, task, 0x5ce1) < skew.probability
    {
        draw.every_attempt = skew.factor;
        draw.cause = Some(RootCause::DataSkew);
    }
    if let Some(mix) = &causes.mix
        && hash_uniform(seed, task, 0x313c) < mix.probability
    {
        let total: f64 = mix.weights.iter().sum();
        let pick = hash_uniform(seed, task, 0xca05) * total;
        let mut acc = 0.0;
        let mut cause = RootCause::DataSkew;
        for (c, &w) in RootCause::ALL.iter().zip(&mix.weights) {
            acc += w;
            if pick < acc {
                cause = *c;
                break;
            }
        }
        let u = hash_uniform(seed, task, 0xfac7);
        let factor = bounded_pareto(mix.min_factor, mix.max_factor, mix.tail_index, u);
        match cause {
            RootCause::DataSkew => draw.every_attempt *= factor,
            _ => draw.original_only = factor,
        }
        draw.cause = Some(cause);
    }
    draw
}

/// The bounded Pareto law's inverse distribution function at `u` in `[0, 1)`.
pub(crate) fn bounded_pareto(min: f64, max: f64, tail_index: f64, u: f64) -> f64 {
    if max <= min {
        return min;
    }
    let ratio = (min / max).powf(tail_index);
    (min * (1.0 - u * (1.0 - ratio)).powf(-1.0 / tail_index)).clamp(min, max)
}

/// A change of one node's condition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// Background tasks start (an episode begins).
    BackgroundUp(u32),
    /// Background tasks stop (an episode ends).
    BackgroundDown(u32),
    /// A failure starts: the node goes down (if it was up), its attempts are lost.
    Down,
    /// A failure ends: the node is back, empty, unless another failure still covers it.
    Up,
    /// A weak node's speed takes a new drift step.
    Drift,
}

/// The time-varying condition of every node: background load, speed factor, up or down.
#[derive(Debug)]
pub struct NodeConditions {
    /// Background tasks of each node.
    pub background: Vec<u32>,
    /// Speed factor of each node (1 for a normal node).
    pub speed: Vec<f64>,
    /// Whether each node is down: whether a failure covers it now.
    pub down: Vec<bool>,
    /// Failures that cover each node now (overlapping failures of a node nest: it is up
    /// again only once every one has ended).
    failures: Vec<u32>,
    /// Pending changes: time bits, node, kind, argument; ordered, so ties break the same
    /// way every run.
    queue: BinaryHeap<Reverse<(u64, u32, u8, u32)>>,
    weak: Option<WeakNodes>,
    /// Drift steps each node has taken (empty without weak nodes): the next comes at
    /// `(steps + 1) * step_secs`, a product rather than a sum of steps, so that rounding
    /// neither accumulates nor leaves a step at the instant of the last.
    drift_steps: Vec<u64>,
    drift_stream: Stream,
}

impl NodeConditions {
    /// The conditions of `nodes` nodes under `causes`, the weak nodes chosen with `seed`.
    pub fn new(causes: &Causes, nodes: u32, seed: u64) -> Self {
        let n = nodes as usize;
        let mut conditions = NodeConditions {
            background: vec![0; n],
            speed: vec![1.0; n],
            down: vec![false; n],
            failures: vec![0; n],
            queue: BinaryHeap::new(),
            weak: causes.weak_nodes,
            drift_steps: if causes.weak_nodes.is_some() {
                vec![0; n]
            } else {
                Vec::new()
            },
            drift_stream: Stream::new(seed, &[label("drift")]),
        };
        for e in &causes.episodes {
            conditions.schedule(
                e.start_secs,
                e.node,
                Change::BackgroundUp(e.background_tasks),
            );
            conditions.schedule(
                e.start_secs + e.duration_secs,
                e.node,
                Change::BackgroundDown(e.background_tasks),
            );
        }
        for f in &causes.failures {
            conditions.schedule(f.at_secs, f.node, Change::Down);
            conditions.schedule(f.at_secs + f.down_secs, f.node, Change::Up);
        }
        if let Some(w) = causes.weak_nodes {
            let mut layout = Stream::new(seed, &[label("weak-nodes")]);
            let order = layout.permutation(n);
            for &node in order.iter().take(w.count as usize) {
                conditions.speed[node] = w.initial_speed;
                conditions.schedule(w.step_secs, node as u32, Change::Drift);
            }
        }
        conditions
    }

    fn schedule(&mut self, time: f64, node: u32, change: Change) {
        let (kind, arg) = match change {
            // Ends before starts at the same instant, then downs before ups.
            Change::BackgroundDown(n) => (0, n),
            Change::Down => (1, 0),
            Change::Up => (2, 0),
            Change::BackgroundUp(n) => (3, n),
            Change::Drift => (4, 0),
        };
        self.queue
            .push(Reverse((time.max(0.0).to_bits(), node, kind, arg)));
    }

    /// The time of the next change, if any.
    pub fn next_secs(&self) -> Option<f64> {
        self.queue.peek().map(|Reverse(e)| f64::from_bits(e.0))
    }

    /// Removes and returns the next change if it is due at or before `now`, with its
    /// node. It takes effect when given to [`NodeConditions::apply`]: the engine first
    /// brings the node up to `now` under its old condition.
    pub fn pop_due(&mut self, now: f64) -> Option<(u32, Change)> {
        let &Reverse((bits, node, kind, arg)) = self.queue.peek()?;
        if f64::from_bits(bits) > now {
            return None;
        }
        self.queue.pop();
        let change = match kind {
            0 => Change::BackgroundDown(arg),
            1 => Change::Down,
            2 => Change::Up,
            3 => Change::BackgroundUp(arg),
            _ => Change::Drift,
        };
        Some((node, change))
    }

    /// Applies `change` to `node` at time `now` (a drift step also schedules the next, the
    /// `k`-th at `k * step_secs`, or the first such instant after `now`).
    /// A node is down while at least one failure covers it: an `Up` ends one failure, and
    /// the node comes back only when it ends the last.
    pub fn apply(&mut self, node: u32, change: Change, now: f64) {
        let n = node as usize;
        let (Some(background), Some(speed), Some(down), Some(failures)) = (
            self.background.get_mut(n),
            self.speed.get_mut(n),
            self.down.get_mut(n),
            self.failures.get_mut(n),
        ) else {
            return;
        };
        match change {
            Change::BackgroundDown(k) => *background = background.saturating_sub(k),
            Change::BackgroundUp(k) => *background += k,
            Change::Down => {
                *failures += 1;
                *down = true;
            }
            Change::Up => {
                *failures = failures.saturating_sub(1);
                *down = *failures > 0;
            }
            Change::Drift => {
                if let (Some(w), Some(steps)) = (self.weak, self.drift_steps.get_mut(n)) {
                    let step = w.drift * (2.0 * self.drift_stream.uniform() - 1.0);
                    *speed = (*speed + step).clamp(w.min_speed, w.max_speed);
                    *steps += 1;
                    let mut next = (*steps + 1) as f64 * w.step_secs;
                    if next <= now {
                        // Applied late, more than a step after it was due: the steps
                        // missed are skipped, the next is the first after `now`.
                        *steps = (now / w.step_secs).floor() as u64;
                        next = (*steps + 1) as f64 * w.step_secs;
                    }
                    self.schedule(next, node, Change::Drift);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_phases_score_by_hand() {
        let phases = ReducePhases::default(); // 0.6, 0.1, 0.3
        // Half of the copy phase: (0 + 0.3 / 0.6) / 3 = 1/6.
        assert!((phases.score(0.3) - 1.0 / 6.0).abs() < 1e-12);
        // Middle of the sort phase: (1 + 0.05 / 0.1) / 3 = 0.5.
        assert!((phases.score(0.65) - 0.5).abs() < 1e-12);
        // Two thirds into the reduce phase: (2 + 0.2 / 0.3) / 3 = 8/9.
        assert!((phases.score(0.9) - 8.0 / 9.0).abs() < 1e-12);
        assert_eq!(phases.score(1.0), 1.0);
        assert_eq!(phases.score(0.0), 0.0);
    }

    #[test]
    fn bounded_pareto_by_hand() {
        // a = 1, min 1.5, max 10: u = 0 gives 1.5; u -> 1 gives 10;
        // u = 0.5: 1.5 / (1 - 0.5 * (1 - 0.15)) = 1.5 / 0.575 = 2.6087.
        assert_eq!(bounded_pareto(1.5, 10.0, 1.0, 0.0), 1.5);
        assert!((bounded_pareto(1.5, 10.0, 1.0, 0.5) - 1.5 / 0.575).abs() < 1e-12);
        assert!((bounded_pareto(1.5, 10.0, 1.0, 1.0 - 1e-16) - 10.0).abs() < 1e-6);
    }

    #[test]
    fn mix_draws_follow_table_4() {
        let causes = Causes {
            mix: Some(RootCauseMix::default()),
            ..Causes::default()
        };
        let mut counts = [0u32; 6];
        let mut stragglers = 0;
        let n = 200_000u64;
        for task in 0..n {
            let draw = causes.task_draw(9, task);
            if let Some(cause) = draw.cause {
                stragglers += 1;
                counts[cause as usize] += 1;
                let factor = draw.original_factor();
                assert!((1.5..=10.0).contains(&factor), "{factor}");
                assert!(draw.slows());
            }
        }
        let share = f64::from(stragglers) / n as f64;
        assert!((share - 0.05).abs() < 0.003, "{share}");
        let cpu = f64::from(counts[0]) / f64::from(stragglers);
        let skew = f64::from(counts[5]) / f64::from(stragglers);
        assert!((cpu - 0.30).abs() < 0.02, "{cpu}");
        assert!((skew - 0.03).abs() < 0.01, "{skew}");
    }

    #[test]
    fn levels_split_nodes_evenly() {
        let causes = Causes {
            levels: Some(Levels {
                containers: vec![32, 16, 8, 4],
            }),
            ..Causes::default()
        };
        let per_node: Vec<u32> = (0..8).map(|i| causes.containers_of(i, 8, 8)).collect();
        assert_eq!(per_node, [32, 32, 16, 16, 8, 8, 4, 4]);
        let uneven: Vec<u32> = (0..6).map(|i| causes.containers_of(i, 6, 8)).collect();
        assert_eq!(uneven, [32, 32, 16, 16, 8, 4]);
    }

    #[test]
    fn a_node_stays_down_until_every_failure_covering_it_has_ended() {
        // Node 0: down 1 s to 100 s, again 5 s to 6 s (nested), and 100 s to 110 s (on at
        // once): down from 1 s to 110 s. Node 1: 2 s to 3 s, up from 3 s.
        let failure = |node, at_secs, down_secs| Failure {
            node,
            at_secs,
            down_secs,
        };
        let causes = Causes {
            failures: vec![
                failure(0, 1.0, 99.0),
                failure(0, 5.0, 1.0),
                failure(0, 100.0, 10.0),
                failure(1, 2.0, 1.0),
            ],
            ..Causes::default()
        };
        let mut c = NodeConditions::new(&causes, 2, 1);
        let mut down_at = Vec::new();
        for now in [0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 99.0, 100.0, 109.0, 110.0] {
            while let Some((node, change)) = c.pop_due(now) {
                c.apply(node, change, now);
            }
            down_at.push((now, c.down[0], c.down[1]));
        }
        assert_eq!(
            down_at,
            [
                (0.0, false, false),
                (1.0, true, false),
                (2.0, true, true),
                (3.0, true, false),
                (5.0, true, false),
                (6.0, true, false),
                (99.0, true, false),
                (100.0, true, false),
                (109.0, true, false),
                (110.0, false, false),
            ]
        );
    }

    /// The `k`-th drift step comes at `k * step_secs`, not at a sum of `k` steps: ten
    /// steps of 0.1 s added up make 0.9999999999999999 s, the tenth step is at 1 s.
    #[test]
    fn drift_steps_come_at_multiples_of_the_step_not_at_sums() {
        let causes = Causes {
            weak_nodes: Some(WeakNodes {
                count: 1,
                step_secs: 0.1,
                ..WeakNodes::default()
            }),
            ..Causes::default()
        };
        let mut c = NodeConditions::new(&causes, 1, 1);
        let mut times = Vec::new();
        while let Some(now) = c.next_secs().filter(|&t| t < 1.5) {
            times.push(now);
            while let Some((node, change)) = c.pop_due(now) {
                c.apply(node, change, now);
            }
        }
        let expected: Vec<f64> = (1..=14).map(|k| f64::from(k) * 0.1).collect();
        assert_eq!(times, expected);
        assert_eq!(times[9], 1.0);
    }

    /// A step below a millisecond is refused, naming the key: at 1e-300 s, `now + step`
    /// is `now` and a run would take drift steps at one instant without end.
    #[test]
    fn a_drift_step_below_a_millisecond_is_refused_naming_the_key() {
        for step_secs in [1e-300, 0.0009, 0.0, -1.0] {
            let causes = Causes {
                weak_nodes: Some(WeakNodes {
                    count: 1,
                    step_secs,
                    ..WeakNodes::default()
                }),
                ..Causes::default()
            };
            let err = causes.check(4).expect_err("a step below 1 ms");
            assert_eq!(
                err.to_string(),
                format!(
                    "invalid configuration: causes.weak_nodes.step_secs = {step_secs}: must be \
                     >= 0.001"
                )
            );
        }
        let mut causes = Causes {
            weak_nodes: Some(WeakNodes {
                count: 1,
                step_secs: 0.001,
                ..WeakNodes::default()
            }),
            ..Causes::default()
        };
        assert!(causes.check(4).is_ok());
        causes.weak_nodes = Some(WeakNodes::default());
        assert!(causes.check(5).is_ok());
    }

    #[test]
    fn conditions_apply_episodes_failures_and_drift_in_time_order() {
        let causes = Causes {
            episodes: vec![Episode {
                node: 1,
                start_secs: 10.0,
                duration_secs: 1000.0,
                background_tasks: 8,
            }],
            failures: vec![Failure {
                node: 0,
                at_secs: 20.0,
                down_secs: 600.0,
            }],
            weak_nodes: Some(WeakNodes {
                count: 1,
                ..WeakNodes::default()
            }),
            ..Causes::default()
        };
        let mut c = NodeConditions::new(&causes, 3, 1);
        assert_eq!(c.speed.iter().filter(|&&s| s == 0.5).count(), 1);
        assert_eq!(c.next_secs(), Some(10.0));
        let step = |c: &mut NodeConditions, now: f64| {
            let due = c.pop_due(now);
            if let Some((node, change)) = due {
                c.apply(node, change, now);
            }
            due
        };
        assert_eq!(step(&mut c, 9.0), None);
        assert_eq!(step(&mut c, 10.0), Some((1, Change::BackgroundUp(8))));
        assert_eq!(c.background[1], 8);
        assert_eq!(step(&mut c, 20.0), Some((0, Change::Down)));
        assert!(c.down[0]);
        let (weak, drift) = step(&mut c, 60.0).expect("a drift step at 60 s");
        assert_eq!(drift, Change::Drift);
        let speed = c.speed[weak as usize];
        assert!((0.4..=0.6).contains(&speed), "{speed}");
        assert_eq!(c.next_secs(), Some(120.0));
        let mut other = Vec::new();
        for now in [
            120.0, 180.0, 240.0, 300.0, 360.0, 420.0, 480.0, 540.0, 600.0, 620.0,
        ] {
            while let Some((node, change)) = step(&mut c, now) {
                if change != Change::Drift {
                    other.push((node, change));
                }
            }
        }
        assert_eq!(other, [(0, Change::Up)]);
        assert!(!c.down[0]);
        for now in [660.0, 720.0, 780.0, 840.0, 900.0, 960.0, 1009.0] {
            while step(&mut c, now).is_some() {}
        }
        assert_eq!(step(&mut c, 1010.0), Some((1, Change::BackgroundDown(8))));
        assert_eq!(c.background[1], 0);
    }
}
