//! The offline half of Garraghan et al.'s detector (seed 004, Section 6.1): the typical
//! progress of a stage's tasks over elapsed time, learnt from attempts that succeeded and
//! fitted by linear and piecewise-linear regression, and the straggler threshold it gives.
//!
//! # The median progress curve
//!
//! Fig. 9 draws `T_iProg` as the "median task progress" at time `t`, and Section 6.1 calls
//! a task a straggler when "the time taken to reach a specific progress score ... is greater
//! than 50% in comparison to typical task execution". The model is therefore the median
//! of the history's attempts, not a fit of their pooled reports (where a slow attempt, with
//! more reports, would weigh more and pull the line towards itself).
//!
//! Each successful attempt `a` is a trajectory: `(0, 0)` (a task starts at progress 0),
//! its progress reports `(elapsed, progress)` and `(duration, 1)`. At each progress level
//! `q_j = j / Q` (`j = 1..=Q`, `Q =` [`LEVELS`] `= 100`) it has the time it first reached
//! `q_j`, interpolated linearly between the points of its running maximum:
//!
//! ```text
//! tau_a(q) = t_(i-1) + (q - p_(i-1)) (t_i - t_(i-1)) / (p_i - p_(i-1))    where p_(i-1) < q <= p_i
//! tau_a(q) = +inf                                                         if a never reached q
//! M(q_j)   = median over the latest W attempts of tau_a(q_j)   (the mean of the two middle values for an even count)
//! ```
//!
//! `M(q)` is the typical time to reach `q`; for trajectories that never go back, at most
//! half the attempts are behind `q` at time `M(q)`, so the points `(M(q_j), q_j)` lie on the
//! median progress curve of Fig. 9. Every attempt counts once at every level, whatever the
//! number of its reports, and stragglers that are a minority of the history move `M` at most
//! to the neighbouring normal attempts' times. A level the median attempt never reached
//! (`M = +inf`) gives no point.
//!
//! # The regression
//!
//! The model is the least-squares line `Prog(t) = a + b t` (seed 004, Eq. 2) through the
//! points `(M(q_j), q_j)`, and, for a piecewise model of `K` bands, one more line per band of
//! progress `[k / K, (k + 1) / K)` (the last closed at 1) through the points of its levels:
//! Fig. 8's "combination of linear and non-linear regression" for tasks whose progress has
//! phases (Hadoop's reduce: copy, sort, reduce, a third of the score each). `K = 1` is the
//! plain linear model. Level `j` (the progress from `(j - 1) / Q` to `j / Q`) belongs to the
//! band of its lower end, `((j - 1) K) div Q` in integers: every band has at least
//! `Q div K` levels, so `K <=` [`MAX_SEGMENTS`] `= Q / 2` leaves two or more to every band
//! (exactly two each for `K = 50`). An attempt is judged on the band `floor(K p)` of its
//! progress `p`. Choosing points by their progress biases nothing here: they are points of
//! one curve, not noisy samples.
//!
//! # A window of attempts
//!
//! *Decision*: `M` is the median over **the latest [`WINDOW`] successful attempts of the
//! stage**, not over all it ever learnt (a long run's millions would cost 800 bytes each,
//! forever). The paper fits "historical data" without saying how much; `W =` [`WINDOW`]
//! `= 4096` holds the evaluation's whole history (see [`WINDOW`]), and past it the latest
//! attempts follow the stage's current conditions. [`ProgressHistory::merge`] learns the
//! other history's kept attempts after its own, so the result is the history that learnt
//! both in that order.
//!
//! A stage keeps a ring of its latest `W` attempts' level times (learning an attempt writes
//! one slot, O(Q)) and, for the medians, the same times sorted level by level, in chunks of
//! 32 to 128 (an insertion or a removal is a count over the chunks' last values and one
//! chunk's values, and a shift within it). The sorted times are brought up to date when a
//! model is wanted ([`ProgressHistory::sync`]; the detector does it at a scan, for a stage
//! that learnt since): the attempts learnt since inserted and those they replaced removed,
//! or, past `W / 8` of them, every level sorted again from the ring (a long warm-up
//! learns millions at O(Q) each and sorts once). A model then costs O(Q) passes over a
//! few dozen chunk lengths. A stage costs at most about 17 MB whatever it learnt: 3.3 MB of
//! ring (`W Q` x 8 bytes), the sorted times (at most four times as much, chunks half full;
//! about twice in practice) and the replaced times of up to `W / 8` attempts. Taking the
//! medians from the ring at each model instead (`select_nth_unstable`, O(Q W)) made the
//! evaluation ten times slower: its detectors want a model at nearly every scan, as a stage
//! learns between most scans. The detector also keeps each stage's lines until the stage
//! learns another attempt, and clones of a history share each stage until one learns.

use std::sync::Arc;

use straggler_model::StageId;

use crate::scan::{IdMap, count_below};

/// Progress levels `q_j = j / LEVELS` at which the history keeps each attempt's time.
pub const LEVELS: usize = 100;

/// The most bands a piecewise model may have: two levels per band.
pub const MAX_SEGMENTS: u32 = (LEVELS / 2) as u32;

/// The successful attempts of a stage the history keeps: the latest `WINDOW` learnt, whose
/// medians make the model. 4096 holds the evaluation's whole history (its 10 baseline runs
/// of 320 maps and 160 reduces, 3200 attempts of a stage at most, and the at most 320 that
/// one evaluated run adds), so there the model is the median of every attempt. The median
/// of 4096 attempts is within about 2% of the attempts' spread of the median of all (its
/// standard error is `1.25 sigma / sqrt(4096)`), far below the 50% `Diff`; a stage costs
/// at most about 17 MB (4096 x 800 bytes of ring, and its sorted levels; see the module
/// docs).
pub const WINDOW: usize = 4096;

/// Running count, means and co-moments of points `(t, p)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Moments {
    count: u64,
    mean_t: f64,
    mean_p: f64,
    /// `sum (t - mean_t)^2`.
    m2_t: f64,
    /// `sum (t - mean_t) (p - mean_p)`.
    c_tp: f64,
}

impl Moments {
    fn add(&mut self, t: f64, p: f64) {
        self.count += 1;
        let n = self.count as f64;
        let dt = t - self.mean_t;
        self.mean_t += dt / n;
        self.mean_p += (p - self.mean_p) / n;
        self.m2_t += dt * (t - self.mean_t);
        self.c_tp += dt * (p - self.mean_p);
    }

