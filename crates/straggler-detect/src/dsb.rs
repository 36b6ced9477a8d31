//! DSB, dynamic server blacklisting (Ouyang, Wang, Xu, "Mitigating stragglers to avoid QoS
//! violation for time-critical applications through dynamic server blacklisting", FGCS
//! 101, 2019; seed 002, Section 4.2, Algorithms 1-3).
//!
//! Every `window_secs` (Algorithm 1's `TimeWindow`), the nodes are ranked from the tasks
//! that finished in the last window, and the weakest are blacklisted until the next ranking:
//!
//! - **Normalised durations (Eq. 1).** For a task `i` of stage (job and task type) `j`,
//!   `D~_j^i = (D_j^i - mean_j) / sd_j`, with the mean and the population standard
//!   deviation of the durations of the stage's tasks in the window.
//! - **Per-node interval (Alg. 2).** For a node with `n >= 2` normalised durations, mean
//!   `m` and population standard deviation `s` (`sqrt(sum (v - m)^2 / n)`, as line 15),
//!
//!   ```text
//!   CI = m -+ s t_{(1 + confidence) / 2, n - 1} / sqrt(n)       (Student t, 0.975 at 95%)
//!   ```
//! - **Interval-based ranking (Alg. 3, P-Cores).** An edge goes from node 1 to node 2 iff
//!   `L_2 > H_1` (node 2's interval lies wholly above, i.e. slower). Level zero, the
//!   weakest nodes, are those without an outgoing edge: no node is clearly slower. Since
//!   node `i` has an outgoing edge iff `max_{j != i} L_j > H_i`, level zero is found in
//!   one pass over the nodes, not over the pairs. The ends are compared widened by
//!   [`NodeInterval::rounding`] (below).
//! - **P-Cores without number.** The blacklist is level zero.
//! - **P-Cores with number `k`.** When level zero has more than `k` nodes, rank them by
//!   decreasing standard deviation and by decreasing mean of their normalised durations;
//!   the nodes in both top-`k` lists are blacklisted, and each remaining place goes to one
//!   of the pair of nodes at the same position in the two lists' leftovers, at random
//!   (the paper's `M_6` or `M_7`, after Sparrow's power of two choices). When no edge
//!   exists at all, every ranked node is level zero (Section 4.2.4: "all machine CIs are
//!   overlapped ... P-Cores without number ranks all nodes as level zero"), and the same
//!   choice picks `k` of them: the case the policy exists for.
//!
//! Blacklisted nodes are reported with [`Findings::push_slow_node`] at every scan until the
//! next ranking, and DSB's [`SlowNodeRule::NoNewWork`] tells the engine that they host
//! neither new tasks nor copies meanwhile (the abstract: "no new tasks/replications are
//! assigned to those straggler-prone nodes within the following time window").
//!
//! In the paper DSB picks no task to copy: it runs on YARN, whose speculator keeps doing
//! that ("DSB is not contradicted with enhanced speculative execution", Section 4.1;
//! Table 2 sets "DSB" beside "YARN speculator"). [`DsbOver`] is that system: another
//! detector's rows, DSB's blacklist (`dsb-yarn` in the simulator's catalogue: over Hadoop
//! 2's `DefaultSpeculator` with the legacy estimator, YARN's default). [`Dsb`] alone, a
//! detector in its own right, flags the original attempts running on the blacklisted
//! nodes, every one at every scan until the next ranking, young or old: a decision of
//! this crate, read from Section 4.2.2's "if a node got blacklisted in our algorithm, it is
//! more due to its contention or temporary unhealthy behavior, in which case migrate tasks
//! running on them is meaningful", not a rule the paper states.
//!
//! # Decisions where the paper is unclear (also in `docs/formulas.md`)
//!
//! - A "job" is a stage here (maps and reduces of a job apart): their durations differ by
//!   design, and Eq. 1 normalises away job heterogeneity only if each set is homogeneous.
//! - Durations are those of successful attempts (a killed attempt's time is cut short),
//!   counted on the node that ran them, when their end falls in `(now - window, now]`.
//! - A stage with `sd_j = 0` gives its tasks `D~ = 0`, and so does one whose `sd_j` is at
//!   most `|now| EPSILON`, a spread that the rounding of the end times alone makes (tasks
//!   of 10 s that started at 25.507 s end at 35.507000000000005 s: `end - start` is
//!   `10.000000000000004`); Eq. 1 would scale it up to values of order 1, and blacklist
//!   on them. Above that, rounding still moves each `D~` a little, and Algorithm 3 allows
//!   for it. With `0 <= start <= end <= now`, a duration `end - start` is within
//!   `m = |now| EPSILON` of the time between the unrounded end and the start (half an ulp
//!   of `now` for the end, half an ulp of the duration for the subtraction). So, the
//!   stage's mean and sd taken as they are (every node's `D~` of the stage share them),
//!   each `D~` moves by at most `m / sd_j`; a node's mean by at most the mean of those, its
//!   sd by at most their root mean square (centering does not lengthen a vector), each
//!   plus its own rounding, at most `4 n EPSILON max |D~|`; and its ends by at most
//!   `r = mean's + sd's x t / sqrt(n)` ([`NodeInterval::rounding`]). An edge needs
//!   `L_2 - r_2 > H_1 + r_1`, so two nodes whose durations are equal but for that
//!   rounding, in the same stages, are never told apart: two equally slow nodes are both
//!   level zero (their points were 1 ulp apart, and one node was left out). One value of
//!   a stage whose sd is barely above `m` moves a node's bound by its share of the
//!   node's values only. A stage with a single success in the window has no `sd_j` (Eq. 1
//!   is `0 / 0`): that duration is no evidence on its node, and is left out (counted as
//!   `D~ = 0`, ten lone tasks on a node pulled its interval from `[1, 1]` to
//!   `[0.025, 0.547]`). A node with fewer than two
//!   durations has no interval (Student t needs `n - 1 >= 1`) and is neither ranked nor
//!   blacklisted.
//! - So a blacklisted node that finishes fewer than two tasks in the next window (it takes
//!   no new task, and `dsb` has its running ones copied) is not ranked at the next
//!   ranking, and leaves the blacklist. The paper re-ranks "including the ones in the
//!   blacklist", released once their "ranking ... can surpass some current working
//!   nodes" (Section 4.2.4), and says nothing of a node without new durations. Keeping its
//!   last interval instead would keep a node that is given no work blacklisted for good,
//!   the static blacklist the paper sets out to replace; the weakest nodes may then come
//!   and go from the list every other window.
//! - Student's `t` quantile is `statrs`'s below 1000 degrees of freedom and Abramowitz &
//!   Stegun's expansion 26.7.5 from there ([`student_t_quantile`], shared with the
//!   metrics' confidence intervals): `statrs`'s drifts at millions.
//! - Algorithm 3 draws an edge when `H_1 <= L_2`, the text when `L_2 > H_1`; touching
//!   intervals overlap, so the strict test is used.
//! - When no edge exists at all (every interval overlaps every other, the paper's
//!   "extreme case"), P-Cores without number blacklists nothing: the paper allows
//!   "blacklist no nodes", and blacklisting every node would stop the cluster. One edge is
//!   enough to leave that case: a node clearly faster than every other, the rest all
//!   overlapping, has an edge to each of them and they have none, so they are all level
//!   zero and all blacklisted, the cluster left that one node. That is Algorithm 3's rule
//!   and is kept; `dsb-top<k>` bounds the count. With number
//!   `k` (Section 4.2.3: "or specify a certain number to blacklist"), the top `k` of the
//!   ranked nodes are blacklisted when more than `k` are ranked; when at most `k` are,
//!   nothing is: choosing them all would blacklist every node with evidence, which is what
//!   the with-number policy exists to prevent, and leaves no weaker node to tell apart.
//! - With number `k` and an edge, a level zero of at most `k` nodes is blacklisted whole;
//!   normal nodes are never added to reach `k`. Ties in the two rankings go to the lower
//!   node index. The random choice uses a SplitMix64 stream from `seed`, restarted by
//!   `reset`.
//! - Per-stage statistics are kept in a map keyed by stage, so that a stage index from an
//!   observation costs one entry whatever its value. A stage that finished
//!   ([`Observation::StageFinished`]) keeps its successes in the window, normalised among
//!   themselves: they are evidence on their nodes; a later stage given its index is
//!   normalised apart.
//! - The first ranking happens at the first scan, then every `window_secs`.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use straggler_metrics::student_t_quantile;
use straggler_model::{AttemptRole, AttemptStatus, NodeId, Observation, Snapshot};

