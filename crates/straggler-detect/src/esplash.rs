//! eSplash (Wang, Wang, Yang, Mi, Sheng, "eSplash: Efficient Speculation in Large Scale
//! Heterogeneous Computing Systems", IPCCC 2016; seed 001, Section IV): nodes are
//! classified into performance levels, a node is a straggler when its running tasks are
//! slow *for its level*, and only the tasks on straggler nodes are speculated.
//!
//! # Classify nodes (Section IV-A, Algorithms 1 and 2)
//!
//! - **Performance vector.** `PV_i = (e_1, .., e_D)`: for each task type `d`, the mean
//!   execution time of the tasks of that type node `i` has finished. A task type is a
//!   stage (the maps of a job, its reduces), as Hadoop's statistics table keys them. A
//!   stage that finished ([`Observation::StageFinished`]) stays a dimension, as evidence on
//!   the nodes that ran it, under a column of its own, while its index starts afresh for
//!   the stage an engine gives it next; the [`RETIRED_COLUMNS`] (16) latest finished
//!   stages are kept, older ones leave the vectors (the paper keeps no bound; a day of a
//!   datacenter's jobs would give tens of thousands of dimensions). A column emptied is
//!   given to the next stage that needs one, so column numbers do not follow the stages'
//!   order; each column keeps the rank of its stage's first success instead. A tie for
//!   the stage finished on the most nodes (see the decisions below) goes to the one whose
//!   first success came first, and the dimensions of the performance vectors are in that
//!   order too, so the classification does not depend on which column a stage got. A
//!   column emptied makes the nodes be classified again.
//! - **Grouping (Alg. 1).** Start with one group per PV; merge two groups when neither
//!   dominates the other (`min_i(a) > max_j(a)` and `min_j(b) > max_i(b)` for some
//!   dimensions `a`, `b`), and merge the groups that overlap the merged one (`[min, max]`
//!   overlapping in a dimension), until the groups are non-overlapping and ordered: for any
//!   two groups, one lies strictly below the other in every dimension. The overlap test
//!   is applied to every pair, single points too, with closed intervals: two PVs equal in
//!   one dimension (`(10, 5)` and `(12, 5)`) overlap there and share a group, where line 8
//!   alone (strict comparisons) would keep them apart until a merge made a group they
//!   overlap. The paper's result then depends on the order of its merges; this one does
//!   not, and the two differ only where PVs tie exactly in a dimension.
//! - **Group-based k-means (Alg. 2).** k-means over the PVs in which each PV votes for its
//!   closest centre (Euclidean distance) and each group joins the centre with the most
//!   votes, until no group changes cluster. Clusters become levels, ordered by their
//!   centre's total execution time: level 0 is the slowest, `HL = L - 1` the fastest (the
//!   paper numbers them from 1; a higher level is a faster node in both).
//!
//! # Detect straggler nodes (Section IV-B)
//!
//! The statistics table `ST(i, d) = <mu, sigma, PR>` holds, for the nodes of level `i` and
//! task type `d`, the mean `mu` and standard deviation `sigma` of the finished execution
//! times and the mean progress rate `PR` of the running tasks. For a running task `j` with
//! progress `p_j > 0` and elapsed time `t_j > 0` on a node of level `i`,
//!
//! ```text
//! EstT_j = t_j / p_j          PR_j = p_j / t_j
//! c_j    = max(0, (EstT_j - mu(i, d_j)) / sigma(i, d_j)) + PR(i, d_j) / PR_j
//! SV     = mean of c_j over the node's running tasks that have a term (0 without one)
//! ```
//!
//! and the node is a straggler iff `SV > tau`. A task that adds no term (below: no
//! elapsed time yet, or no progress yet within its level's usual time) is not counted in
//! the mean either: it says nothing of the node yet, and counted as 0 it would dilute the
//! terms of the node's other tasks (the paper's `SV <- SV + ...` adds nothing for it). A
//! task with `p_j = 0` has `PR_j = 0` and
//! `EstT_j` unbounded: the paper's term `PR(i, d_j) / PR_j` is infinite. Such a task counts
//! as `c_j = +infinity` (its node is a straggler whatever its other tasks) once it has run
//! longer than its level's usual time, `t_j > mu(i, d_j)`, the mean of the finished tasks
//! of its type at its level: by then a normal task of the level would have finished, so no
//! progress at all is a stall. A younger one adds no term (at launch, before its first
//! report of progress, every task is at 0), nor does one whose level has not finished a
//! task of its type. A task whose `EstT_j = t_j / p_j` overflows to infinity, a progress
//! above 0 but below `t_j / f64::MAX` (1e-320 after 20 s), is treated as one at zero
//! progress: its `EstT` is unbounded and its rate, at most `1 / f64::MAX` per second, is
//! left out of `PR(i, d)`. A term `c_j` that overflows to `+infinity` (a huge but finite
//! `EstT` against a small `sigma` or a fast level) counts as `+infinity` too: the node is a
//! straggler. Straggler nodes are reported through [`Findings::push_slow_node`],
//! and eSplash's [`SlowNodeRule::NoCopies`] tells the engine that they host no copy until
//! the next scan (Section IV-D: "the marked straggler nodes are excluded from hosting any
//! speculative task").
//!
//! # Copies and `minL` (Section IV-C, Algorithm 3)
//!
//! With `C(m)` the number of non-straggler nodes of level `m` (the containers that can
//! host a copy), for a task of type `d` on a level-`i` straggler node and each candidate
//! minimum level `l` in `[i, HL]`,
//!
//! ```text
//! ExpT_l = sum_{m in [l, HL]} C(m) mu(m, d) / sum_{m in [l, HL]} C(m)
//! minL   = argmin_l ExpT_l      (the lowest such l on a tie)
//! value  = sum_{m in [minL, HL]} C(m) (EstEnd - T_now - mu(m, d)) / sum_{m in [1, HL]} C(m)
//! ```
//!
//! and the original attempts on straggler nodes whose speculative value is positive,
//! i.e. whose time left `EstEnd - T_now = start_j + EstT_j - T_now` exceeds `ExpT_minL`,
//! are flagged. The
//! `minL` of each flagged row is available from [`ESplash::min_levels`] for a placement
//! policy; the engine picks which copy to launch first. The simulator in this workspace
//! uses neither: its copies go to any node that is not a straggler (no `minL`), and its
//! candidates are launched longest time left first rather than by speculative value (see
//! `docs/formulas.md`).
//!
//! # Decisions where the paper is unclear (also in `docs/formulas.md`)
//!
//! - `delta` is called the variance; dividing seconds by seconds squared would make SV
//!   depend on the time unit, so the z-score uses the standard deviation (population).
//! - The paper writes `SV <- SV + ...` without saying when SV is reset; accumulated over
//!   heartbeats, the progress-rate term (about 1 per normal task) would push every node
//!   over any threshold. SV is recomputed at every scan, and is the *mean* of the terms
//!   over the node's running tasks so that a node with more containers is not more of a
//!   straggler; `tau = 3` by default (the paper gives no value).
//! - `PR_j` is the rate since the attempt started (a snapshot holds one progress value),
//!   not the increase over the last epoch. `t_j` runs up to the attempt's last progress
//!   report when the detector saw the report of the snapshot's progress, up to the scan
//!   otherwise (the paper divides the elapsed time at a heartbeat by the progress it
//!   carries).
//! - An attempt that stops reporting keeps, in the snapshot, its last reported progress,
//!   and here its last report: its `t_j`, so its `EstT_j`, `PR_j` and term, stay those of
//!   that report however long it hangs. It makes its node a straggler only if it already
//!   looked slow then; one hung at zero progress after a report of 0 keeps that report's
//!   elapsed time, and adds a term only if that was past its level's usual time. An
//!   attempt never reported is timed up to the scan, so its estimate grows. The paper does
//!   not say what eSplash does with a task that stops reporting, and nothing here makes up
//!   readings for it (as Hadoop's speculator does, `hadoop::HadoopSpeculator`). Tasks with zero elapsed time add no term to SV
//!   (no rate yet); tasks with zero progress add an infinite term past their level's usual
//!   time and none before (above), and are flagged on a straggler node when they have run
//!   (their time left is unbounded).
//! - The z-term is used when the level has at least two finished tasks of the type and
//!   `sigma > 0`.
//! - Dimensions: the stage finished on the most nodes is always one; the nodes that have
//!   finished a task of it are clustered, over every stage all of them have finished.
//!   Other nodes have no level: their tasks are not judged and they are left out of
//!   Algorithm 3's `C(m)`. They are not straggler nodes, so an engine may still place a
//!   copy on one (the simulator's copies go to any node that is not a straggler).
//! - Initial centres: k-means starts from the groups at evenly spaced positions of the
//!   group order (not random), so runs are deterministic and every level starts from a
//!   distinct group. Ties in distance or votes go to the lower cluster index. At most
//!   `max_kmeans_iterations` rounds.
//! - `C(m)` counts nodes, not containers (a snapshot has no container counts): the same
//!   `ExpT`, `minL` and value when every node offers the same number of containers, and
//!   the same flags wherever the level's mean time of the task's type does not rise with
//!   the level (`docs/formulas.md` says when `minL` differs). Levels without a finished
//!   task of the type are left out of `ExpT` and the value.
//! - The one-request-per-period rule and the re-evaluation of pending copies (IV-D) are
//!   the engine's business; every candidate with a positive value is flagged.
//!
//! Execution times are learnt from successful attempts ([`Observation::AttemptEnded`]);
//! the level statistics follow every success, and nodes are classified again at the first
//! scan after a new success once `recluster_interval_secs` (30 s) have passed since the
//! last classification (the paper does not say how often; on 10^4 nodes a classification
//! costs tens of milliseconds). Progress reports ([`Observation::Progress`]) give the time
//! of each attempt's progress; an attempt's last report is kept until it ends, keyed by
//! its id (any `u32`). The scan is sequential (three passes over the rows; where the nodes
//! are numbered as below, one more, and another to name the straggler nodes if there are
//! any; no allocation once the buffers have grown), so it does not depend on the number of
//! threads. Where the rows are fewer than half the nodes, the straggler values are summed
//! by the numbers of the nodes the rows name (`scan::Renumbering`, as Hierarchical's
//! speeds), and `C(m)` is each level's count of nodes (counted once per classification and
//! node count) less its straggler nodes, so that no pass reads every node: the same values
//! in the same order, and the straggler nodes reported in node order.