    /// The least-squares line, if there are two distinct times and it is finite.
    fn line(&self) -> Option<Line> {
        if self.count < 2 || self.m2_t <= 0.0 {
            return None;
        }
        let slope = self.c_tp / self.m2_t;
        let intercept = self.mean_p - slope * self.mean_t;
        (slope.is_finite() && intercept.is_finite()).then_some(Line { intercept, slope })
    }
}

/// A fitted line `progress = intercept + slope * elapsed_secs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Progress at elapsed time 0 (`0.01` in seed 004's Eq. 2).
    pub intercept: f64,
    /// Progress per second (`0.15` in Eq. 2).
    pub slope: f64,
}

impl Line {
    /// The line's progress at `elapsed_secs`.
    pub fn progress_at(&self, elapsed_secs: f64) -> f64 {
        self.intercept + self.slope * elapsed_secs
    }
}

/// A stage's fitted progress model: the median progress curve, its overall line, and one
/// line per band of progress.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressModel {
    curve: Vec<(f64, f64)>,
    overall: Option<Line>,
    bands: Vec<Option<Line>>,
}

impl ProgressModel {
    /// The points `(M(q_j), q_j)` of the median progress curve: the typical elapsed time
    /// to reach each level the median attempt reached, in increasing level.
    pub fn median_curve(&self) -> &[(f64, f64)] {
        &self.curve
    }

    /// The regression over every point of the curve (seed 004, Eq. 2), if defined.
    pub fn overall(&self) -> Option<Line> {
        self.overall
    }

    /// The regression of band `k` (the levels `q_j` with `((j - 1) K) div LEVELS = k`, those
    /// above `k / K` up to `(k + 1) / K` when `K` divides [`LEVELS`]), if defined.
    pub fn band(&self, k: usize) -> Option<Line> {
        self.bands.get(k).copied().flatten()
    }

    /// The line that models an attempt at `progress`: its band's, or the overall one when
    /// the band has no usable fit. A line is usable if its slope is positive (progress that
    /// does not grow with time says nothing about when a task is late).
    pub fn line_for(&self, progress: f64) -> Option<Line> {
        let k = band_of(progress, self.bands.len());
        self.band(k)
            .filter(|l| l.slope > 0.0)
            .or(self.overall.filter(|l| l.slope > 0.0))
    }

    /// The straggler threshold `T_S` at `elapsed_secs` for an attempt at `progress`:
    /// the model's progress at `elapsed / (1 + diff)` (seed 004, Eq. 3: with `diff` = 0.5,
    /// `0.01 + 0.15 * (2/3) t`). An attempt below it has taken more than `1 + diff` times
    /// the typical time to reach its progress. `None` without a usable line.
    pub fn threshold(&self, progress: f64, elapsed_secs: f64, diff: f64) -> Option<f64> {
        self.line_for(progress)
            .map(|l| l.progress_at(elapsed_secs / (1.0 + diff)))
    }
}

/// The band of level `level` (`q = level / LEVELS`, `1..=LEVELS`) among `segments`
/// bands, `((level - 1) * segments) div LEVELS`: the band of the level's lower end
/// `(level - 1) / LEVELS`, in integers, so that every band of `segments <= LEVELS / 2`
/// has at least `LEVELS div segments >= 2` levels (exactly two each for 50).
pub(crate) fn band_of_level(level: usize, segments: usize) -> usize {
    (level.saturating_sub(1) * segments / LEVELS).min(segments.saturating_sub(1))
}

/// The band of `progress` among `segments` equal bands of `[0, 1]`.
#[inline]
pub(crate) fn band_of(progress: f64, segments: usize) -> usize {
    // `as usize` saturates, and NaN gives 0; progress is in [0, 1] in a snapshot anyway.
    ((progress * segments as f64) as usize).min(segments.saturating_sub(1))
}

/// The median of `values` (reordered), `NaN` when empty: the middle value, or the mean of
/// the two middle ones, kept between them (`+inf` if either is). Ordered by `total_cmp`.
pub(crate) fn median(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    let (lower, &mut upper, _) = values.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return upper;
    }
    let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (0.5 * (below + upper)).max(below).min(upper)
}

/// Makes room in `values` for one more, doubling its capacity but never past `most`.
fn reserve_up_to<T>(values: &mut Vec<T>, most: usize) {
    if values.len() == values.capacity() && values.len() < most {
        let more = values.len().max(4).min(most - values.len());
        values.reserve_exact(more);
    }
}