use crate::conformance::SplitMix64;
use crate::error::check_param;
use crate::esplash::Moments;
use crate::scan::IdMap;
use crate::{DetectError, Detector, Findings, SlowNodeRule};

/// Parameters of [`Dsb`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DsbParams {
    /// `TimeWindow`: nodes are re-ranked this often, from the tasks that finished in the
    /// last window (60 s). Finite, `> 0`.
    pub window_secs: f64,
    /// Confidence of the per-node intervals (0.95). In `(0, 1)`.
    pub confidence: f64,
    /// `None`: P-Cores without number (blacklist level zero); `Some(k)`: P-Cores with
    /// number, at most `k` nodes, `k >= 1`.
    pub blacklist_size: Option<u32>,
    /// Seed of the random choice between the two rankings of P-Cores with number.
    pub seed: u64,
}

impl Default for DsbParams {
    fn default() -> Self {
        DsbParams {
            window_secs: 60.0,
            confidence: 0.95,
            blacklist_size: None,
            seed: 0x0d5b,
        }
    }
}

impl DsbParams {
    /// P-Cores with number: at most `k` blacklisted nodes.
    pub fn top(k: u32) -> Self {
        DsbParams {
            blacklist_size: Some(k),
            ..DsbParams::default()
        }
    }

    /// Checks the parameters: `window_secs` finite and `> 0`, `confidence` in `(0, 1)`,
    /// `blacklist_size`, if set, at least 1.
    pub fn check(self) -> Result<CheckedDsbParams, DetectError> {
        check_param("window_secs", self.window_secs, "finite and > 0", |w| {
            w > 0.0
        })?;
        check_param("confidence", self.confidence, "in (0, 1)", |c| {
            c > 0.0 && c < 1.0
        })?;
        if let Some(size) = self.blacklist_size {
            check_param(
                "blacklist_size",
                f64::from(size),
                ">= 1 (unset: P-Cores without number)",
                |s| s >= 1.0,
            )?;
        }
        Ok(CheckedDsbParams(self))
    }
}