use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, AttemptStatus, NodeId, Observation, Snapshot};

use crate::error::check_param;
use crate::id_table::IdTable;
use crate::scan::Renumbering;
use crate::{DetectError, Detector, Findings, SlowNodeRule};

/// Parameters of [`ESplash`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ESplashParams {
    /// `k` of the group-based k-means: the most performance levels (4, the paper's
    /// testbed). At least 1.
    pub levels: u32,
    /// `tau`: a node whose straggler value exceeds it is a straggler (3). Finite, `>= 0`.
    pub straggler_threshold: f64,
    /// The most rounds of k-means (100). At least 1.
    pub max_kmeans_iterations: u32,
    /// Nodes are classified again (Algorithms 1-2) at most this often, at the first scan
    /// after a new success (30 s); the level statistics follow every success. Finite,
    /// `>= 0` (0: at every scan after a new success).
    pub recluster_interval_secs: f64,
}

impl Default for ESplashParams {
    fn default() -> Self {
        ESplashParams {
            levels: 4,
            straggler_threshold: 3.0,
            max_kmeans_iterations: 100,
            recluster_interval_secs: 30.0,
        }
    }
}

impl ESplashParams {
    /// Checks the parameters: `levels >= 1`, `straggler_threshold` finite and `>= 0`,
    /// `max_kmeans_iterations >= 1`, `recluster_interval_secs` finite and `>= 0`.
    pub fn check(self) -> Result<CheckedESplashParams, DetectError> {
        check_param("levels", f64::from(self.levels), "at least 1", |v| v >= 1.0)?;
        check_param(
            "straggler_threshold",
            self.straggler_threshold,
            "finite and >= 0",
            |v| v >= 0.0,
        )?;
        check_param(
            "max_kmeans_iterations",
            f64::from(self.max_kmeans_iterations),
            "at least 1",
            |v| v >= 1.0,
        )?;
        check_param(
            "recluster_interval_secs",
            self.recluster_interval_secs,
            "finite and >= 0",
            |v| v >= 0.0,
        )?;
        Ok(CheckedESplashParams(self))
    }
}

/// [`ESplashParams`] that passed [`ESplashParams::check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckedESplashParams(ESplashParams);

/// Count, mean and sum of squared deviations (Welford), mergeable (Chan et al.).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Moments {
    pub(crate) count: u64,
    pub(crate) mean: f64,
    m2: f64,
}

impl Moments {
    pub(crate) fn push(&mut self, x: f64) {
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    pub(crate) fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let (a, b) = (self.count as f64, other.count as f64);
        let n = a + b;
        let delta = other.mean - self.mean;
        // `delta * b` overflows for means near f64::MAX (a mean of 1e308 merged with two
        // values of 0 gave -inf, not 3.33e307); `b / n <= 1` does not. Kept in that order
        // otherwise, for the same bits as before.
        let shift = delta * b / n;
        self.mean += if shift.is_finite() {
            shift
        } else {
            delta * (b / n)
        };
        self.m2 += other.m2 + delta * delta * a * b / n;
        self.count += other.count;
    }

    /// Population standard deviation, `sqrt(sum (x - mean)^2 / n)`; 0 when empty.
    pub(crate) fn population_sd(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            (self.m2.max(0.0) / self.count as f64).sqrt()
        }
    }
}

/// Algorithm 1: the groups of `points` (`dims` values each, row-major), as a group index
/// per point; groups are numbered in increasing order of their values (group 0 is the
/// fastest). The result is the finest partition into groups that are pairwise strictly
/// ordered in every dimension, which is the fixed point of Algorithm 1's merges (a merge
/// joins two groups that no ordered partition can separate).
///
/// With the points sorted by their first value, such a partition is a set of cuts, and a
/// cut after position `p` is valid iff, in every dimension, the largest value before the
/// cut is below the smallest value after it. Every valid cut is taken.
pub(crate) fn group_points(points: &[f64], dims: usize) -> Vec<u32> {
    let n = points.len().checked_div(dims).unwrap_or(0);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        points[a * dims]
            .total_cmp(&points[b * dims])
            .then(a.cmp(&b))
    });
    // suffix_min[p * dims + d]: smallest value of dimension d at positions p.. of order.
    let mut suffix_min = vec![f64::INFINITY; (n + 1) * dims];
    for p in (0..n).rev() {
        for d in 0..dims {
            suffix_min[p * dims + d] =
                suffix_min[(p + 1) * dims + d].min(points[order[p] * dims + d]);
        }
    }
    let mut prefix_max = vec![f64::NEG_INFINITY; dims];
    let mut groups = vec![0u32; n];
    let mut group = 0u32;
    for p in 0..n {
        groups[order[p]] = group;
        for (d, max) in prefix_max.iter_mut().enumerate() {
            *max = max.max(points[order[p] * dims + d]);
        }
        let cut = p + 1 < n && (0..dims).all(|d| prefix_max[d] < suffix_min[(p + 1) * dims + d]);
        if cut {
            group += 1;
        }
    }
    groups
}

/// Algorithm 3 for a task on a straggler node of `level`: `(ExpT_minL, minL)`, with
/// `hosts[m]` the non-straggler nodes of level `m` (`C(m)`) and `mean(m)` the mean time of
/// the task's type at level `m` (`mu(m, d)`; `None` where the level finished none, which
/// leaves it out). `ExpT_l` is the mean of `mu(m, d)` over the levels `m >= l` weighted by
/// `C(m)`; `minL` the `l >= level` of the least `ExpT_l`, the lowest on a tie.
/// `(NaN, NO_LEVEL)` when no level from `level` up has a host and a mean.
fn min_level(level: usize, hosts: &[u32], mean: impl Fn(usize) -> Option<f64>) -> (f64, u32) {
    let mut best = (f64::INFINITY, NO_LEVEL);
    for l in level..hosts.len() {
        let (mut weighted, mut count) = (0.0, 0u32);
        for (m, &c) in hosts.iter().enumerate().skip(l) {
            if let Some(mu) = mean(m) {
                weighted += f64::from(c) * mu;
                count += c;
            }
        }
        let mut exp_t = weighted / f64::from(count);
        if weighted.is_infinite() {
            // `C(m) mu` overflowed (means near f64::MAX): Algorithm 3's own form,
            // `sum Pr(m) mu(m)` with `Pr(m) = C(m) / sum C <= 1`, does not.
            exp_t = (l..hosts.len())
                .filter_map(|m| Some(f64::from(hosts[m]) / f64::from(count) * mean(m)?))
                .sum();
        }
        if count > 0 && exp_t < best.0 {
            best = (exp_t, l as u32);
        }
    }
    match best.1 {
        NO_LEVEL => (f64::NAN, NO_LEVEL),
        _ => best,
    }
}