/// `time` as an integer in the order of `f64::total_cmp` (the transform `total_cmp` itself
/// compares: flip every bit but the sign of a negative value).
fn order_key(time: f64) -> i64 {
    let bits = time.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The time of [`order_key`]`(time)` (the transform is its own inverse).
fn time_of(key: i64) -> f64 {
    f64::from_bits((key ^ (((key >> 63) as u64) >> 1) as i64) as u64)
}

/// Times kept in increasing `total_cmp` order (as [`order_key`]s), in runs ("chunks") of
/// [`CHUNK`] / 2 to 2 [`CHUNK`] values: an insertion or a removal counts the chunks' last
/// keys and the keys of one chunk, and shifts within it; the value of a rank is a pass over
/// the chunks' lengths.
#[derive(Debug, Clone, Default)]
struct SortedTimes {
    /// Non-empty, each in order and all in order one after the other; only the last may
    /// be shorter than `CHUNK / 2`.
    chunks: Vec<Vec<i64>>,
    /// The last (largest) key of each chunk.
    lasts: Vec<i64>,
    len: usize,
}

/// The length of a [`SortedTimes`] chunk once split.
const CHUNK: usize = 64;

impl SortedTimes {
    /// The times of `keys` ([`order_key`]s in increasing order), chunked.
    fn from_sorted_keys(keys: &[i64]) -> Self {
        let chunks: Vec<Vec<i64>> = keys.chunks(CHUNK).map(<[i64]>::to_vec).collect();
        SortedTimes {
            lasts: chunks.iter().map(|c| c[c.len() - 1]).collect(),
            chunks,
            len: keys.len(),
        }
    }

    fn insert(&mut self, time: f64) {
        let key = order_key(time);
        self.len += 1;
        // The first chunk whose last key is above `key`, else the last chunk.
        let c = count_below(&self.lasts, key, true).min(self.chunks.len().saturating_sub(1));
        let Some(chunk) = self.chunks.get_mut(c) else {
            self.chunks.push(vec![key]);
            self.lasts.push(key);
            return;
        };
        let at = count_below(chunk, key, true);
        reserve_up_to(chunk, 2 * CHUNK + 1);
        chunk.insert(at, key);
        self.lasts[c] = chunk[chunk.len() - 1];
        if chunk.len() > 2 * CHUNK {
            let upper = chunk.split_off(CHUNK);
            self.lasts[c] = chunk[CHUNK - 1];
            self.lasts.insert(c + 1, upper[upper.len() - 1]);
            self.chunks.insert(c + 1, upper);
        }
    }

    /// Removes one time equal to `time` (by `total_cmp`); `false` if there is none.
    fn remove(&mut self, time: f64) -> bool {
        let key = order_key(time);
        // The first chunk whose last key is at least `key`.
        let c = count_below(&self.lasts, key, false);
        let Some(chunk) = self.chunks.get_mut(c) else {
            return false;
        };
        let at = count_below(chunk, key, false);
        if chunk.get(at) != Some(&key) {
            return false;
        }
        chunk.remove(at);
        self.len -= 1;
        if chunk.is_empty() {
            self.chunks.remove(c);
            self.lasts.remove(c);
            return true;
        }
        self.lasts[c] = chunk[chunk.len() - 1];
        if chunk.len() < CHUNK / 2 && self.chunks.len() > 1 {
            // Into its neighbour, split again if too long.
            let low = if c + 1 < self.chunks.len() { c } else { c - 1 };
            let high = self.chunks.remove(low + 1);
            self.lasts.remove(low);
            let merged = &mut self.chunks[low];
            merged.reserve_exact(high.len());
            merged.extend_from_slice(&high);
            if merged.len() > 2 * CHUNK {
                let upper = merged.split_off(merged.len() / 2);
                merged.shrink_to(2 * CHUNK + 1);
                self.lasts[low] = merged[merged.len() - 1];
                self.lasts.insert(low + 1, upper[upper.len() - 1]);
                self.chunks.insert(low + 1, upper);
            }
        }
        true
    }

    /// The time of rank `rank` (0 the least).
    fn get(&self, mut rank: usize) -> Option<f64> {
        for chunk in &self.chunks {
            if rank < chunk.len() {
                return Some(time_of(chunk[rank]));
            }
            rank -= chunk.len();
        }
        None
    }

    /// The median, as [`median`] gives it: `NaN` when empty, the middle value, or the
    /// mean of the two middle ones, kept between them.
    fn median(&self) -> f64 {
        let n = self.len;
        let Some(upper) = n.checked_sub(1).and_then(|_| self.get(n / 2)) else {
            return f64::NAN;
        };
        if n % 2 == 1 {
            return upper;
        }
        let below = self.get(n / 2 - 1).unwrap_or(upper);
        (0.5 * (below + upper)).max(below).min(upper)
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.chunks.iter().flatten().map(|&key| time_of(key))
    }
}

/// Attempts learnt since a stage's sorted times were last brought up to date, past which
/// [`StageHistory::sync`] sorts the kept times again rather than update them one attempt
/// at a time (an update costs about a thousandth of a sort of [`WINDOW`] times per level).
const MAX_PENDING: u64 = (WINDOW / 8) as u64;

/// One stage's history: the attempts learnt, the level times of the latest [`WINDOW`] of
/// them in a ring, and, for the medians, the same times level by level in increasing order,
/// brought up to date when asked ([`StageHistory::sync`]): learning an attempt only writes
/// the ring.
#[derive(Debug, Clone, Default)]
struct StageHistory {
    /// Attempts learnt, including those the ring no longer holds.
    attempts: u64,
    /// Each kept attempt's time to reach every level; at most [`WINDOW`] long.
    ring: Vec<[f64; LEVELS]>,
    /// Once the ring is full, the slot of its oldest attempt (the next to be replaced).
    oldest: usize,
    /// Per level (empty before the first sync, then [`LEVELS`] long), the times of the
    /// attempts the ring held when `attempts` was `synced`, in increasing order.
    sorted: Vec<SortedTimes>,
    /// `attempts` at the last sync.
    synced: u64,
    /// The times that attempts learnt since the last sync took the place of in the ring,
    /// while there are at most [`MAX_PENDING`] such attempts (past that, no longer kept).
    replaced: Vec<[f64; LEVELS]>,
}

impl StageHistory {
    fn push(&mut self, times: [f64; LEVELS]) {
        self.attempts += 1;
        let pending = self.attempts - self.synced;
        if self.ring.len() < WINDOW {
            reserve_up_to(&mut self.ring, WINDOW);
            self.ring.push(times);
        } else {
            let old = std::mem::replace(&mut self.ring[self.oldest], times);
            self.oldest = (self.oldest + 1) % WINDOW;
            if pending <= MAX_PENDING {
                self.replaced.push(old);
            }
        }
        if pending == MAX_PENDING + 1 {
            self.replaced = Vec::new();
        }
    }

    /// Whether the sorted times are those of the ring.
    fn is_synced(&self) -> bool {
        self.synced == self.attempts
    }

    /// Brings the sorted times up to date: the attempts learnt since the last sync (fewer
    /// than [`WINDOW`], so all still in the ring) inserted and the times they replaced
    /// removed, or, past [`MAX_PENDING`] of them, every level sorted again.
    fn sync(&mut self) {
        let pending = self.attempts - self.synced;
        if pending == 0 {
            return;
        }
        if pending > MAX_PENDING || self.sorted.is_empty() {
            // Sorted as integers (`order_key`): faster than by `total_cmp`.
            let mut keys = vec![0; self.ring.len()];
            self.sorted = (0..LEVELS)
                .map(|level| {
                    for (key, attempt) in keys.iter_mut().zip(&self.ring) {
                        *key = order_key(attempt[level]);
                    }
                    keys.sort_unstable();
                    SortedTimes::from_sorted_keys(&keys)
                })
                .collect();
        } else {
            for old in self.replaced.drain(..) {
                for (level, time) in self.sorted.iter_mut().zip(old) {
                    let removed = level.remove(time);
                    debug_assert!(removed, "a replaced time is among the sorted times");
                }
            }
            let (newer, older) = self.ring.split_at(self.oldest);
            for new in older.iter().chain(newer).rev().take(pending as usize) {
                for (level, &time) in self.sorted.iter_mut().zip(new) {
                    level.insert(time);
                }
            }
        }
        self.replaced.clear();
        self.synced = self.attempts;
    }

    /// The median of level `level` (0-based) over the kept attempts: from the sorted times
    /// when up to date, else taken from the ring.
    fn level_median(&self, level: usize, scratch: &mut Vec<f64>) -> f64 {
        if self.is_synced() {
            return self.sorted[level].median();
        }
        scratch.clear();
        scratch.extend(self.ring.iter().map(|times| times[level]));
        median(scratch)
    }

    /// The kept attempts' level times, oldest first.
    fn in_order(&self) -> impl Iterator<Item = &[f64; LEVELS]> + '_ {
        let (newer, older) = self.ring.split_at(self.oldest);
        older.iter().chain(newer)
    }
}