/// [`DsbParams`] that passed [`DsbParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedDsbParams(DsbParams);

/// A successful attempt in the log.
#[derive(Debug, Clone, Copy)]
struct Finished {
    end_secs: f64,
    /// The stage's index, and above it how many stages had finished at that index before
    /// ([`Observation::StageFinished`]): the tasks of a stage that finished are still
    /// normalised among themselves, not with a later stage given its index.
    stage: u64,
    node: u32,
    duration_secs: f64,
}

/// A node's interval at the last ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct NodeInterval {
    /// The node.
    pub node: NodeId,
    /// Number of normalised durations.
    pub tasks: u64,
    /// Their mean.
    pub mean: f64,
    /// Their population standard deviation.
    pub sd: f64,
    /// Low end of the interval.
    pub low: f64,
    /// High end of the interval.
    pub high: f64,
    /// The most the rounding of the durations, and of the mean and sd, can have moved
    /// `low` and `high`, the stages' means and sds taken as they are: Algorithm 3 takes
    /// intervals closer than the two nodes' `rounding` together for touching (see the
    /// module docs).
    pub rounding: f64,
}

/// DSB (seed 002): nodes ranked every window by the confidence interval of their
/// normalised task durations; the weakest (P-Cores level zero, or at most `k` of them)
/// are blacklisted and their running originals flagged. The module docs of `src/dsb.rs`
/// give the formulas and the decisions taken where the paper is unclear.
#[derive(Debug, Clone)]
pub struct Dsb {
    params: DsbParams,
    name: String,
    log: VecDeque<Finished>,
    next_rank_secs: Option<f64>,
    rng: SplitMix64,
    blacklisted: Vec<bool>,
    blacklist: Vec<NodeId>,
    intervals: Vec<NodeInterval>,
    // Buffers kept between rankings.
    /// Durations of the window by stage key (`Finished::stage`; a map: stage indices come
    /// from observations).
    stage_moments: IdMap<u64, Moments>,
    /// Stages finished at each stage index.
    finished_stages: IdMap<u32, u32>,
    node_moments: Vec<Moments>,
    /// Each node's largest `|D~|`, and the sum of how far the rounding of a duration can
    /// move each of its `D~` and of the squares of those (see [`NodeInterval::rounding`]).
    node_rounding: Vec<NodeRounding>,
    /// `t_{(1 + confidence) / 2, dof}` by `dof`.
    t_quantiles: IdMap<u64, f64>,
}