/// Algorithm 2: group-based k-means of `points` (`dims` values each) whose groups are
/// `groups` (numbered `0..group_count` in order), with at most `k` clusters. Returns the
/// level of each point (0 the slowest) and the number of levels.
pub(crate) fn group_kmeans(
    points: &[f64],
    dims: usize,
    groups: &[u32],
    k: usize,
    max_iterations: u32,
) -> (Vec<u32>, usize) {
    let n = groups.len();
    let group_count = groups.iter().map(|&g| g as usize + 1).max().unwrap_or(0);
    let k = k.min(group_count);
    if n == 0 || k == 0 {
        return (Vec::new(), 0);
    }
    if dims == 0 {
        // Points without a dimension are all at the same place: one level.
        return (vec![0; n], 1);
    }
    let point = |i: usize| &points[i * dims..(i + 1) * dims];
    // Group means, for the initial centres.
    let mut group_sum = vec![0.0; group_count * dims];
    let mut group_size = vec![0usize; group_count];
    for (i, &g) in groups.iter().enumerate() {
        group_size[g as usize] += 1;
        for (d, v) in point(i).iter().enumerate() {
            group_sum[g as usize * dims + d] += v;
        }
    }
    let mut centres = vec![0.0; k * dims];
    for c in 0..k {
        let g = if k == 1 {
            0
        } else {
            c * (group_count - 1) / (k - 1)
        };
        for d in 0..dims {
            centres[c * dims + d] = group_sum[g * dims + d] / group_size[g].max(1) as f64;
        }
    }
    let mut cluster_of_group = vec![usize::MAX; group_count];
    let mut votes = vec![0u32; group_count * k];
    let mut nearest = Nearest::new(k, dims);
    for _ in 0..max_iterations {
        votes.iter_mut().for_each(|v| *v = 0);
        nearest.set_centres(&centres);
        nearest.vote(points, groups, &mut votes);
        let mut changed = false;
        for g in 0..group_count {
            let row = &votes[g * k..(g + 1) * k];
            let mut preferred = 0;
            for c in 1..k {
                if row[c] > row[preferred] {
                    preferred = c;
                }
            }
            if cluster_of_group[g] != preferred {
                cluster_of_group[g] = preferred;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        let mut sums = vec![0.0; k * dims];
        let mut sizes = vec![0usize; k];
        for (i, &g) in groups.iter().enumerate() {
            let c = cluster_of_group[g as usize];
            sizes[c] += 1;
            for (d, v) in point(i).iter().enumerate() {
                sums[c * dims + d] += v;
            }
        }
        for c in 0..k {
            if sizes[c] > 0 {
                for d in 0..dims {
                    centres[c * dims + d] = sums[c * dims + d] / sizes[c] as f64;
                }
            }
        }
    }
    // Levels: the non-empty clusters by decreasing total time of their centre.
    let mut used = vec![false; k];
    for &c in &cluster_of_group {
        used[c] = true;
    }
    let mut clusters: Vec<usize> = (0..k).filter(|&c| used[c]).collect();
    let total = |c: usize| centres[c * dims..(c + 1) * dims].iter().sum::<f64>();
    clusters.sort_by(|&a, &b| total(b).total_cmp(&total(a)).then(a.cmp(&b)));
    let mut level_of_cluster = vec![0u32; k];
    for (level, &c) in clusters.iter().enumerate() {
        level_of_cluster[c] = level as u32;
    }
    let levels = groups
        .iter()
        .map(|&g| level_of_cluster[cluster_of_group[g as usize]])
        .collect();
    (levels, clusters.len())
}

/// The nearest centre of each point, for [`group_kmeans`]: the squared distance to centre
/// `c` is `sum_d (p_d - centre_{c,d})^2`, added in the order of the dimensions, and the
/// nearest is the first of the least. The centres are kept in blocks of [`BLOCK`],
/// dimension by dimension, so that a point's distances to a block's centres are summed
/// side by side, as vectors: each distance adds the same terms in the same order as one
/// centre at a time would, so the same bits. A block's slots past the last centre hold
/// NaN, whose distances are never the least.
struct Nearest {
    k: usize,
    dims: usize,
    /// `centre_{c,d}` at `((c / BLOCK) * dims + d) * BLOCK + c % BLOCK`.
    blocks: Vec<f64>,
}

/// Centres whose distances to a point are summed together.
const BLOCK: usize = 4;

impl Nearest {
    fn new(k: usize, dims: usize) -> Self {
        Nearest {
            k,
            dims,
            blocks: vec![f64::NAN; k.div_ceil(BLOCK) * dims * BLOCK],
        }
    }

    /// Takes the centres, `dims` values each (centre `c` at `c * dims`).
    fn set_centres(&mut self, centres: &[f64]) {
        for (c, centre) in centres.chunks_exact(self.dims).enumerate() {
            for (d, &v) in centre.iter().enumerate() {
                self.blocks[((c / BLOCK) * self.dims + d) * BLOCK + c % BLOCK] = v;
            }
        }
    }

    /// Adds one vote, to `votes[g * k + c]`, for each point of group `g` whose nearest
    /// centre is `c`.
    fn vote(&self, points: &[f64], groups: &[u32], votes: &mut [u32]) {
        let (k, dims) = (self.k, self.dims);
        for (i, &g) in groups.iter().enumerate() {
            let p = &points[i * dims..(i + 1) * dims];
            let mut best = (f64::INFINITY, 0usize);
            for (b, block) in self.blocks.chunks_exact(dims * BLOCK).enumerate() {
                let mut distances = [0.0; BLOCK];
                for (&v, centres) in p.iter().zip(block.chunks_exact(BLOCK)) {
                    for (distance, &centre) in distances.iter_mut().zip(centres) {
                        let x = v - centre;
                        *distance += x * x;
                    }
                }
                for (j, &distance) in distances.iter().enumerate() {
                    if distance < best.0 {
                        best = (distance, b * BLOCK + j);
                    }
                }
            }
            votes[g as usize * k + best.1] += 1;
        }
    }
}

/// Merges into `stats` (by level then column, `columns` columns) the moments of column
/// `c` of each of `nodes` (in increasing order) that has a level: a cell's merges in node
/// order.
fn merge_column(
    c: usize,
    columns: usize,
    nodes: &[u32],
    history: &[Vec<Moments>],
    node_level: &[u32],
    stats: &mut [Moments],
) {
    for &n in nodes {
        let level = node_level.get(n as usize).copied().unwrap_or(NO_LEVEL);
        if let Some(moments) = history[n as usize].get(c).filter(|_| level != NO_LEVEL) {
            stats[level as usize * columns + c].merge(moments);
        }
    }
}

/// A node without a level.
const NO_LEVEL: u32 = u32::MAX;

/// A row without a level or a rate.
const NO_CELL: u32 = u32::MAX;

/// A cell of the statistics table for one scan: a level and a task type.
#[derive(Debug, Clone, Copy)]
struct CellStats {
    /// `PR(i, d)`: the mean rate of the cell's running tasks (0 without one).
    mean_rate: f64,
    /// `mu(i, d)` for the z-term (infinite without one: two finished tasks, `sigma > 0`).
    mu: f64,
    /// `1 / sigma(i, d)` (0 without a z-term).
    inv_sigma: f64,
    /// The usual time of the cell: `mu(i, d)` from one finished task on (infinite before),
    /// past which a task at zero progress is stalled.
    usual: f64,
}

/// The history is indexed by node and column (a stage's); observations beyond these bounds
/// are skipped and counted ([`ESplash::skipped_observations`]) rather than grown into.
/// Attempts are keyed in an [`IdTable`], which holds the attempts reported and not yet
/// ended only.
const MAX_NODES: usize = 1 << 20;
const MAX_STAGES: usize = 1 << 16;

/// Finished stages whose columns the performance vectors keep (see the module docs).
const RETIRED_COLUMNS: usize = 16;

/// A stage index without a column.
const NO_COLUMN: u32 = u32::MAX;

/// How many of the first `node_count` nodes each of `level_count` levels has in
/// `node_level`, from `cache` if it counted them for that many nodes and levels: counted
/// once per classification (which clears `cache`) and node count, so that a scan need not
/// read every node's level.
fn level_nodes<'a>(
    cache: &'a mut Option<(usize, Vec<u32>)>,
    node_level: &[u32],
    level_count: usize,
    node_count: usize,
) -> &'a [u32] {
    let counted = cache
        .as_ref()
        .is_some_and(|(count, per_level)| *count == node_count && per_level.len() == level_count);
    if !counted {
        let mut per_level = vec![0; level_count];
        for &level in node_level.iter().take(node_count) {
            if level != NO_LEVEL {
                per_level[level as usize] += 1;
            }
        }
        *cache = Some((node_count, per_level));
    }
    cache.as_ref().map_or(&[], |(_, per_level)| per_level)
}