/// The level times of a trajectory ([`ProgressHistory::add_trajectory`]): its valid points
/// sorted by time, then [`level_times`]; `None` without a valid point. And the number of
/// points that were not valid.
fn trajectory_times(points: impl IntoIterator<Item = (f64, f64)>) -> (Option<[f64; LEVELS]>, u64) {
    let mut valid: Vec<(f64, f64)> = Vec::new();
    let mut skipped = 0;
    for (t, p) in points {
        if t.is_finite() && t >= 0.0 && (0.0..=1.0).contains(&p) {
            valid.push((t, p));
        } else {
            skipped += 1;
        }
    }
    valid.sort_by(|a, b| a.0.total_cmp(&b.0));
    let times = (!valid.is_empty()).then(|| level_times(&valid));
    (times, skipped)
}

/// Level `j`'s progress, `q_j = j / LEVELS`.
fn level(j: usize) -> f64 {
    j as f64 / LEVELS as f64
}

/// The times at which the trajectory `points` (sorted by time, valid) first reached each
/// level, from `(0, 0)`; `+inf` for a level it never reached.
fn level_times(points: &[(f64, f64)]) -> [f64; LEVELS] {
    let mut times = [f64::INFINITY; LEVELS];
    let (mut t0, mut p0) = (0.0, 0.0);
    let mut j = 1; // the next level to reach
    for &(t1, p1) in points {
        while j <= LEVELS {
            let q = level(j);
            if p1 < q {
                break;
            }
            // p0 < q <= p1: between the two points (at t1 when they share a time).
            let time = t0 + (q - p0) / (p1 - p0) * (t1 - t0);
            times[j - 1] = if time.is_finite() {
                time.clamp(t0, t1)
            } else {
                t1
            };
            j += 1;
        }
        if p1 > p0 {
            (t0, p0) = (t1, p1);
        } else {
            t0 = t1;
        }
    }
    times
}

/// The progress reports `(time, progress)` of a running attempt, taken in the order
/// observed and reduced to the points that decide its [`level_times`]: at most
/// `2 LEVELS + 2` points, whatever the number of reports (an attempt that runs for a month
/// reports 10^6 times at a 3 s heartbeat).
///
/// `level_times` gives level `q_j` from the first point `i` that reaches it and the state
/// before that point: the time `t_(i-1)` of the point before it, and `P_(i-1)`, the
/// highest progress before it (0 at the origin). So the points kept are the first report,
/// each report that reaches a new level, after `(t_(i-1), P_(i-1))`, and, last, the state
/// after the last report, `(t_last, P_last)`: while reports reach no new level, each
/// replaces that last state with its own. Given the kept points, `level_times` gives the
/// times it gives given every point, bit for bit: it reaches each kept report in the state
/// the full list leaves it in, since a state `(t, P)` reaches no new level (the reports
/// kept before it reached every level up to `P`) and sets that state.
///
/// Times are kept as reported: the elapsed times, `time - start`, are taken at the
/// attempt's end ([`ProgressHistory::add_reported`]), the same bits as taken report by
/// report. The state is kept beside the points, with the next level to reach, so that a
/// report reads the map's entry and nothing else: every running attempt has one, and the
/// points of thousands of them are not in a cache.
#[derive(Debug, Clone)]
pub(crate) struct ReportedTrajectory {
    points: Vec<(f64, f64)>,
    /// The last report's time (`-inf` before any) and the highest progress taken (0).
    last: f64,
    top: f64,
    /// The first level above `top` (`LEVELS + 1` once `top` is 1).
    next_level: u8,
    /// Whether the last point is a state only, which the next report replaces.
    last_is_state: bool,
}

impl Default for ReportedTrajectory {
    fn default() -> Self {
        ReportedTrajectory {
            points: Vec::new(),
            last: f64::NEG_INFINITY,
            top: 0.0,
            next_level: 1,
            last_is_state: false,
        }
    }
}

impl ReportedTrajectory {
    /// Takes one report; `false` (the report skipped) if its time is not finite, its
    /// progress not in `[0, 1]`, or it is earlier than the last report taken (engines
    /// report in time order).
    pub(crate) fn report(&mut self, time: f64, progress: f64) -> bool {
        if !(time.is_finite() && (0.0..=1.0).contains(&progress) && time >= self.last) {
            return false;
        }
        let reaches = |j: u8| usize::from(j) <= LEVELS && progress >= level(usize::from(j));
        if self.points.is_empty() || reaches(self.next_level) {
            // The first report, or one that reaches a new level.
            self.points.push((time, progress));
            self.last_is_state = false;
            while reaches(self.next_level) {
                self.next_level += 1;
            }
        } else {
            let state = (time, self.top.max(progress));
            match self.points.last_mut() {
                Some(last) if self.last_is_state => *last = state,
                _ => self.points.push(state),
            }
            self.last_is_state = true;
        }
        self.last = time;
        self.top = self.top.max(progress);
        true
    }

    /// The times of the first and the last report taken; `None` before any.
    fn span(&self) -> Option<(f64, f64)> {
        Some((self.points.first()?.0, self.last))
    }

    /// The points kept, the last being the state after the last report: the points to
    /// which the attempt's end, `(end, 1)`, is added.
    pub(crate) fn into_points(self) -> Vec<(f64, f64)> {
        self.points
    }
}