impl Default for Dsb {
    fn default() -> Self {
        Dsb::new(CheckedDsbParams(DsbParams::default()))
    }
}

impl Dsb {
    /// A detector with checked parameters.
    pub fn new(params: CheckedDsbParams) -> Self {
        Dsb {
            params: params.0,
            name: match params.0.blacklist_size {
                None => String::from("dsb"),
                Some(k) => format!("dsb-top{k}"),
            },
            log: VecDeque::new(),
            next_rank_secs: None,
            rng: SplitMix64(params.0.seed),
            blacklisted: Vec::new(),
            blacklist: Vec::new(),
            intervals: Vec::new(),
            stage_moments: IdMap::default(),
            finished_stages: IdMap::default(),
            node_moments: Vec::new(),
            node_rounding: Vec::new(),
            t_quantiles: IdMap::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &DsbParams {
        &self.params
    }

    /// The blacklist of the last ranking, in increasing node order.
    pub fn blacklist(&self) -> &[NodeId] {
        &self.blacklist
    }

    /// The intervals of the ranked nodes at the last ranking, in node order.
    pub fn intervals(&self) -> &[NodeInterval] {
        &self.intervals
    }

    /// `t_{(1 + confidence) / 2, dof}` ([`student_t_quantile`]), cached by degrees of
    /// freedom: only those asked for.
    fn t_quantile(&mut self, dof: u64) -> Option<f64> {
        let p = (1.0 + self.params.confidence) / 2.0;
        let t = *self
            .t_quantiles
            .entry(dof)
            .or_insert_with(|| student_t_quantile(p, dof));
        t.is_finite().then_some(t)
    }

    /// Ranks the nodes at the snapshot's instant if a window has passed since the last
    /// ranking (or none was made, or the cluster's size changed).
    fn rank_if_due(&mut self, snapshot: &Snapshot) {
        let now = snapshot.now_secs();
        let node_count = snapshot.node_count() as usize;
        if self.next_rank_secs.is_none_or(|next| now >= next)
            || self.blacklisted.len() != node_count
        {
            self.rank(now, node_count);
            self.next_rank_secs = Some(now + self.params.window_secs);
        }
    }

    /// Algorithms 1-3 at `now` on a cluster of `node_count` nodes.
    fn rank(&mut self, now: f64, node_count: usize) {
        let oldest = now - self.params.window_secs;
        while self.log.front().is_some_and(|f| f.end_secs <= oldest) {
            self.log.pop_front();
        }
        // Eq. 1: stage means and standard deviations.
        self.stage_moments.clear();
        for f in self.log.iter().filter(|f| f.end_secs <= now) {
            self.stage_moments
                .entry(f.stage)
                .or_default()
                .push(f.duration_secs);
        }
        // Algorithm 2: per node, the moments of the normalised durations. A stage whose
        // durations spread no more than the rounding of one time at `now` ran equally long
        // (`end - start` of equal runs differs in its last bits): its sd is 0.
        let rounding = now.abs() * f64::EPSILON;
        self.node_moments.clear();
        self.node_moments.resize(node_count, Moments::default());
        self.node_rounding.clear();
        self.node_rounding
            .resize(node_count, NodeRounding::default());
        for f in self.log.iter().filter(|f| f.end_secs <= now) {
            let Some(moments) = self.node_moments.get_mut(f.node as usize) else {
                continue;
            };
            // A stage's one success in the window has no `sd_j` (Eq. 1 is `0 / 0`): no
            // evidence on its node.
            let Some(stage) = self.stage_moments.get(&f.stage).filter(|s| s.count >= 2) else {
                continue;
            };
            let sd = stage.population_sd();
            let (normalised, moved) = if sd > rounding {
                ((f.duration_secs - stage.mean) / sd, rounding / sd)
            } else {
                (0.0, 0.0)
            };
            moments.push(normalised);
            let node = &mut self.node_rounding[f.node as usize];
            node.largest = node.largest.max(normalised.abs());
            node.moved += moved;
            node.moved_squares += moved * moved;
        }
        self.intervals.clear();
        for node in 0..node_count {
            let moments = self.node_moments[node];
            if moments.count < 2 {
                continue;
            }
            let Some(t) = self.t_quantile(moments.count - 1) else {
                continue;
            };
            let sd = moments.population_sd();
            let n = moments.count as f64;
            let scale = t / n.sqrt();
            let half = sd * scale;
            // The mean within the mean of how far each `D~` can have moved, the sd within
            // their root mean square (centering does not lengthen a vector), each plus the
            // arithmetic's own rounding (see the module docs).
            let rounded = self.node_rounding[node];
            let own = 4.0 * n * f64::EPSILON * rounded.largest;
            let mean_moved = rounded.moved / n + own;
            let sd_moved = (rounded.moved_squares / n).sqrt() + own;
            self.intervals.push(NodeInterval {
                node: NodeId(node as u32),
                tasks: moments.count,
                mean: moments.mean,
                sd,
                low: moments.mean - half,
                high: moments.mean + half,
                rounding: mean_moved + sd_moved * scale,
            });
        }
        // Algorithm 3: level zero = no j != i with L_j > H_i, the ends widened by their
        // rounding.
        let (mut max_low, mut second_low, mut max_at) =
            (f64::NEG_INFINITY, f64::NEG_INFINITY, usize::MAX);
        for (i, interval) in self.intervals.iter().enumerate() {
            let low = interval.low - interval.rounding;
            if low > max_low {
                second_low = max_low;
                max_low = low;
                max_at = i;
            } else if low > second_low {
                second_low = low;
            }
        }
        let mut level_zero: Vec<NodeInterval> = Vec::new();
        let mut any_edge = false;
        for (i, interval) in self.intervals.iter().enumerate() {
            let other_low = if i == max_at { second_low } else { max_low };
            if other_low > interval.high + interval.rounding {
                any_edge = true;
            } else {
                level_zero.push(*interval);
            }
        }
        // Without an edge, level zero holds every ranked node.
        let mut chosen: Vec<NodeId> = match self.params.blacklist_size {
            Some(k) if level_zero.len() > k as usize => {
                pcores_with_number(&level_zero, k as usize, &mut self.rng)
            }
            _ if !any_edge => Vec::new(),
            _ => level_zero.iter().map(|i| i.node).collect(),
        };
        chosen.sort_unstable();
        self.blacklisted.clear();
        self.blacklisted.resize(node_count, false);
        for node in &chosen {
            self.blacklisted[node.index()] = true;
        }
        self.blacklist = chosen;
    }
}

/// What [`Dsb::rank`] gathers of a node's `D~` to bound how far rounding moved its
/// interval ([`NodeInterval::rounding`]).
#[derive(Debug, Clone, Copy, Default)]
struct NodeRounding {
    /// The largest `|D~|`.
    largest: f64,
    /// The sum, over its `D~`, of how far the rounding of the duration can move each.
    moved: f64,
    /// The sum of the squares of those.
    moved_squares: f64,
}

/// P-Cores with number: the top `k` of `level_zero` (more than `k` nodes) by standard
/// deviation and by mean.
fn pcores_with_number(level_zero: &[NodeInterval], k: usize, rng: &mut SplitMix64) -> Vec<NodeId> {
    let mut by_sd: Vec<&NodeInterval> = level_zero.iter().collect();
    by_sd.sort_by(|a, b| b.sd.total_cmp(&a.sd).then(a.node.cmp(&b.node)));
    let mut by_mean: Vec<&NodeInterval> = level_zero.iter().collect();
    by_mean.sort_by(|a, b| b.mean.total_cmp(&a.mean).then(a.node.cmp(&b.node)));
    let top_sd: Vec<NodeId> = by_sd.iter().take(k).map(|i| i.node).collect();
    let top_mean: Vec<NodeId> = by_mean.iter().take(k).map(|i| i.node).collect();
    let mut chosen: Vec<NodeId> = top_sd
        .iter()
        .copied()
        .filter(|n| top_mean.contains(n))
        .collect();
    let sd_left = top_sd.iter().filter(|n| !chosen.contains(n));
    let mean_left: Vec<NodeId> = top_mean
        .iter()
        .copied()
        .filter(|n| !chosen.contains(n))
        .collect();
    let picks: Vec<NodeId> = sd_left
        .zip(&mean_left)
        .map(|(&a, &b)| if rng.next_u64() & 1 == 0 { a } else { b })
        .collect();
    chosen.extend(picks);
    chosen
}

impl Detector for Dsb {
    /// `"dsb"` without number, `"dsb-top<k>"` with number `k`.
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        self.rank_if_due(snapshot);
        if self.blacklist.is_empty() {
            return;
        }
        for &node in &self.blacklist {
            findings.push_slow_node(node);
        }
        let (nodes, roles) = (snapshot.node_indices(), snapshot.roles());
        let blacklisted = &self.blacklisted;
        findings.rows_mut().extend(
            (0..snapshot.len())
                .filter(|&row| {
                    roles[row] == AttemptRole::Original && blacklisted[nodes[row] as usize]
                })
                .map(|row| row as u32),
        );
    }

    fn observe(&mut self, observation: &Observation) {
        let end = match observation {
            Observation::AttemptEnded(end) => end,
            Observation::StageFinished { stage, .. } => {
                *self.finished_stages.entry(stage.0).or_insert(0) += 1;
                return;
            }
            _ => return,
        };
        let duration_secs = end.end_secs - end.start_secs;
        if end.status != AttemptStatus::Succeeded
            || !(duration_secs >= 0.0 && duration_secs.is_finite() && end.end_secs.is_finite())
        {
            return;
        }
        let finished = Finished {
            end_secs: end.end_secs,
            stage: u64::from(self.finished_stages.get(&end.stage.0).copied().unwrap_or(0)) << 32
                | u64::from(end.stage.0),
            node: end.node.0,
            duration_secs,
        };
        // Engines send ends in time order; keep the log sorted if one does not.
        match self.log.back() {
            Some(last) if last.end_secs > finished.end_secs => {
                let at = self
                    .log
                    .partition_point(|f| f.end_secs <= finished.end_secs);
                self.log.insert(at, finished);
            }
            _ => self.log.push_back(finished),
        }
    }

    fn reset(&mut self) {
        *self = Dsb::new(CheckedDsbParams(self.params));
    }

    /// [`SlowNodeRule::NoNewWork`]: blacklisted nodes host neither new tasks nor copies.
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::NoNewWork
    }
}