/// eSplash (seed 001): levels of nodes by group-based k-means over their performance
/// vectors, a straggler value per node against its level's statistics, and the tasks on
/// straggler nodes that a copy on a node of level `minL` or above would speed up. The
/// module docs of `src/esplash.rs` give the formulas and the decisions taken where the
/// paper is unclear.
#[derive(Debug, Clone, Default)]
pub struct ESplash {
    params: ESplashParams,
    /// Execution times of the successes, by node then column.
    history: Vec<Vec<Moments>>,
    /// The nodes with a success in each column, in increasing order: exactly those whose
    /// cell of `history` there is not empty. Classifying reads them, not every node's
    /// row (most cells are empty: a stage runs on a few of many nodes).
    column_nodes: Vec<Vec<u32>>,
    /// The column of each stage index ([`NO_COLUMN`] for none yet).
    columns: Vec<u32>,
    /// Columns of finished stages, oldest first; at most [`RETIRED_COLUMNS`].
    retired: std::collections::VecDeque<u32>,
    /// Columns emptied, to be given to stages again.
    free_columns: Vec<u32>,
    /// Columns given out so far.
    column_count: u32,
    /// The rank of each column's stage's first success among the stages' first successes
    /// (by column), and the next rank to give.
    column_rank: Vec<u64>,
    next_rank: u64,
    /// Columns whose level statistics are out of date (a success arrived, or the column
    /// was emptied), each listed once and flagged in `stale`; every column is after a
    /// classification that moved a node to another level or changed the number of levels
    /// (`all_stale`).
    stale_columns: Vec<u32>,
    stale: Vec<bool>,
    all_stale: bool,
    /// A success arrived since nodes were last classified.
    unclassified: bool,
    /// When nodes may be classified again; `None` before the first classification.
    next_classification_secs: Option<f64>,
    /// Level of each node, [`NO_LEVEL`] for none.
    node_level: Vec<u32>,
    level_count: usize,
    /// `mu` and `sigma` by level then column (`history_columns` columns).
    level_stats: Vec<Moments>,
    history_columns: usize,
    // Per-scan buffers, kept between scans.
    rate_sums: Vec<(f64, u32)>,
    node_sv: Vec<(f64, u32)>,
    straggler: Vec<bool>,
    hosts: Vec<u32>,
    /// The straggler nodes of the last scan, in node order.
    slow_nodes: Vec<u32>,
    /// With far more nodes than rows, the numbers of the nodes the rows name (see `scan`).
    renumbering: Renumbering,
    /// The nodes of each level among the first `.0` nodes, as the last classification
    /// left the levels (`None` since a classification: counted again at the next scan).
    level_nodes: Option<(usize, Vec<u32>)>,
    exp_bar: Vec<(f64, u32)>,
    /// `(time, progress)` of the last progress report of each running attempt, by id.
    reports: IdTable<(f64, f64)>,
    /// Observations with an index too large for the tables.
    skipped_observations: u64,
    /// `(PR, mu, 1 / sigma, usual)` by level then snapshot stage (see [`CellStats`]).
    cell_stats: Vec<CellStats>,
    /// Per row: its level-and-stage cell ([`NO_CELL`] without a level, or without a rate
    /// and a progress of zero), EstT (infinite at zero progress) and elapsed time.
    row_cell: Vec<u32>,
    row_est: Vec<f64>,
    row_elapsed: Vec<f64>,
    min_levels: Vec<(u32, u32)>,
}

impl ESplash {
    /// A detector with checked parameters.
    pub fn new(params: CheckedESplashParams) -> Self {
        ESplash {
            params: params.0,
            ..ESplash::default()
        }
    }

    /// The parameters.
    pub fn params(&self) -> &ESplashParams {
        &self.params
    }

    /// The level of `node` at the last scan (0 the slowest), `None` if it has none.
    pub fn level(&self, node: NodeId) -> Option<u32> {
        self.node_level
            .get(node.index())
            .copied()
            .filter(|&l| l != NO_LEVEL)
    }

    /// Observations skipped because a node or stage index was beyond the tables' bounds
    /// (2^20 nodes, 2^16 stages).
    pub fn skipped_observations(&self) -> u64 {
        self.skipped_observations
    }

    /// The number of levels at the last scan.
    pub fn level_count(&self) -> usize {
        self.level_count
    }

    /// `(row, minL)` for every row flagged by the last scan: the lowest level a node must
    /// have to host its copy (Algorithm 3). For a placement policy that knows the levels;
    /// the workspace's simulator does not use it.
    pub fn min_levels(&self) -> &[(u32, u32)] {
        &self.min_levels
    }

    /// Algorithms 1-2: the level of every node with history.
    fn classify(&mut self) {
        self.level_nodes = None;
        self.node_level.clear();
        self.node_level.resize(self.history.len(), NO_LEVEL);
        self.level_count = 0;
        let Some((anchor, dims)) = self.anchor_and_dimensions() else {
            return;
        };
        let members = &self.column_nodes[anchor];
        let mut points = Vec::with_capacity(members.len() * dims.len());
        for &n in members {
            points.extend(dims.iter().map(|&s| self.history[n as usize][s].mean));
        }
        let groups = group_points(&points, dims.len());
        let (levels, level_count) = group_kmeans(
            &points,
            dims.len(),
            &groups,
            self.params.levels as usize,
            self.params.max_kmeans_iterations,
        );
        for (&n, &level) in members.iter().zip(&levels) {
            self.node_level[n as usize] = level;
        }
        self.level_count = level_count;
    }

    /// The column (a stage's) of successes on the most nodes (on a tie, the one whose
    /// stage's first success came first), whose nodes are those classified, and the
    /// columns of their performance vectors: every column in which each of them has a
    /// success, in the order of their stages' first successes; `None` without a success.
    fn anchor_and_dimensions(&self) -> Option<(usize, Vec<usize>)> {
        let rank = |c: usize| self.column_rank.get(c).copied().unwrap_or(u64::MAX);
        let mut anchor: Option<usize> = None;
        for (c, nodes) in self.column_nodes.iter().enumerate() {
            if nodes.is_empty() {
                continue;
            }
            let better = anchor.is_none_or(|a| {
                let most = self.column_nodes[a].len();
                nodes.len() > most || (nodes.len() == most && rank(c) < rank(a))
            });
            if better {
                anchor = Some(c);
            }
        }
        let anchor = anchor?;
        let members = &self.column_nodes[anchor];
        // No column has more nodes than the anchor's: those with every member are those
        // whose nodes are the members.
        let mut dims: Vec<usize> = (0..self.column_nodes.len())
            .filter(|&c| self.column_nodes[c] == *members)
            .collect();
        dims.sort_by_key(|&c| rank(c));
        Some((anchor, dims))
    }

    /// Marks `column`'s level statistics out of date.
    fn mark_stale(&mut self, column: usize) {
        if self.stale.len() <= column {
            self.stale.resize(column + 1, false);
        }
        if !self.stale[column] {
            self.stale[column] = true;
            self.stale_columns.push(column as u32);
        }
    }