/// Progress trajectories of attempts that succeeded, per stage, summarised for
/// [`ProgressModel`]s: the time each of the latest [`WINDOW`] attempts of the stage took to
/// reach each progress level, whose medians make the model.
///
/// Each attempt `a` is the trajectory `(0, 0)`, its reports `(elapsed, progress)`,
/// `(duration, 1)`; at the levels `q_j = j / 100` (seed 004, Fig. 9's median task progress
/// and Eq. 2's regression):
///
/// ```text
/// tau_a(q) = t_(i-1) + (q - p_(i-1)) (t_i - t_(i-1)) / (p_i - p_(i-1)),  p_(i-1) < q <= p_i   (+inf if never reached)
/// M(q_j)   = median over the latest W of a of tau_a(q_j)                   (the typical time to reach q_j)
/// Prog(t)  = a + b t, least squares through the points (M(q_j), q_j), one more line per band of K
/// ```
///
/// Built by the detector from what it observes, or from past runs of the same jobs (seed
/// 004's "historical data") and given to
/// [`GarraghanDetector::with_history`](crate::GarraghanDetector::with_history).
#[derive(Debug, Clone, Default)]
pub struct ProgressHistory {
    /// By stage index (a map: a stray stage id allocates nothing). Shared between clones
    /// until one of them learns (a detector's history, its prior, and the evaluation's
    /// history it started from are one until the run's first success).
    stages: IdMap<u32, Arc<StageHistory>>,
    skipped_points: u64,
    skipped_attempts: u64,
}

impl ProgressHistory {
    /// An empty history.
    pub fn new() -> Self {
        ProgressHistory::default()
    }

    /// Adds the trajectory `(elapsed_secs, progress)` of one successful attempt of `stage`
    /// (its reports, then `(duration, 1)`; taken in time order). A point with a non-finite
    /// or negative elapsed time, or a progress outside `[0, 1]`, is skipped and counted
    /// ([`skipped_points`](Self::skipped_points)); an attempt with no valid point is not
    /// learnt.
    pub fn add_trajectory(&mut self, stage: StageId, points: impl IntoIterator<Item = (f64, f64)>) {
        let (times, skipped) = trajectory_times(points);
        self.skipped_points += skipped;
        if let Some(times) = times {
            Arc::make_mut(self.stages.entry(stage.0).or_default()).push(times);
        }
    }

    /// Adds the trajectory of an attempt of `stage` that started at `start_secs` and
    /// succeeded at `end_secs`, from its progress `reports`: the points
    /// `(time - start, progress)` of the reports, then `(end - start, 1)`, as
    /// [`add_trajectory`](Self::add_trajectory) takes them. An attempt with a report
    /// before its start or after its end (or whose elapsed times overflow) is not learnt,
    /// and counted ([`skipped_attempts`](Self::skipped_attempts)).
    pub(crate) fn add_reported(
        &mut self,
        stage: StageId,
        reports: ReportedTrajectory,
        start_secs: f64,
        end_secs: f64,
    ) {
        if let Some((first, last)) = reports.span() {
            // A NaN end's point is skipped, and the reports learnt.
            let within = first >= start_secs && (last <= end_secs || end_secs.is_nan());
            if !(within && (last - start_secs).is_finite()) {
                self.skipped_attempts += 1;
                return;
            }
        }
        let points = reports.into_points().into_iter();
        let points = points.map(|(t, p)| (t - start_secs, p));
        self.add_trajectory(
            stage,
            points.chain(std::iter::once((end_secs - start_secs, 1.0))),
        );
    }

    /// Adds every attempt of `other` (the history of another run, say) after this
    /// history's own: the result is the history that learnt this one's attempts, then
    /// `other`'s, each in the order it learnt them (so it keeps, of each stage, the latest
    /// [`WINDOW`] of that sequence).
    pub fn merge(&mut self, other: &ProgressHistory) {
        self.skipped_points += other.skipped_points;
        self.skipped_attempts += other.skipped_attempts;
        for (&stage, theirs) in &other.stages {
            let ours = Arc::make_mut(self.stages.entry(stage).or_default());
            // The attempts `other` no longer holds would have left our window anyway: it
            // holds fewer than `WINDOW` only if it learnt no more.
            let forgotten = theirs.attempts - theirs.ring.len() as u64;
            for times in theirs.in_order() {
                ours.push(*times);
            }
            ours.attempts += forgotten;
        }
    }

    /// Points left out because they were not finite or out of range; for a detector's
    /// history, also the progress reports it skipped (see
    /// [`GarraghanDetector`](crate::GarraghanDetector)).
    pub fn skipped_points(&self) -> u64 {
        self.skipped_points
    }

    /// Counts a point left out.
    pub(crate) fn skip_point(&mut self) {
        self.skipped_points += 1;
    }

    /// Attempts a detector did not learn because a progress report of theirs lies outside
    /// their run (see [`GarraghanDetector`](crate::GarraghanDetector)).
    pub fn skipped_attempts(&self) -> u64 {
        self.skipped_attempts
    }

    /// Attempts learnt for `stage`, including those no longer kept. It grows with every
    /// attempt learnt, so it tells whether the stage's model may have changed.
    pub fn attempts(&self, stage: StageId) -> u64 {
        self.stages.get(&stage.0).map_or(0, |h| h.attempts)
    }

    /// Makes `stage`'s history `to`'s (none if `to` has none), the rest unchanged: a
    /// finished stage goes back to the prior, and its index starts afresh.
    pub(crate) fn reset_stage(&mut self, stage: StageId, to: &ProgressHistory) {
        match to.stages.get(&stage.0) {
            Some(history) => {
                self.stages.insert(stage.0, Arc::clone(history));
            }
            None => {
                self.stages.remove(&stage.0);
            }
        }
    }

    /// Attempts of `stage` whose trajectories are kept, the latest [`WINDOW`] learnt at
    /// most: the stage's model is theirs.
    pub fn kept_attempts(&self, stage: StageId) -> usize {
        self.stages.get(&stage.0).map_or(0, |h| h.ring.len())
    }

    /// Brings every stage's sorted times up to date with the attempts it learnt (see
    /// [`model`](Self::model)); nothing to do for a stage that learnt nothing since.
    pub fn sync(&mut self) {
        for history in self.stages.values_mut() {
            if !history.is_synced() {
                Arc::make_mut(history).sync();
            }
        }
    }

    /// [`sync`](Self::sync) for `stage` only.
    pub(crate) fn sync_stage(&mut self, stage: StageId) {
        if let Some(history) = self.stages.get_mut(&stage.0).filter(|h| !h.is_synced()) {
            Arc::make_mut(history).sync();
        }
    }