/// DSB as the paper runs it (Section 5, on YARN): another detector chooses the tasks to
/// copy, here `inner` (YARN's is Hadoop 2's `DefaultSpeculator` with its default,
/// legacy, estimator), and DSB's blacklist keeps new tasks and copies off the weakest
/// nodes. The rows flagged are `inner`'s; the slow nodes are DSB's blacklist, then
/// those `inner` reports that it does not hold, all under DSB's rule
/// ([`SlowNodeRule::NoNewWork`]), one rule per detector: an inner detector's own slow
/// nodes are then kept from new regular tasks too, which its own rule
/// ([`SlowNodeRule::Report`], [`SlowNodeRule::NoCopies`]) may not do. Hadoop's speculator,
/// `dsb-yarn`'s, reports none. [`Dsb`] alone flags the running originals on the
/// blacklisted nodes instead (see the module docs).
#[derive(Debug, Clone)]
pub struct DsbOver<D> {
    dsb: Dsb,
    inner: D,
    name: String,
    /// The inner detector's findings of the scan.
    flagged: Findings,
}

impl<D: Detector> DsbOver<D> {
    /// DSB's blacklist, with checked parameters, over `inner`'s detections; named
    /// `"dsb(<inner>)"` (`"dsb-top<k>(<inner>)"` with number `k`).
    pub fn new(inner: D, params: CheckedDsbParams) -> Self {
        let dsb = Dsb::new(params);
        let name = format!("{}({})", dsb.name(), inner.name());
        DsbOver {
            dsb,
            inner,
            name,
            flagged: Findings::default(),
        }
    }