    /// The statistics table's `mu` and `sigma` from every success of the nodes with a
    /// level: each cell the merge of its nodes' moments in node order. Only the stale
    /// columns are merged again, unless the table's shape changed or a classification
    /// changed a node's level or the number of levels since; a cell's merges, in the same
    /// order, give the same bits either way.
    fn update_level_stats(&mut self) {
        let columns = self.history.iter().map(Vec::len).max().unwrap_or(0);
        let cells = self.level_count * columns;
        let every_column = self.all_stale || columns != self.history_columns;
        self.history_columns = columns;
        if every_column {
            self.level_stats.clear();
            self.level_stats.resize(cells, Moments::default());
        }
        let (history, node_level, stats) =
            (&self.history, &self.node_level, &mut self.level_stats[..]);
        let nodes_of = |c: usize| self.column_nodes.get(c).map_or(&[][..], Vec::as_slice);
        if every_column {
            for c in 0..columns {
                merge_column(c, columns, nodes_of(c), history, node_level, stats);
            }
        } else {
            for c in self.stale_columns.iter().map(|&c| c as usize) {
                debug_assert!(c < columns, "a stale column is one some node has");
                for level in 0..self.level_count {
                    stats[level * columns + c] = Moments::default();
                }
                merge_column(c, columns, nodes_of(c), history, node_level, stats);
            }
        }
        for &c in &self.stale_columns {
            self.stale[c as usize] = false;
        }
        self.stale_columns.clear();
        self.all_stale = false;
    }

    /// The statistics of the successes of `stage` (a snapshot's index) on the nodes of
    /// `level`, if it has any.
    fn level_stat(&self, level: usize, stage: usize) -> Option<&Moments> {
        let column = *self.columns.get(stage)? as usize;
        if column >= self.history_columns {
            return None;
        }
        self.level_stats
            .get(level * self.history_columns + column)
            .filter(|m| m.count > 0)
    }

    /// The column of `stage`, given one if it has none (an emptied one first), with the
    /// next rank of a first success.
    fn column_of(&mut self, stage: usize) -> usize {
        if self.columns.len() <= stage {
            self.columns.resize(stage + 1, NO_COLUMN);
        }
        if self.columns[stage] == NO_COLUMN {
            let column = self.free_columns.pop().unwrap_or_else(|| {
                self.column_count += 1;
                self.column_count - 1
            });
            self.columns[stage] = column;
            let column = column as usize;
            if self.column_rank.len() <= column {
                self.column_rank.resize(column + 1, u64::MAX);
            }
            self.column_rank[column] = self.next_rank;
            self.next_rank += 1;
        }
        self.columns[stage] as usize
    }

    /// `stage` finished: its column is kept as a finished stage's, the oldest such column
    /// beyond [`RETIRED_COLUMNS`] is emptied, and the index will get a new column.
    fn retire(&mut self, stage: usize) {
        let Some(column) = self.columns.get_mut(stage) else {
            return;
        };
        if *column == NO_COLUMN {
            return;
        }
        self.retired.push_back(std::mem::replace(column, NO_COLUMN));
        if self.retired.len() > RETIRED_COLUMNS
            && let Some(oldest) = self.retired.pop_front()
        {
            if let Some(nodes) = self.column_nodes.get_mut(oldest as usize) {
                for &n in nodes.iter() {
                    self.history[n as usize][oldest as usize] = Moments::default();
                }
                nodes.clear();
            }
            self.free_columns.push(oldest);
            self.mark_stale(oldest as usize);
            self.unclassified = true;
        }
    }
}