    /// The fitted model of `stage` with `segments` bands (taken into
    /// `1..=`[`MAX_SEGMENTS`]), `None` if it has no usable line at all. After a
    /// [`sync`](Self::sync) the medians are read from sorted times (O([`LEVELS`]) passes
    /// over a few dozen chunk lengths); without, they are taken from the ring
    /// (O([`LEVELS`] x kept attempts)): the same model, later.
    pub fn model(&self, stage: StageId, segments: u32) -> Option<ProgressModel> {
        let history = self.stages.get(&stage.0)?;
        let segments = segments.clamp(1, MAX_SEGMENTS) as usize;
        let mut overall = Moments::default();
        let mut bands = vec![Moments::default(); segments];
        let mut curve = Vec::with_capacity(LEVELS);
        let mut scratch = Vec::new();
        for j in 1..=LEVELS {
            let time = history.level_median(j - 1, &mut scratch);
            if time.is_finite() {
                let q = level(j);
                overall.add(time, q);
                bands[band_of_level(j, segments)].add(time, q);
                curve.push((time, q));
            }
        }
        let model = ProgressModel {
            curve,
            overall: overall.line(),
            bands: bands.iter().map(Moments::line).collect(),
        };
        let usable = model.overall.is_some() || model.bands.iter().any(Option::is_some);
        usable.then_some(model)
    }