    /// The blacklisting.
    pub fn dsb(&self) -> &Dsb {
        &self.dsb
    }

    /// The detector that chooses the tasks to copy.
    pub fn inner(&self) -> &D {
        &self.inner
    }
}

impl<D: Detector> Detector for DsbOver<D> {
    fn name(&self) -> &str {
        &self.name
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        self.flagged.clear();
        self.inner.scan(snapshot, &mut self.flagged);
        self.dsb.rank_if_due(snapshot);
        findings.rows_mut().extend_from_slice(self.flagged.rows());
        for &node in &self.dsb.blacklist {
            findings.push_slow_node(node);
        }
        for &node in self.flagged.slow_nodes() {
            if !self
                .dsb
                .blacklisted
                .get(node.index())
                .copied()
                .unwrap_or(false)
            {
                findings.push_slow_node(node);
            }
        }
    }

    fn observe(&mut self, observation: &Observation) {
        self.dsb.observe(observation);
        self.inner.observe(observation);
    }

    fn reset(&mut self) {
        self.dsb.reset();
        self.inner.reset();
    }

    /// DSB's, [`SlowNodeRule::NoNewWork`].
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::NoNewWork
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(node: u32, mean: f64, sd: f64) -> NodeInterval {
        NodeInterval {
            node: NodeId(node),
            tasks: 10,
            mean,
            sd,
            low: mean - 1.0,
            high: mean + 1.0,
            rounding: 0.0,
        }
    }