impl Detector for ESplash {
    fn name(&self) -> &str {
        "esplash"
    }

    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let now = snapshot.now_secs();
        if self.unclassified && self.next_classification_secs.is_none_or(|next| now >= next) {
            let (previous_levels, level_count) = (self.node_level.clone(), self.level_count);
            self.classify();
            self.unclassified = false;
            // The statistics of every column follow a node that changed level; if none
            // did, only those of the columns that learnt a success or were emptied since.
            if self.node_level != previous_levels || self.level_count != level_count {
                self.all_stale = true;
            }
            self.next_classification_secs = Some(now + self.params.recluster_interval_secs);
        }
        if self.all_stale || !self.stale_columns.is_empty() {
            self.update_level_stats();
        }
        self.min_levels.clear();
        let levels = self.level_count;
        if levels == 0 || snapshot.is_empty() {
            return;
        }
        let stage_count = snapshot.stages().len();
        let (progress, start) = (snapshot.progress(), snapshot.start_secs());
        let (stages, nodes, roles) = (
            snapshot.stage_indices(),
            snapshot.node_indices(),
            snapshot.roles(),
        );
        let node_level = &self.node_level;
        let level_of = |row: usize| {
            node_level
                .get(nodes[row] as usize)
                .copied()
                .filter(|&l| l != NO_LEVEL)
        };
        // Elapsed time at the row's progress: up to its last report when the detector saw
        // the report of that progress, up to now otherwise.
        let (attempts, reports) = (snapshot.attempts(), &self.reports);
        let elapsed_of = |row: usize| match reports.get(attempts[row].0) {
            Some(&(time, reported))
                if reported == progress[row] && time >= start[row] && time <= now =>
            {
                time - start[row]
            }
            _ => now - start[row],
        };
        // Pass 1: per row, its cell (level and stage) and EstT when it has a rate; per
        // cell, PR(i, d), the mean rate of its running tasks.
        self.rate_sums.clear();
        self.rate_sums.resize(levels * stage_count, (0.0, 0));
        self.row_cell.clear();
        self.row_est.clear();
        self.row_elapsed.clear();
        for (row, &stage) in stages.iter().enumerate() {
            let elapsed = elapsed_of(row);
            let (rate, est) = (progress[row] / elapsed, elapsed / progress[row]);
            let cell = match level_of(row) {
                Some(level)
                    if elapsed > 0.0 && rate > 0.0 && rate.is_finite() && est.is_finite() =>
                {
                    let cell = level as usize * stage_count + stage as usize;
                    let sums = &mut self.rate_sums[cell];
                    sums.0 += rate;
                    sums.1 += 1;
                    cell as u32
                }
                // Zero progress, or a progress so small that EstT overflows: no rate for
                // PR(i, d), an infinite EstT.
                Some(level)
                    if (progress[row] == 0.0 || (progress[row] > 0.0 && est == f64::INFINITY))
                        && elapsed > 0.0
                        && elapsed.is_finite() =>
                {
                    (level as usize * stage_count + stage as usize) as u32
                }
                _ => NO_CELL,
            };
            self.row_cell.push(cell);
            self.row_est.push(est);
            self.row_elapsed.push(elapsed);
        }
        // Per cell: PR(i, d), the z-term's mu and 1 / sigma (two finished tasks and
        // sigma > 0, else 1 / sigma = 0 and no z-term), and the usual time.
        self.cell_stats.clear();
        for level in 0..levels {
            for stage in 0..stage_count {
                let (sum, count) = self.rate_sums[level * stage_count + stage];
                let mean_rate = if count > 0 {
                    sum / f64::from(count)
                } else {
                    0.0
                };
                let stat = self.level_stat(level, stage);
                let (mu, inv_sigma) = stat
                    .filter(|stat| stat.count >= 2 && stat.population_sd() > 0.0)
                    .map_or((f64::INFINITY, 0.0), |stat| {
                        (stat.mean, 1.0 / stat.population_sd())
                    });
                self.cell_stats.push(CellStats {
                    mean_rate,
                    mu,
                    inv_sigma,
                    usual: stat.map_or(f64::INFINITY, |stat| stat.mean),
                });
            }
        }
        // Pass 2: the straggler value of each node. PR(i, d) / PR_j = PR(i, d) * EstT_j; at
        // zero progress, +infinity past the usual time and nothing before. By node, or,
        // with far more nodes than rows, by the numbers of the nodes the rows name
        // (`Renumbering`): a node no row names has no term, so a value of 0, never above
        // the threshold (at least 0), and counts among its level's hosts without being read.
        let node_count = snapshot.node_count() as usize;
        let group_count = self.renumbering.number_if_it_pays(nodes, node_count);
        let groups = self.renumbering.sum_groups(nodes);
        self.node_sv.clear();
        self.node_sv.resize(group_count, (0.0, 0));
        let rows = self
            .row_cell
            .iter()
            .zip(&self.row_est)
            .zip(&self.row_elapsed);
        for (((&cell, &est), &elapsed), &node) in rows.zip(groups) {
            if cell == NO_CELL {
                continue;
            }
            let stats = self.cell_stats[cell as usize];
            if est == f64::INFINITY {
                if elapsed > stats.usual {
                    let sv = &mut self.node_sv[node as usize];
                    sv.0 = f64::INFINITY;
                    sv.1 += 1;
                }
                continue;
            }
            // Never NaN: `mean_rate` and `inv_sigma` are at least 0 (at most +inf), `est` is
            // finite and above 0, and the z-term applies only where `mu` is finite and below
            // `est`. A term that overflows is +inf and makes the node's SV infinite.
            let mut term = stats.mean_rate * est;
            if est > stats.mu {
                term += (est - stats.mu) * stats.inv_sigma;
            }
            debug_assert!(!term.is_nan(), "a straggler-value term is never NaN");
            let sv = &mut self.node_sv[node as usize];
            sv.0 += term;
            sv.1 += 1;
        }
        // The straggler nodes (or numbers), and the hosts of each level: its nodes, less
        // its straggler nodes.
        self.straggler.clear();
        self.straggler.resize(group_count, false);
        self.slow_nodes.clear();
        for group in 0..group_count {
            let (sum, count) = self.node_sv[group];
            let sv = if count > 0 {
                sum / f64::from(count)
            } else {
                0.0
            };
            if sv > self.params.straggler_threshold {
                self.straggler[group] = true;
                self.slow_nodes.push(group as u32);
            }
        }
        // In node order, by node or by number.
        self.renumbering.found_groups(nodes, &mut self.slow_nodes);
        self.hosts.clear();
        self.hosts.extend_from_slice(level_nodes(
            &mut self.level_nodes,
            &self.node_level,
            self.level_count,
            node_count,
        ));
        for &node in &self.slow_nodes {
            findings.push_slow_node(NodeId(node));
            if let Some(&level) = self
                .node_level
                .get(node as usize)
                .filter(|&&l| l != NO_LEVEL)
            {
                self.hosts[level as usize] -= 1;
            }
        }
        if self.slow_nodes.is_empty() {
            return;
        }
        // Algorithm 3, per level i and stage d: ExpT of minL, and minL.
        let mut exp_bar = std::mem::take(&mut self.exp_bar);
        exp_bar.clear();
        exp_bar.resize(levels * stage_count, (f64::NAN, NO_LEVEL));
        for stage in 0..stage_count {
            let mean = |m: usize| self.level_stat(m, stage).map(|stat| stat.mean);
            for level in 0..levels {
                exp_bar[level * stage_count + stage] = min_level(level, &self.hosts, mean);
            }
        }
        self.exp_bar = exp_bar;
        // Pass 3: flag the originals on straggler nodes with a positive value.
        let rows = findings.rows_mut();
        for row in 0..snapshot.len() {
            if roles[row] != AttemptRole::Original || !self.straggler[groups[row] as usize] {
                continue;
            }
            let Some(level) = level_of(row) else { continue };
            let (bar, min_level) =
                self.exp_bar[level as usize * stage_count + stages[row] as usize];
            if min_level == NO_LEVEL {
                continue;
            }
            // EstEnd - T_now, with EstEnd = start + EstT; unbounded at zero progress.
            let left = if self.row_cell[row] != NO_CELL {
                start[row] + self.row_est[row] - now
            } else if progress[row] == 0.0 && now - start[row] > 0.0 {
                f64::INFINITY
            } else {
                continue;
            };
            if left > bar {
                rows.push(row as u32);
                self.min_levels.push((row as u32, min_level));
            }
        }
    }

    fn observe(&mut self, observation: &Observation) {
        let end = match observation {
            Observation::AttemptEnded(end) => end,
            Observation::Progress(report) => {
                self.reports
                    .insert(report.attempt.0, (report.time_secs, report.progress));
                return;
            }
            Observation::StageFinished { stage, .. } => {
                self.retire(stage.index());
                return;
            }
            _ => return,
        };
        // An ended attempt is in no later snapshot: forget its report.
        self.reports.remove(end.attempt.0);
        let duration = end.end_secs - end.start_secs;
        if end.status != AttemptStatus::Succeeded || !(duration >= 0.0 && duration.is_finite()) {
            return;
        }
        let (node, stage) = (end.node.index(), end.stage.index());
        if node >= MAX_NODES || stage >= MAX_STAGES {
            self.skipped_observations += 1;
            return;
        }
        let column = self.column_of(stage);
        if self.history.len() <= node {
            self.history.resize(node + 1, Vec::new());
        }
        let per_column = &mut self.history[node];
        if per_column.len() <= column {
            per_column.resize(column + 1, Moments::default());
        }
        let cell = &mut per_column[column];
        cell.push(duration);
        if cell.count == 1 {
            if self.column_nodes.len() <= column {
                self.column_nodes.resize(column + 1, Vec::new());
            }
            let nodes = &mut self.column_nodes[column];
            let at = nodes.partition_point(|&n| (n as usize) < node);
            nodes.insert(at, node as u32);
        }
        self.mark_stale(column);
        self.unclassified = true;
    }

    fn reset(&mut self) {
        *self = ESplash {
            params: self.params,
            ..ESplash::default()
        };
    }

    /// [`SlowNodeRule::NoCopies`]: straggler nodes host no copy (Section IV-D).
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::NoCopies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::SplitMix64;

    #[test]
    fn min_level_by_containers_differs_only_where_times_rise_with_the_level() {
        // Two nodes per level, levels 0 (slowest) to 3, with 32, 16, 8 and 4 containers
        // each (the `esplash` preset's): C(m) by nodes [2, 2, 2, 2], by containers
        // [64, 32, 16, 8]. A task on level 0.
        let (nodes, containers) = ([2, 2, 2, 2], [64, 32, 16, 8]);
        // Times falling with the level, 40, 20, 10, 5 s: every ExpT_l but ExpT_3 = 5
        // averages in a slower level, under either weighting: minL 3, bar 5.
        let falling = |m: usize| Some([40.0, 20.0, 10.0, 5.0][m]);
        assert_eq!(min_level(0, &nodes, falling), (5.0, 3));
        assert_eq!(min_level(0, &containers, falling), (5.0, 3));
        // 1, 20, 10, 8 s (the slowest level overall the fastest at this type). By nodes:
        // ExpT_0 = 39 / 4 = 9.75, ExpT_1 = 38 / 3 = 12.67, ExpT_2 = 18 / 2 = 9,
        // ExpT_3 = 8: minL 3, bar 8. By containers: ExpT_0 = (64 + 640 + 160 + 64) / 120
        // = 928 / 120 = 7.733, ExpT_1 = 864 / 56 = 15.43, ExpT_2 = 224 / 24 = 9.33,
        // ExpT_3 = 8: minL 0, bar 7.733.
        let mixed = |m: usize| Some([1.0, 20.0, 10.0, 8.0][m]);
        assert_eq!(min_level(0, &nodes, mixed), (8.0, 3));
        let (bar, level) = min_level(0, &containers, mixed);
        assert_eq!(level, 0);
        assert!((bar - 928.0 / 120.0).abs() < 1e-12, "{bar}");
    }

    /// Algorithm 1 as the module docs read it, pair by pair: merge any two groups that
    /// cross (line 8) or overlap (line 10, closed intervals), that is, that are not
    /// strictly ordered in every dimension, until none is left. Returns groups as sorted
    /// lists of points, sorted.
    fn naive_groups(points: &[f64], dims: usize) -> Vec<Vec<usize>> {
        let n = points.len() / dims;
        let mut groups: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
        let range = |g: &Vec<usize>, d: usize| {
            let values = g.iter().map(|&i| points[i * dims + d]);
            (
                values.clone().fold(f64::INFINITY, f64::min),
                values.fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let below =
            |a: &Vec<usize>, b: &Vec<usize>| (0..dims).all(|d| range(a, d).1 < range(b, d).0);
        'merge: loop {
            for i in 0..groups.len() {
                for j in i + 1..groups.len() {
                    if !below(&groups[i], &groups[j]) && !below(&groups[j], &groups[i]) {
                        let moved = groups.remove(j);
                        groups[i].extend(moved);
                        groups[i].sort_unstable();
                        continue 'merge;
                    }
                }
            }
            break;
        }
        groups.sort();
        groups
    }

    fn as_sets(groups: &[u32]) -> Vec<Vec<usize>> {
        let count = groups.iter().map(|&g| g as usize + 1).max().unwrap_or(0);
        let mut sets = vec![Vec::new(); count];
        for (i, &g) in groups.iter().enumerate() {
            sets[g as usize].push(i);
        }
        sets.sort();
        sets
    }

    #[test]
    fn nearest_centres_are_those_found_one_centre_at_a_time() {
        // Centres in blocks of four, dimension by dimension, against the distances summed
        // one centre at a time: the same votes, ties (repeated centres) to the first.
        let mut rng = SplitMix64(11);
        for case in 0..300 {
            let dims = 1 + case % 3;
            let k = 1 + (case / 3) % 7;
            let n = 1 + rng.below(20) as usize;
            let value = |rng: &mut SplitMix64| f64::from(rng.below(9)) * 0.5;
            let points: Vec<f64> = (0..n * dims).map(|_| value(&mut rng)).collect();
            let mut centres: Vec<f64> = (0..k * dims).map(|_| value(&mut rng)).collect();
            // Centre 0 again as centre 2 and, past a block, as centre 4: ties go to the first.
            for copy in [2, 4].into_iter().filter(|&c| c < k) {
                let (first, rest) = centres.split_at_mut(dims);
                rest[(copy - 1) * dims..copy * dims].copy_from_slice(first);
            }
            let groups: Vec<u32> = (0..n).map(|i| (i / 2) as u32).collect();
            let group_count = n.div_ceil(2);
            let mut expected = vec![0u32; group_count * k];
            for (i, &g) in groups.iter().enumerate() {
                let p = &points[i * dims..(i + 1) * dims];
                let mut best = (f64::INFINITY, 0);
                for c in 0..k {
                    let distance: f64 = p
                        .iter()
                        .zip(&centres[c * dims..(c + 1) * dims])
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum();
                    if distance < best.0 {
                        best = (distance, c);
                    }
                }
                expected[g as usize * k + best.1] += 1;
            }
            let mut nearest = Nearest::new(k, dims);
            nearest.set_centres(&centres);
            let mut votes = vec![0u32; group_count * k];
            nearest.vote(&points, &groups, &mut votes);
            assert_eq!(votes, expected, "case {case}: k {k}, dims {dims}");
        }
    }

    #[test]
    fn level_statistics_kept_by_column_are_a_merge_of_every_node_in_order() {
        // Successes on eight nodes across four stage indices, each index finished and
        // reused every round (past the sixteen kept columns, so that columns are emptied
        // and given out again), then rounds without a finished stage (the columns stay and
        // only the stale ones are merged again). After every success, each column's nodes
        // are those with a success there; after every scan, the classification's anchor
        // and dimensions are those of their definitions read off every node, and the
        // statistics have the bits of every node's columns merged in node order.
        // Classified at every scan, or once only.
        let snapshot = crate::conformance::straggling_stage(40, 8, 3).expect("valid");
        for interval in [0.0, 1e9] {
            let mut detector = ESplash::new(
                ESplashParams {
                    recluster_interval_secs: interval,
                    ..ESplashParams::default()
                }
                .check()
                .expect("valid"),
            );
            let mut rng = SplitMix64(5);
            let mut id = 0;
            let mut same_columns = 0;
            for round in 0..40u32 {
                for _ in 0..12 {
                    id += 1;
                    let (stage, node) = (rng.below(4), rng.below(8));
                    let duration = 10.0 + f64::from(rng.below(50)) * (1.0 + f64::from(node % 3));
                    detector.observe(&success(id, stage, node, duration));
                    assert_columns_list_their_nodes(&detector);
                }
                if round < 30 {
                    detector.observe(&Observation::StageFinished {
                        stage: straggler_model::StageId(round % 4),
                        time_secs: 0.0,
                    });
                    assert_columns_list_their_nodes(&detector);
                }
                let columns_before = detector.history_columns;
                detector.scan(&snapshot, &mut Findings::default());
                let columns = detector.history.iter().map(Vec::len).max().unwrap_or(0);
                same_columns += usize::from(columns == columns_before);
                assert_eq!(
                    detector.anchor_and_dimensions(),
                    anchor_and_dimensions_of_every_node(&detector.history, &detector.column_rank),
                    "round {round}"
                );
                // Every node's columns merged in node order, as written.
                let mut expected = vec![Moments::default(); detector.level_count * columns];
                for (n, history) in detector.history.iter().enumerate() {
                    let level = detector.node_level.get(n).copied().unwrap_or(NO_LEVEL);
                    if level == NO_LEVEL {
                        continue;
                    }
                    for (c, moments) in history.iter().enumerate() {
                        expected[level as usize * columns + c].merge(moments);
                    }
                }
                let bits = |stats: &[Moments]| {
                    stats
                        .iter()
                        .map(|m| (m.count, m.mean.to_bits(), m.m2.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert!(detector.level_count > 0, "round {round}");
                assert_eq!(
                    bits(&detector.level_stats),
                    bits(&expected),
                    "round {round}"
                );
            }
            // Scans that merged stale columns only (classified once, the columns as many).
            assert!(
                same_columns >= 10,
                "{same_columns} scans with as many columns"
            );
        }
    }

    /// The success of attempt (and task) `id` of `stage` on `node`, lasting `duration_secs`.
    fn success(id: u32, stage: u32, node: u32, duration_secs: f64) -> Observation {
        Observation::AttemptEnded(straggler_model::AttemptEnd {
            attempt: straggler_model::AttemptId(id),
            task: straggler_model::TaskId(id),
            stage: straggler_model::StageId(stage),
            node: NodeId(node),
            role: AttemptRole::Original,
            start_secs: 0.0,
            end_secs: duration_secs,
            status: AttemptStatus::Succeeded,
            input_bytes: 1,
        })
    }

    /// Checks that each column lists, in increasing order, the nodes with a success there.
    fn assert_columns_list_their_nodes(detector: &ESplash) {
        let columns = detector.history.iter().map(Vec::len).max().unwrap_or(0);
        assert_eq!(detector.column_nodes.len(), columns);
        for (c, nodes) in detector.column_nodes.iter().enumerate() {
            let with_success: Vec<u32> = (0..detector.history.len() as u32)
                .filter(|&n| {
                    detector.history[n as usize]
                        .get(c)
                        .is_some_and(|m| m.count > 0)
                })
                .collect();
            assert_eq!(*nodes, with_success, "column {c}");
        }
    }

    /// The classification's anchor and dimensions as the module docs define them, read off
    /// every node's history and the rank of each column's first success: the column of the
    /// most nodes, the earliest first success on a tie; the columns every one of its nodes
    /// has, by first success.
    fn anchor_and_dimensions_of_every_node(
        history: &[Vec<Moments>],
        rank: &[u64],
    ) -> Option<(usize, Vec<usize>)> {
        let columns = history.iter().map(Vec::len).max().unwrap_or(0);
        let has = |node: &Vec<Moments>, s: usize| node.get(s).is_some_and(|m| m.count > 0);
        let count = |s: usize| history.iter().filter(|h| has(h, s)).count();
        let anchor = (0..columns)
            .filter(|&s| count(s) > 0)
            .min_by_key(|&s| (std::cmp::Reverse(count(s)), rank[s]))?;
        let members: Vec<&Vec<Moments>> = history.iter().filter(|h| has(h, anchor)).collect();
        let mut dims: Vec<usize> = (0..columns)
            .filter(|&s| members.iter().all(|h| has(h, s)))
            .collect();
        dims.sort_by_key(|&s| rank[s]);
        Some((anchor, dims))
    }

    #[test]
    fn the_anchor_is_the_lowest_column_of_the_most_nodes() {
        // Columns 0 to 2 (stages 0 to 2, in the order of their first success) on nodes
        // {0, 1, 2}, {1, 2, 3} and {0, 1, 2}: three nodes each, so column 0 is the anchor,
        // and columns 0 and 2 are the dimensions (node 3 has no success in column 0).
        let mut detector = ESplash::default();
        let mut id = 0;
        for (stage, nodes) in [(0, [0, 1, 2]), (1, [1, 2, 3]), (2, [2, 1, 0])] {
            for node in nodes {
                id += 1;
                detector.observe(&success(id, stage, node, 10.0 + f64::from(node)));
            }
        }
        assert_eq!(detector.anchor_and_dimensions(), Some((0, vec![0, 2])));
        assert_eq!(
            anchor_and_dimensions_of_every_node(&detector.history, &detector.column_rank),
            Some((0, vec![0, 2]))
        );
        assert_eq!(ESplash::default().anchor_and_dimensions(), None);
    }

    #[test]
    fn grouping_by_hand() {
        // Five nodes, two task types (map, reduce seconds):
        //   0: (10, 5)  1: (12, 4)  2: (20, 9)  3: (21, 10)  4: (40, 30)
        // 0 and 1 cross (0 faster on maps, 1 on reduces): merged into [10,12]x[4,5].
        // 2 and 3: 2 faster in both, strictly ordered; groups {0,1}, {2}, {3}, {4}.
        let points = [10.0, 5.0, 12.0, 4.0, 20.0, 9.0, 21.0, 10.0, 40.0, 30.0];
        assert_eq!(group_points(&points, 2), vec![0, 0, 1, 2, 3]);
        // Node 5 at (20.5, 11) crosses 3 = (21, 10) (faster on maps, slower on reduces):
        // {3, 5} merge into [20.5, 21] x [10, 11], still above 2 = (20, 9) in both.
        let points = [
            10.0, 5.0, 12.0, 4.0, 20.0, 9.0, 21.0, 10.0, 40.0, 30.0, 20.5, 11.0,
        ];
        assert_eq!(group_points(&points, 2), vec![0, 0, 1, 2, 3, 2]);
        // A node that crosses 2 and 3's merged range forces a cascade: (20.8, 8) is
        // faster than 2 on reduces and slower on maps, so 2, 6 merge into
        // [20, 20.8] x [8, 9]; that overlaps {3, 5} on maps ([20.5, 21]), so they merge.
        let mut cascade = points.to_vec();
        cascade.extend([20.8, 8.0]);
        assert_eq!(group_points(&cascade, 2), vec![0, 0, 1, 1, 2, 1, 1]);
        // One dimension: points are never merged unless equal.
        assert_eq!(group_points(&[3.0, 1.0, 3.0, 2.0], 1), vec![2, 0, 2, 1]);
        assert_eq!(group_points(&[], 2), Vec::<u32>::new());
    }

    #[test]
    fn grouping_matches_algorithm_1_pair_by_pair() {
        let mut rng = SplitMix64(7);
        for case in 0..200 {
            let dims = 1 + case % 3;
            let n = 1 + rng.below(12) as usize;
            let points: Vec<f64> = (0..n * dims)
                .map(|i| (i / dims) as f64 * 3.0 + f64::from(rng.below(8)))
                .collect();
            assert_eq!(
                as_sets(&group_points(&points, dims)),
                naive_groups(&points, dims),
                "points {points:?} in {dims} dimensions"
            );
        }
    }

    #[test]
    fn min_level_weighs_each_level_by_its_hosts() {
        // Levels 0 (slowest) to 2: mu 21, 9 and 12 s, hosts C = 2, 1 and 3. From level 1:
        // ExpT_1 = (1 x 9 + 3 x 12) / 4 = 11.25 (unweighted, (9 + 12) / 2 = 10.5),
        // ExpT_2 = 12: minL = 1. From level 0: ExpT_0 = (42 + 9 + 36) / 6 = 14.5, so
        // minL = 1 again.
        let mu = [21.0, 9.0, 12.0];
        let mean = |m: usize| Some(mu[m]);
        assert_eq!(min_level(1, &[2, 1, 3], mean), (11.25, 1));
        assert_eq!(min_level(0, &[2, 1, 3], mean), (11.25, 1));
        assert_eq!(min_level(2, &[2, 1, 3], mean), (12.0, 2));
        // A tie goes to the lowest level: mu 10 and 10, ExpT_0 = ExpT_1 = 10.
        assert_eq!(min_level(0, &[1, 1], |_| Some(10.0)), (10.0, 0));
        // A level without hosts or without a mean is left out; none left: no minL.
        let partial = |m: usize| (m != 1).then_some(mu[m]);
        assert_eq!(min_level(1, &[2, 5, 3], partial), (12.0, 1));
        let none = min_level(1, &[2, 0, 0], mean);
        assert!(none.0.is_nan() && none.1 == NO_LEVEL);
        // Means near f64::MAX: 2 x 1e308 overflows, but ExpT is their weighted mean,
        // (2 x 1e308 + 1 x 1.5e308) / 3 = 1.1667e308 from level 0, 1.5e308 from level 1:
        // minL 0 (the overflowing sum gave no minL at all).
        let huge = [1e308, 1.5e308];
        let (bar, level) = min_level(0, &[2, 1], |m| Some(huge[m]));
        assert_eq!(level, 0);
        approx::assert_relative_eq!(
            bar,
            1e308 * (2.0 / 3.0) + 1.5e308 / 3.0,
            max_relative = 1e-12
        );
    }

    #[test]
    fn group_kmeans_by_hand() {
        // One dimension, five nodes at 10, 11, 30, 31, 60 s: five singleton groups.
        // k = 2: initial centres = groups 0 and 4 (positions 0 and (5-1)*1/1): 10 and 60.
        // Round 1: 10, 11, 30, 31 are closer to 10 (|31-10| = 21 < 29), 60 to 60.
        // Centres: (10+11+30+31)/4 = 20.5 and 60. Round 2: 30 -> |30-20.5| = 9.5 < 30,
        // 31 -> 10.5 < 29: no change. Levels: the centre 60 is slower: level 0 = {60}.
        let points = [10.0, 11.0, 30.0, 31.0, 60.0];
        let groups = group_points(&points, 1);
        assert_eq!(
            group_kmeans(&points, 1, &groups, 2, 100),
            (vec![1, 1, 1, 1, 0], 2)
        );
        // k = 3: centres 10, 30 (group 2 = (5-1)*1/2), 60: {10, 11}, {30, 31}, {60}.
        assert_eq!(
            group_kmeans(&points, 1, &groups, 3, 100),
            (vec![2, 2, 1, 1, 0], 3)
        );
        // More levels than groups: one level per group.
        assert_eq!(
            group_kmeans(&[5.0, 5.0], 1, &[0, 0], 4, 100),
            (vec![0, 0], 1)
        );
    }

    #[test]
    fn groups_vote_as_a_whole() {
        // Two dimensions; nodes 0, 1, 2 cross each other and form one group spanning
        // [0, 10] x [0, 10]: (0, 10), (10, 0), (9, 1). Node 3 = (100, 100).
        // k = 3 is cut to the 2 groups; centres: group 0's mean (19/3, 11/3) and
        // (100, 100). The group's three members vote for the first: level 1 (fast);
        // node 3 is level 0.
        let points = [0.0, 10.0, 10.0, 0.0, 9.0, 1.0, 100.0, 100.0];
        let groups = group_points(&points, 2);
        assert_eq!(groups, vec![0, 0, 0, 1]);
        assert_eq!(
            group_kmeans(&points, 2, &groups, 3, 100),
            (vec![1, 1, 1, 0], 2)
        );
    }

    #[test]
    fn moments_merge_like_one_pass() {
        let values = [3.0, 5.0, 7.0, 11.0];
        let mut all = Moments::default();
        values.iter().for_each(|&v| all.push(v));
        let (mut a, mut b) = (Moments::default(), Moments::default());
        values[..1].iter().for_each(|&v| a.push(v));
        values[1..].iter().for_each(|&v| b.push(v));
        a.merge(&b);
        // mean 6.5; deviations -3.5 -1.5 0.5 4.5; squares 12.25 + 2.25 + 0.25 + 20.25 = 35;
        // population sd = sqrt(35 / 4).
        assert_eq!(a.count, 4);
        approx::assert_relative_eq!(a.mean, 6.5);
        approx::assert_relative_eq!(a.population_sd(), (35.0f64 / 4.0).sqrt());
        approx::assert_relative_eq!(all.population_sd(), a.population_sd());
    }
}