    /// Forgets every attempt.
    pub fn clear(&mut self) {
        self.stages.clear();
        self.skipped_points = 0;
        self.skipped_attempts = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::SplitMix64;

    #[test]
    fn welford_fit_matches_the_closed_form() {
        // Points of p = 0.01 + 0.15 t at t = 0, 2, 4, 6.
        let mut m = Moments::default();
        for t in [0.0, 2.0, 4.0, 6.0] {
            m.add(t, 0.01 + 0.15 * t);
        }
        let line = m.line().expect("two distinct times");
        approx::assert_relative_eq!(line.slope, 0.15, max_relative = 1e-12);
        approx::assert_relative_eq!(line.intercept, 0.01, max_relative = 1e-9);
    }

    #[test]
    fn one_time_gives_no_line() {
        let mut m = Moments::default();
        m.add(3.0, 0.2);
        m.add(3.0, 0.4);
        assert_eq!(m.line(), None);
    }

    #[test]
    fn bands_split_progress_evenly() {
        assert_eq!(band_of(0.0, 3), 0);
        assert_eq!(band_of(0.34, 3), 1);
        assert_eq!(band_of(1.0, 3), 2);
        assert_eq!(band_of(0.5, 1), 0);
    }

    /// Reports of one attempt started at `start`: times rising by steps of 0 to 4 s from
    /// `start` (ties included), progress rising by 0 to 0.02 (levels hit exactly), with
    /// dips, flats, a jump to 1 now and then, and one report in 16 not valid.
    fn random_reports(rng: &mut SplitMix64, start: f64, count: usize) -> Vec<(f64, f64)> {
        let (mut t, mut p) = (start, 0.0f64);
        let mut reports = Vec::with_capacity(count);
        for _ in 0..count {
            t += f64::from(rng.below(5));
            p = match rng.below(16) {
                0 => (p - 0.05 * rng.unit()).max(0.0),
                1 => p,
                2 => level(rng.below(LEVELS as u32 + 1) as usize).max(p),
                3 if rng.below(8) == 0 => 1.0,
                _ => (p + 0.02 * rng.unit()).min(1.0),
            };
            reports.push(match rng.below(16) {
                0 => (f64::NAN, p),
                1 => (t, 1.5),
                2 => (t, f64::NAN),
                _ => (t, p),
            });
        }
        reports
    }

    #[test]
    fn reduced_reports_give_the_level_times_of_every_report() {
        let mut rng = SplitMix64(0x0004_1e7e_15ed);
        for case in 0..2000 {
            let start = 100.0 * rng.unit() + 0.1;
            let count = [0, 1, 2, 5, 40, 300, 5000][case % 7];
            let reports = random_reports(&mut rng, start, count);
            let last = reports
                .iter()
                .map(|r| r.0)
                .filter(|t| t.is_finite())
                .fold(start, f64::max);
            let end = last + f64::from(rng.below(3));
            let mut reduced = ReportedTrajectory::default();
            let taken = reports
                .iter()
                .filter(|&&(t, p)| reduced.report(t, p))
                .count();
            let kept = reduced.into_points();
            assert!(kept.len() <= 2 * LEVELS + 2, "case {case}");
            let with_end = |points: Vec<(f64, f64)>| {
                let elapsed = points.into_iter().map(|(t, p)| (t - start, p));
                trajectory_times(elapsed.chain([(end - start, 1.0)]))
            };
            let (all, all_skipped) = with_end(reports.clone());
            let (kept_times, kept_skipped) = with_end(kept);
            let bits = |times: Option<[f64; LEVELS]>| times.map(|t| t.map(f64::to_bits));
            assert_eq!(bits(kept_times), bits(all), "case {case}");
            // The reports skipped are those the sorted trajectory skips (in order here).
            assert_eq!((count - taken) as u64, all_skipped, "case {case}");
            assert_eq!(kept_skipped, 0, "case {case}");
        }
    }

    #[test]
    fn reports_out_of_order_or_outside_the_run_are_counted() {
        // (attempts learnt, reports skipped, attempts skipped)
        let learnt = |reports: &[(f64, f64)], start: f64, end: f64| {
            let mut reduced = ReportedTrajectory::default();
            let mut history = ProgressHistory::new();
            for &(t, p) in reports {
                if !reduced.report(t, p) {
                    history.skip_point();
                }
            }
            history.add_reported(StageId(0), reduced, start, end);
            let stage = history.attempts(StageId(0));
            (stage, history.skipped_points(), history.skipped_attempts())
        };
        // In order: learnt, nothing skipped.
        assert_eq!(learnt(&[(12.0, 0.2), (14.0, 0.4)], 10.0, 20.0), (1, 0, 0));
        // A report earlier than the last one taken is skipped; the rest is learnt.
        assert_eq!(learnt(&[(14.0, 0.4), (12.0, 0.2)], 10.0, 20.0), (1, 1, 0));
        // A report before the start, or after the end: the attempt is not learnt.
        assert_eq!(learnt(&[(9.0, 0.1), (14.0, 0.4)], 10.0, 20.0), (0, 0, 1));
        assert_eq!(learnt(&[(12.0, 0.2), (21.0, 0.4)], 10.0, 20.0), (0, 0, 1));
        // At the start and at the end: learnt.
        assert_eq!(learnt(&[(10.0, 0.0), (20.0, 0.9)], 10.0, 20.0), (1, 0, 0));
        // No report: the end alone.
        assert_eq!(learnt(&[], 10.0, 20.0), (1, 0, 0));
        // Elapsed times that overflow: not learnt.
        assert_eq!(learnt(&[(f64::MAX, 0.5)], -f64::MAX, f64::MAX), (0, 0, 1));
        // A NaN end: its point skipped, the reports learnt.
        assert_eq!(learnt(&[(12.0, 0.2)], 10.0, f64::NAN), (1, 1, 0));
    }

    #[test]
    fn a_month_of_reports_keeps_about_two_points_a_level() {
        // 10^6 reports at 3 s, progress rising slowly with a dip every 7th.
        let mut reduced = ReportedTrajectory::default();
        for i in 0..1_000_000u32 {
            let p = f64::from(i) / 1e6 - if i % 7 == 0 { 1e-4 } else { 0.0 };
            assert!(reduced.report(3.0 * f64::from(i), p.max(0.0)));
        }
        let kept = reduced.into_points().len();
        assert!(kept <= 2 * LEVELS + 2, "{kept}");
    }

    #[test]
    fn level_times_interpolate_the_running_maximum() {
        // (0, 0) -> (2, 0.2) -> (3, 0.1) -> (4, 0.6): the running maximum is 0.2 at 2 and
        // 3 s, so 0.1 at 1 s, 0.2 at 2 s, 0.4 at 3 + (0.4 - 0.2) / (0.6 - 0.2) * 1 = 3.5 s;
        // 0.61 never.
        let times = level_times(&[(2.0, 0.2), (3.0, 0.1), (4.0, 0.6)]);
        approx::assert_relative_eq!(times[9], 1.0, max_relative = 1e-12);
        approx::assert_relative_eq!(times[19], 2.0, max_relative = 1e-12);
        approx::assert_relative_eq!(times[39], 3.5, max_relative = 1e-12);
        assert_eq!(times[60], f64::INFINITY);
        // A jump at one time: every level up to it is reached then.
        let jump = level_times(&[(0.0, 0.5), (5.0, 1.0)]);
        assert_eq!(jump[49], 0.0);
        approx::assert_relative_eq!(jump[99], 5.0, max_relative = 1e-12);
    }

    #[test]
    fn median_of_odd_even_and_infinite_counts() {
        assert!(median(&mut []).is_nan());
        for (values, expected) in [
            (&[5.0][..], 5.0),
            (&[5.0, 1.0], 3.0),
            (&[5.0, 1.0, 9.0], 5.0),
            (&[5.0, 1.0, 9.0, 2.0], 3.5),
            (&[5.0, 1.0, 9.0, 2.0, 7.0], 5.0),
            (&[5.0, 1.0, 9.0, 2.0, 7.0, f64::INFINITY], 6.0),
            (&[1.0, f64::INFINITY], f64::INFINITY),
        ] {
            assert_eq!(median(&mut values.to_vec()), expected, "{values:?}");
            let mut keys: Vec<i64> = values.iter().map(|&t| order_key(t)).collect();
            keys.sort_unstable();
            assert_eq!(
                SortedTimes::from_sorted_keys(&keys).median(),
                expected,
                "{values:?}"
            );
        }
    }

    #[test]
    fn every_band_of_fifty_has_two_levels() {
        // In floating point 0.58 * 50 = 28.999...: `band_of` would give band 0 the level
        // 0.01 alone, and band 29 the level 0.59 alone. In integers every band has two.
        for segments in [1, 2, 3, 7, 50] {
            let mut levels = vec![0usize; segments];
            for level in 1..=LEVELS {
                levels[band_of_level(level, segments)] += 1;
            }
            assert!(levels.iter().all(|&n| n >= LEVELS / segments), "{levels:?}");
            assert_eq!(levels.iter().sum::<usize>(), LEVELS);
        }
        let mut fifty = [0usize; 50];
        for level in 1..=LEVELS {
            fifty[band_of_level(level, 50)] += 1;
        }
        assert_eq!(fifty, [2; 50]);
        assert_eq!(band_of_level(58, 50), 28);
        assert_eq!(band_of_level(59, 50), 29);
    }

    /// A trajectory at `1 / duration` per second, every level reached.
    fn linear(duration: f64) -> [(f64, f64); 2] {
        [(0.5 * duration, 0.5), (duration, 1.0)]
    }

    #[test]
    fn the_history_keeps_the_latest_window_of_attempts() {
        // 3 W attempts of durations 1, 2, ..., 3 W: the history keeps the last W, its model
        // is that of a history fed only those, and its ring is W long, not 3 W.
        let mut all = ProgressHistory::new();
        let mut last = ProgressHistory::new();
        for i in 0..3 * WINDOW {
            let trajectory = linear((i + 1) as f64);
            all.add_trajectory(StageId(0), trajectory);
            if i >= 2 * WINDOW {
                last.add_trajectory(StageId(0), trajectory);
            }
            if i == WINDOW + 7 {
                assert_eq!(all.kept_attempts(StageId(0)), WINDOW);
            }
        }
        assert_eq!(all.attempts(StageId(0)), 3 * WINDOW as u64);
        assert_eq!(all.kept_attempts(StageId(0)), WINDOW);
        let stage = &all.stages[&0];
        assert_eq!(stage.ring.len(), WINDOW);
        assert!(stage.ring.capacity() <= WINDOW, "{}", stage.ring.capacity());
        // Unsynced, the model is taken from the ring; synced, from the sorted times: the
        // same, and the sorted times are W long too.
        let mut synced = all.clone();
        synced.sync();
        assert_eq!(synced.model(StageId(0), 3), last.model(StageId(0), 3));
        let stage = &synced.stages[&0];
        assert_eq!(stage.sorted.len(), LEVELS);
        for level in &stage.sorted {
            assert_eq!(level.len, WINDOW);
            assert!(level.iter().is_sorted_by(|a, b| a.total_cmp(b).is_le()));
            assert!(level.chunks.len() <= 2 * WINDOW / CHUNK + 1);
        }
        assert_eq!(all.model(StageId(0), 3), last.model(StageId(0), 3));
        // The median duration of 2 W + 1 ..= 3 W is 2.5 W + 0.5: M(1) is it.
        let model = all.model(StageId(0), 3).expect("fitted");
        assert_eq!(
            model.median_curve()[LEVELS - 1].0,
            2.5 * WINDOW as f64 + 0.5
        );
    }

    /// A deterministic stream of numbers in `[0, 1)` (a linear congruential generator).
    fn numbers(seed: u64) -> impl Iterator<Item = f64> {
        let mut state = seed;
        std::iter::from_fn(move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            Some((state >> 11) as f64 / (1u64 << 53) as f64)
        })
    }