    #[test]
    fn pcores_with_number_as_in_the_paper() {
        // Section 4.2.4: ten level-zero nodes M1..M10, at most six blacklisted; by
        // decreasing sd M1..M10, by decreasing mean M1..M5, M7, M6, M8, M9, M10. The top-6
        // lists share M1..M5; the sixth place goes to M6 or M7 at random.
        let means = [10.0, 9.0, 8.0, 7.0, 6.0, 4.0, 5.0, 3.0, 2.0, 1.0];
        let level_zero: Vec<NodeInterval> = (1..=10)
            .map(|m| interval(m, means[m as usize - 1], 11.0 - f64::from(m)))
            .collect();
        let mut seen = [false; 2];
        for seed in 0..16 {
            let mut chosen = pcores_with_number(&level_zero, 6, &mut SplitMix64(seed));
            chosen.sort_unstable();
            assert_eq!(&chosen[..5], &[1, 2, 3, 4, 5].map(NodeId));
            assert!(chosen[5] == NodeId(6) || chosen[5] == NodeId(7));
            seen[usize::from(chosen[5] == NodeId(7))] = true;
            // The same seed, the same choice.
            let mut again = pcores_with_number(&level_zero, 6, &mut SplitMix64(seed));
            again.sort_unstable();
            assert_eq!(again, chosen);
        }
        assert_eq!(seen, [true, true], "both M6 and M7 are drawn over 16 seeds");
        // Rankings that agree: no draw.
        let mut chosen = pcores_with_number(&level_zero[..5], 2, &mut SplitMix64(0));
        chosen.sort_unstable();
        assert_eq!(chosen, [NodeId(1), NodeId(2)]);
    }
}