    #[test]
    fn order_keys_are_in_the_order_of_total_cmp() {
        let times = [
            f64::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            2.5,
            f64::MAX,
            f64::INFINITY,
        ];
        for (i, &a) in times.iter().enumerate() {
            assert_eq!(time_of(order_key(a)).to_bits(), a.to_bits());
            for &b in &times[i..] {
                assert_eq!(order_key(a).cmp(&order_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn sorted_times_follow_inserts_and_removals() {
        // Against a sorted vector: values on a coarse grid (ties), +inf, grown to 1000 then
        // taken down to 0, chunks splitting and merging on the way.
        let mut sorted = SortedTimes::default();
        let mut reference: Vec<f64> = Vec::new();
        let mut values = numbers(7).map(|x| {
            let v = (x * 50.0).floor();
            if v == 0.0 { f64::INFINITY } else { v }
        });
        let mut picks = numbers(11);
        for step in 0..6000 {
            let grow = step < 1500 || (step < 3000 && step % 3 != 0) || reference.is_empty();
            if grow && step < 4000 {
                let v = values.next().expect("endless");
                sorted.insert(v);
                let at = reference.partition_point(|x| x.total_cmp(&v).is_le());
                reference.insert(at, v);
            } else if let Some(&v) =
                reference.get((picks.next().expect("endless") * reference.len() as f64) as usize)
            {
                assert!(sorted.remove(v));
                let at = reference.partition_point(|x| x.total_cmp(&v).is_lt());
                reference.remove(at);
            }
            assert_eq!(sorted.len, reference.len());
            if step % 97 == 0 {
                assert!(sorted.iter().eq(reference.iter().copied()));
                assert_eq!(
                    sorted.median().to_bits(),
                    median(&mut reference.clone()).to_bits()
                );
                let short = sorted.chunks.iter().filter(|c| c.len() < CHUNK / 2).count();
                assert!(short <= 1 && sorted.chunks.iter().all(|c| c.len() <= 2 * CHUNK));
                // Memory: at most 2 CHUNK + 1 slots a chunk, a chunk per CHUNK / 2 values.
                assert!(sorted.chunks.iter().all(|c| c.capacity() <= 2 * CHUNK + 1));
                assert!(sorted.chunks.len() <= reference.len() / (CHUNK / 2) + 1);
                let lasts: Vec<i64> = sorted.chunks.iter().map(|c| c[c.len() - 1]).collect();
                assert_eq!(sorted.lasts, lasts);
            }
        }
        assert!(reference.is_empty() && sorted.chunks.is_empty());
        assert!(!sorted.remove(1.0));
        sorted.insert(2.0);
        assert!(!sorted.remove(1.0) && !sorted.remove(3.0) && sorted.remove(2.0));
    }

    #[test]
    fn synced_step_by_step_or_at_once_the_model_is_the_same() {
        // Durations at random (some attempts never reach the last levels), synced after
        // every few attempts (the incremental path, with attempts replaced in the ring), or
        // never (the model taken from the ring), or once at the end (a new sort): the
        // sorted times are the ring's, and the models are equal.
        let mut stepwise = ProgressHistory::new();
        let mut never = ProgressHistory::new();
        let mut gaps = numbers(3);
        let (mut until_sync, mut syncs) = (0, 0);
        for (i, x) in numbers(5)
            .take(WINDOW + 3 * MAX_PENDING as usize)
            .enumerate()
        {
            let duration = 10.0 + (x * 40.0).round();
            let trajectory = if i % 5 == 0 {
                vec![(0.5 * duration, 0.5), (duration, 0.9)]
            } else {
                linear(duration).to_vec()
            };
            stepwise.add_trajectory(StageId(0), trajectory.iter().copied());
            never.add_trajectory(StageId(0), trajectory);
            if until_sync == 0 {
                stepwise.sync_stage(StageId(0));
                until_sync = (gaps.next().expect("endless") * 8.0) as usize;
                syncs += 1;
                let stage = &stepwise.stages[&0];
                for (level, sorted) in stage.sorted.iter().enumerate().filter(|_| syncs % 40 == 0) {
                    let mut ring: Vec<f64> = stage.ring.iter().map(|t| t[level]).collect();
                    ring.sort_by(f64::total_cmp);
                    assert!(sorted.iter().eq(ring), "level {level} after {i}");
                }
            } else {
                until_sync -= 1;
            }
        }
        stepwise.sync();
        let mut at_once = never.clone();
        at_once.sync();
        for segments in [1, 3, 50] {
            let model = never.model(StageId(0), segments);
            assert!(model.is_some());
            assert_eq!(stepwise.model(StageId(0), segments), model);
            assert_eq!(at_once.model(StageId(0), segments), model);
        }
    }

    #[test]
    fn merging_is_learning_one_history_then_the_other() {
        // Histories of W / 2 + 3 and W + 5 attempts, merged both ways: each equals the
        // history that learnt the two sequences in that order.
        let first: Vec<_> = (0..WINDOW / 2 + 3)
            .map(|i| linear(1.0 + i as f64))
            .collect();
        let second: Vec<_> = (0..WINDOW + 5)
            .map(|i| linear(0.5 + 3.0 * i as f64))
            .collect();
        let learnt = |parts: &[&[[(f64, f64); 2]]]| {
            let mut history = ProgressHistory::new();
            for trajectory in parts.iter().flat_map(|part| part.iter()) {
                history.add_trajectory(StageId(1), *trajectory);
            }
            history
        };
        let (a, b) = (learnt(&[&first]), learnt(&[&second]));
        let (mut ab, mut ba) = (a.clone(), b.clone());
        ab.merge(&b);
        ba.merge(&a);
        for (merged, expected) in [
            (&ab, learnt(&[&first, &second])),
            (&ba, learnt(&[&second, &first])),
        ] {
            assert_eq!(merged.attempts(StageId(1)), expected.attempts(StageId(1)));
            let (ours, theirs) = (&merged.stages[&1], &expected.stages[&1]);
            assert!(ours.in_order().eq(theirs.in_order()));
            assert_eq!(merged.model(StageId(1), 3), expected.model(StageId(1), 3));
        }
        // The order matters: the two windows hold different attempts.
        assert_ne!(ab.model(StageId(1), 1), ba.model(StageId(1), 1));
    }
}
