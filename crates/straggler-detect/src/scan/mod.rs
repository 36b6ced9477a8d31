//! The two building blocks of every scan, each with a sequential and a parallel path that
//! give bit-identical results: per-group sums and row filtering.
//!
//! Floating-point addition is not associative, so a parallel sum whose split depends on the
//! number of threads could flag a row that a sequential scan does not (a task whose
//! progress sits exactly at the threshold). Here both paths split the rows into the same
//! fixed chunks (of [`chunk_len`] rows, which depends on the data only), sum each chunk from
//! zero in an order fixed by the data ([`GroupSums`]), and add the chunk sums in chunk
//! order. Only who computes a chunk differs.
//!
//! The innermost loops (a run's sums, a run's rows below a bar, a column of rates) are in
//! `kernels.rs`, the crate's one module of `unsafe` code.

#[allow(unsafe_code)]
mod kernels;

pub(crate) use kernels::{CLOSE_ABSOLUTE, CLOSE_RELATIVE};
use kernels::{LANES, Lanes, Summand};
pub(crate) use kernels::{count_below, keep_marked};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use straggler_model::{AttemptRole, Snapshot, TaskId};

/// The progress column with each task once, at its original attempt: a copy's row NaN,
/// which sums leave out and no bar keeps. The column itself when the snapshot has no copy
/// (the common case, checked by a count); otherwise written into `buf`.
pub(crate) fn originals_progress<'a>(snapshot: &'a Snapshot, buf: &'a mut Vec<f64>) -> &'a [f64] {
    if snapshot.copy_count() == 0 {
        return snapshot.progress();
    }
    buf.clear();
    buf.extend(
        snapshot
            .progress()
            .iter()
            .zip(snapshot.roles())
            .map(|(&p, &role)| match role {
                AttemptRole::Original => p,
                AttemptRole::Speculative => f64::NAN,
            }),
    );
    buf
}

/// The most rows per chunk of a scan of up to 128 groups (more take 32 rows per group):
/// see [`chunk_len`].
pub(crate) const CHUNK: usize = 4096;

/// Rows per chunk for `rows` rows of `group_count` groups: the rows cut into the fewest
/// chunks of at most `max(CHUNK, 32 x group_count)` rows (32 rows per group, so that the
/// per-chunk arrays of group sums, cleared and added up once per chunk, stay small beside
/// the rows they summarise), all of one length rounded up to a multiple of 64 rows (the
/// last shorter), so that threads taking chunks in turn finish together: 10^6 rows of 10^4
/// groups in chunks of 320,000 left one thread of two a chunk of 40,000 rows while the
/// other ran a whole one (measurements in `docs/scan-measurements.md`). It depends on the data only, never on the number of threads, so sums do not
/// either.
pub(crate) fn chunk_len(group_count: usize, rows: usize) -> usize {
    let longest = CHUNK.max(32 * group_count);
    let chunks = rows.div_ceil(longest).max(1);
    rows.div_ceil(chunks).next_multiple_of(64).max(64)
}

/// Whether a scan runs on one thread or on rayon's pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// Always on the calling thread.
    Sequential,
    /// Always on rayon's pool.
    Parallel,
    /// In parallel when the snapshot has at least `min_rows` rows.
    Auto {
        /// The size from which the scan goes parallel.
        min_rows: usize,
    },
}

impl Default for Parallelism {
    /// Parallel from 262 144 rows. On the 2-core machines this project is measured on,
    /// waking the pool's threads for a parallel pass costs tens of microseconds; when this
    /// threshold was set (2026-11-25), Default's, LATE's and Hierarchical's scans of 10^5
    /// rows were faster on one thread (`cargo xtask bench scans`: 0.86, 2.17 and 4.04 ns
    /// per row, against 0.92, 4.14 and 6.87 on the pool).
    fn default() -> Self {
        Parallelism::Auto { min_rows: 1 << 18 }
    }
}

impl Parallelism {
    /// Whether a scan over `rows` rows runs in parallel.
    pub fn is_parallel(self, rows: usize) -> bool {
        match self {
            Parallelism::Sequential => false,
            Parallelism::Parallel => true,
            Parallelism::Auto { min_rows } => rows >= min_rows,
        }
    }

    /// Runs `scan`, a scan over `rows` rows, on a thread of rayon's pool when it runs in
    /// parallel and the calling thread is not one of the pool's already; otherwise on the
    /// calling thread. A parallel pass started from outside the pool wakes it and waits
    /// for it, tens of microseconds on the 2-core machines this project is measured on;
    /// started from inside, it only offers work to the other threads. So a scan of several
    /// parallel passes wakes the pool once, not once per pass (`rayon::join` of two empty
    /// closures from outside the pool took 18 us on such a machine; measurements in
    /// `docs/scan-measurements.md`). What it computes is the same.
    pub fn on_pool<R: Send>(self, rows: usize, scan: impl FnOnce() -> R + Send) -> R {
        if self.is_parallel(rows) && rayon::current_thread_index().is_none() {
            rayon::scope(|_| scan())
        } else {
            scan()
        }
    }
}

/// Sum, count and largest value of the defined (not NaN) values of one group, as
/// [`GroupSums`] gives them. An empty group has sum 0, count 0 and largest value
/// `-inf`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct GroupSum {
    /// The sum of the group's defined values.
    pub sum: f64,
    /// How many they are.
    pub count: u64,
    /// The largest of them.
    pub max: f64,
}

impl Default for GroupSum {
    fn default() -> Self {
        GroupSum {
            sum: 0.0,
            count: 0,
            max: f64::NEG_INFINITY,
        }
    }
}

impl GroupSum {
    /// The mean of the group's values, `None` for an empty group (NaN if they hold
    /// infinities of both signs, whose sum is NaN).
    ///
    /// Kept at or below the group's largest value: a rounded `sum / count` can be above
    /// every value (`(0.1 + 0.1 + 0.1) / 3 = 0.10000000000000002`), and a mean above
    /// every value would make identical tasks stragglers of each other. A mean rounded
    /// below the smallest value needs no bound: every rule that uses these means flags a
    /// value below the mean minus a margin of zero or more, and no value is below it.
    pub fn mean(self) -> Option<f64> {
        (self.count > 0).then(|| self.mean_or_nan())
    }

    /// [`GroupSum::mean`], NaN for an empty group (`0 / 0`, which no bound changes), without
    /// a branch: a loop over the groups of a scan of many nodes runs as vectors.
    #[inline(always)]
    fn mean_or_nan(self) -> f64 {
        // A count is far below 2^63, where `i64` converts exactly, and in one instruction
        // (`u64` takes several on x86_64 before AVX-512).
        let mean = self.sum / self.count as i64 as f64;
        // By comparison (a NaN mean stays NaN): cheaper than `f64::min`.
        if mean > self.max { self.max } else { mean }
    }

    /// The sums of the defined values of `values`, taken as those of one run of a group
    /// ([`GroupSums`]): value `i` in lane `i % LANES`, the lanes added pairwise. In one
    /// pass that leaves undefined values out, which gives the bits of [`add_run`]: the
    /// values summed here (nodes' performances) are often undefined (a node running
    /// nothing), and `add_run` would then sum them twice.
    pub(crate) fn of_run(values: &[f64]) -> GroupSum {
        let mut sums = GroupSum::default();
        add_run_leaving_out_undefined(values, Summand::Value, &mut sums);
        sums
    }

    /// Adds one value, unless it is undefined (NaN).
    #[inline(always)]
    fn add(&mut self, value: f64) {
        if !value.is_nan() {
            self.sum += value;
            self.count += 1;
            self.max = if value > self.max { value } else { self.max };
        }
    }

    /// Adds the sums of another part of the group (a later chunk).
    fn merge(&mut self, other: &GroupSum) {
        self.sum += other.sum;
        self.count += other.count;
        self.max = if other.max > self.max {
            other.max
        } else {
            self.max
        };
    }
}

/// What [`GroupSums`] adds for each row: its value, or the square of its distance to its
/// group's centre (LATE's second pass, Eq. 9).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Summands<'a> {
    /// The value itself.
    Values,
    /// `(v - centres[g])^2` for a row of group `g` (NaN, so left out, when `g` has no
    /// centre or its centre is NaN).
    SquaredDeviations { centres: &'a [f64] },
    /// `v^2`, the square of the value (its squared distance to zero).
    Squares,
}

impl Summands<'_> {
    /// What the rows of group `g` add.
    #[inline(always)]
    fn of_group(self, g: usize) -> Summand {
        match self {
            Summands::Values => Summand::Value,
            Summands::SquaredDeviations { centres } => Summand::SquaredDeviation {
                centre: centres.get(g).copied().unwrap_or(f64::NAN),
            },
            Summands::Squares => Summand::SquaredDeviation { centre: 0.0 },
        }
    }
}

/// Per-group sums: for each of `group_count` groups, the sum, count and largest value of
/// the `Summands` of the rows of that group (`groups[row]`) where they are defined (not
/// NaN). `values` is a stored column or one computed as it is read (`Values`,
/// `Rates`). Every group is below `group_count`; with a single group (a snapshot of one
/// stage), the group column is not read. Rows past the shorter of `groups` and `values`
/// are not read.
///
/// The order of the additions is a function of the data only: rows are cut into chunks of
/// `chunk_len` rows, chunks into segments of `SEGMENT` rows; within a segment, into
/// runs of consecutive rows of one group (a snapshot lists a stage's rows together); a
/// run's rows are spread over `LANES` accumulators, row `i` of the run to lane
/// `i % LANES`, the lanes added pairwise (a tree) into the group's chunk sum; the chunk
/// sums are added in chunk order. Only who computes a chunk differs between the sequential
/// and the parallel path.
///
/// Sums over groups whose rows are mixed ([`GroupSums::mixed`], a snapshot's nodes) look
/// for no runs: with two groups or more, each row of a segment is added on its own to its
/// group's chunk sum, in row order. Runs are rare there, and looking for them cost about
/// 0.2 ns per row, a tenth of Hierarchical's scan when it summed its nodes this way (now
/// only its exact rule does).
///
/// A run is first summed without looking for undefined values (the kernels of
/// `kernels.rs`); a NaN in it makes a lane's sum NaN, and only then is the run summed
/// again leaving them out, in the same order. Both give the same bits when no value is
/// undefined, which is the common case (a snapshot's columns are finite).
///
/// A detector outside this crate takes its sums by group with [`GroupSums::sums`]: the
/// same bits on one thread or on rayon's pool, which a sum split by thread would not give
/// (the conformance kit compares a detector's findings both ways).
#[derive(Debug, Clone, Default)]
pub struct GroupSums {
    /// One array of group sums per chunk, when there are several chunks.
    chunks: Vec<Vec<GroupSum>>,
    total: Vec<GroupSum>,
    /// The same for the squares of the values, when [`GroupSums::compute_storing`] is
    /// asked for them.
    square_chunks: Vec<Vec<GroupSum>>,
    square_total: Vec<GroupSum>,
    /// Whether the groups' rows are mixed, not in runs.
    mixed: bool,
}

impl GroupSums {
    /// Sums over groups whose rows are mixed in the snapshot, as its nodes' are; see
    /// [`GroupSums`]. The default is groups whose rows come together, as its stages'.
    pub fn mixed() -> GroupSums {
        GroupSums {
            mixed: true,
            ..GroupSums::default()
        }
    }

    /// The sum, count and largest value of the defined values of each of `group_count`
    /// groups, `groups[row]` being the group of `values[row]`, in an order of additions
    /// that depends on the data only: the same bits with any `parallelism`. (Which order,
    /// [`GroupSums`] describes; it may change from one version to the next, the bits with
    /// it.) Rows past the shorter of `groups` and `values` are not read. The buffers are
    /// kept for the next call, so that a detector that owns one `GroupSums` per sum it
    /// takes allocates nothing once sizes settle.
    ///
    /// # Panics
    ///
    /// If a group read is not below `group_count`, or `group_count` is above 2^32 (groups
    /// are `u32`).
    ///
    /// ```
    /// use straggler_detect::{GroupSums, Parallelism};
    ///
    /// // Two stages' progress rates, one undefined (NaN, left out).
    /// let (stages, rates) = ([0, 0, 0, 1, 1], [0.5, 1.0, f64::NAN, 2.0, 4.0]);
    /// let mut sums = GroupSums::default();
    /// let by_stage = sums.sums(&stages, &rates, 2, Parallelism::Parallel).to_vec();
    /// assert_eq!((by_stage[0].sum, by_stage[0].count, by_stage[0].max), (1.5, 2, 1.0));
    /// assert_eq!(by_stage[1].mean(), Some(3.0));
    /// assert_eq!(sums.sums(&stages, &rates, 2, Parallelism::Sequential), by_stage);
    /// ```
    pub fn sums(
        &mut self,
        groups: &[u32],
        values: &[f64],
        group_count: usize,
        parallelism: Parallelism,
    ) -> &[GroupSum] {
        let rows = groups.len().min(values.len());
        assert!(
            group_count as u64 <= 1 << 32,
            "{group_count} groups: at most 2^32"
        );
        let largest = groups[..rows].iter().copied().max();
        if let Some(group) = largest.filter(|&g| g as usize >= group_count) {
            panic!("group {group} read, of {group_count} groups");
        }
        self.compute(groups, values, group_count, parallelism, Summands::Values)
    }

    /// The sums, in buffers kept from the previous call: a detector owns one `GroupSums`
    /// per sum it takes, so that a scan of a cluster of many nodes allocates nothing once
    /// sizes settle (an array per chunk and scan would cost page faults).
    pub(crate) fn compute(
        &mut self,
        groups: &[u32],
        values: &(impl Values + ?Sized),
        group_count: usize,
        parallelism: Parallelism,
        summands: Summands<'_>,
    ) -> &[GroupSum] {
        self.compute_with(
            groups,
            values,
            group_count,
            parallelism,
            summands,
            None,
            false,
        )
    }

    /// [`GroupSums::compute`] over rates, which are also written into `out` (one per row,
    /// NaN for a row without one) as they are summed: a column that later passes read is
    /// computed and summed in one pass over the snapshot, and the sums are those of
    /// `compute` over the stored column, bit for bit. With `squares`, the same pass also
    /// sums the [`Summands::Squares`] of the rates ([`GroupSums::sums_and_squares`]), as `compute`
    /// over the stored column would.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute_storing(
        &mut self,
        groups: &[u32],
        rates: &(impl Values + ?Sized),
        group_count: usize,
        parallelism: Parallelism,
        summands: Summands<'_>,
        out: &mut Vec<f64>,
        squares: bool,
    ) -> &[GroupSum] {
        // Every slot is written: resized, not cleared, so that a buffer kept from the
        // previous scan of as many rows is not filled twice.
        out.resize(groups.len().min(rates.len()), 0.0);
        self.compute_with(
            groups,
            rates,
            group_count,
            parallelism,
            summands,
            Some(out),
            squares,
        )
    }

    /// The sums of the last computation, and those of the squares if it was asked for them
    /// (empty otherwise).
    pub(crate) fn sums_and_squares(&self) -> (&[GroupSum], &[GroupSum]) {
        (&self.total, &self.square_total)
    }

    /// [`GroupSums::compute`], the values of each segment computed into `store` (as long as
    /// the rows) when there is one, else into a buffer on the stack; with `squares`, the
    /// squares of the values summed too, into `square_total`.
    #[allow(clippy::too_many_arguments)]
    fn compute_with(
        &mut self,
        groups: &[u32],
        values: &(impl Values + ?Sized),
        group_count: usize,
        parallelism: Parallelism,
        summands: Summands<'_>,
        store: Option<&mut [f64]>,
        squares: bool,
    ) -> &[GroupSum] {
        let rows = groups.len().min(values.len());
        let len = chunk_len(group_count, rows);
        let mixed = self.mixed;
        let empty = GroupSum::default();
        let square_count = if squares { group_count } else { 0 };
        let chunk_sums = |chunk: usize,
                          (sums, square_sums): (&mut Vec<GroupSum>, &mut Vec<GroupSum>),
                          mut stored: Option<&mut [f64]>| {
            sums.clear();
            sums.resize(group_count, empty);
            square_sums.clear();
            square_sums.resize(square_count, empty);
            let chunk_rows = chunk * len..((chunk + 1) * len).min(rows);
            if group_count == 1
                && stored.is_none()
                && let Some(column) = values.stored(chunk_rows.clone())
            {
                add_segments(column, summands.of_group(0), &mut sums[0]);
                if squares {
                    add_segments(column, Summands::Squares.of_group(0), &mut square_sums[0]);
                }
                return;
            }
            // Where a computed column's segments go without a store: on the stack, set
            // once per chunk that needs it.
            let mut stack = None;
            for start in chunk_rows.clone().step_by(SEGMENT) {
                let segment = start..(start + SEGMENT).min(chunk_rows.end);
                // A computed column of one group, summed plainly, is added to its lanes
                // as it is computed (`Values::write_adding`): one run, the segment.
                let adding = group_count == 1 && matches!(summands, Summands::Values);
                let (mut lanes, mut square_lanes) = (Lanes::EMPTY, Lanes::EMPTY);
                let mut write = |slots: &mut [f64]| {
                    if adding {
                        let square_lanes = squares.then_some(&mut square_lanes);
                        values.write_adding(segment.clone(), slots, &mut lanes, square_lanes);
                    } else {
                        values.write(segment.clone(), slots);
                    }
                };
                let (values, added) = match (stored.as_deref_mut(), values.stored(segment.clone()))
                {
                    (None, Some(values)) => (values, false),
                    (Some(chunk_store), _) => {
                        let slots = &mut chunk_store
                            [start - chunk_rows.start..segment.end - chunk_rows.start];
                        write(slots);
                        (&*slots, adding)
                    }
                    (None, None) => {
                        let slots = &mut stack.get_or_insert([0.0; SEGMENT])[..segment.len()];
                        write(slots);
                        (&*slots, adding)
                    }
                };
                if added {
                    fold_run(values, Summand::Value, &lanes, &mut sums[0]);
                    if squares {
                        let square = Summands::Squares.of_group(0);
                        fold_run(values, square, &square_lanes, &mut square_sums[0]);
                    }
                    continue;
                }
                for (summands, sums) in [(summands, &mut *sums), (Summands::Squares, square_sums)]
                    .into_iter()
                    .take(1 + usize::from(squares))
                {
                    if group_count == 1 {
                        add_run(values, summands.of_group(0), &mut sums[0]);
                    } else if mixed {
                        sum_rows(&groups[segment.clone()], values, sums, summands);
                    } else {
                        sum_runs(&groups[segment.clone()], values, sums, summands);
                    }
                }
            }
        };
        // Each chunk's part of the store, if any.
        let mut stores = store.map(|store| store[..rows].chunks_mut(len));
        let mut next_store = || stores.as_mut().and_then(Iterator::next);
        let chunks = rows.div_ceil(len);
        if chunks <= 1 {
            // One chunk: its sums are the total (`0 + s = s`).
            chunk_sums(0, (&mut self.total, &mut self.square_total), next_store());
            return &self.total;
        }
        self.chunks.resize_with(chunks, Vec::new);
        self.square_chunks.resize_with(chunks, Vec::new);
        let per_chunk = &mut self.chunks[..chunks];
        let square_chunks = &mut self.square_chunks[..chunks];
        if parallelism.is_parallel(rows) {
            let stores: Vec<_> = (0..chunks).map(|_| next_store()).collect();
            per_chunk
                .par_iter_mut()
                .zip(square_chunks.par_iter_mut())
                .zip(stores)
                .enumerate()
                .for_each(|(chunk, (sums, stored))| chunk_sums(chunk, sums, stored));
        } else {
            for (chunk, sums) in per_chunk
                .iter_mut()
                .zip(square_chunks.iter_mut())
                .enumerate()
            {
                chunk_sums(chunk, sums, next_store());
            }
        }
        for (total, per_chunk, count) in [
            (&mut self.total, &*per_chunk, group_count),
            (&mut self.square_total, &*square_chunks, square_count),
        ] {
            total.clear();
            total.resize(count, empty);
            for sums in per_chunk {
                for (t, s) in total.iter_mut().zip(sums) {
                    t.merge(s);
                }
            }
        }
        &self.total
    }
}

/// Per-group sums and counts of rates ([`Rates`]), `[sum, count]` per group, without the
/// largest values that [`GroupSums`] keeps: where the rows of many groups are mixed (a
/// snapshot's nodes), the least a sum by group costs, one 16-byte read, addition and write
/// per row, as each rate is computed ([`kernels::rates_by_group`]).
///
/// The rows of each chunk of [`chunk_len`] rows are added in row order to the chunk's
/// totals, and the chunks' totals are added in chunk order, on one thread or on rayon's
/// pool: the same bits either way.
///
/// [`RateTotals::means`] divides the totals and leaves them at zero as it reads them
/// ([`kernels::divide_totals`]), and the chunks' totals are left at zero as they are added
/// up, so the next sums start on cleared totals without a pass to clear them: for 10^4
/// rows on 10^4 nodes, that pass took a tenth of Hierarchical's scan.
#[derive(Debug, Clone)]
pub(crate) struct RateTotals {
    /// One array of totals per chunk, when there are several chunks.
    chunks: Vec<Vec<[f64; 2]>>,
    total: Vec<[f64; 2]>,
    /// Whether every total, in `total` and in `chunks`, is `[+0.0, +0.0]`: after
    /// [`RateTotals::means`], not after
    /// [`RateTotals::compute`] (nor after a call interrupted by a panic).
    cleared: bool,
}

impl Default for RateTotals {
    fn default() -> Self {
        RateTotals {
            chunks: Vec::new(),
            total: Vec::new(),
            cleared: true,
        }
    }
}

impl RateTotals {
    /// Each group's `sum / count` into `out`, NaN for an empty group, and the sums of those
    /// means ([`total_means`]), from the totals [`RateTotals::compute`] gives; the totals
    /// are left at zero for the next call.
    pub(crate) fn means(
        &mut self,
        groups: &[u32],
        rates: &Rates<'_>,
        group_count: usize,
        parallelism: Parallelism,
        out: &mut Vec<f64>,
    ) -> GroupSum {
        self.compute(groups, rates, group_count, parallelism);
        let sums = total_means(&mut self.total, out);
        self.cleared = true;
        sums
    }

    /// The totals of `group_count` groups, `groups[row]` being the group of each row, in
    /// buffers kept from the previous call. Rows past the shorter of `groups` and `rates`
    /// are not read; every group is below `group_count`.
    pub(crate) fn compute(
        &mut self,
        groups: &[u32],
        rates: &Rates<'_>,
        group_count: usize,
        parallelism: Parallelism,
    ) -> &[[f64; 2]] {
        if !std::mem::replace(&mut self.cleared, false) {
            self.total.fill([0.0; 2]);
            for totals in &mut self.chunks {
                totals.fill([0.0; 2]);
            }
        }
        let rows = groups.len().min(rates.len());
        let len = chunk_len(group_count, rows);
        let chunk_totals = |chunk: usize, totals: &mut Vec<[f64; 2]>| {
            // As long as the groups, at zero (new ones too), as `rates_by_group` needs.
            totals.resize(group_count, [0.0; 2]);
            totals.truncate(group_count);
            let rows = chunk * len..((chunk + 1) * len).min(rows);
            kernels::rates_by_group(
                rates.now_secs,
                &rates.progress[rows.clone()],
                rates.weights.map(|w| &w[rows.clone()]),
                &rates.start_secs[rows.clone()],
                &groups[rows],
                totals,
            );
        };
        let chunks = rows.div_ceil(len);
        if chunks <= 1 {
            chunk_totals(0, &mut self.total);
            return &self.total;
        }
        self.chunks.resize_with(chunks, Vec::new);
        let per_chunk = &mut self.chunks[..chunks];
        if parallelism.is_parallel(rows) {
            per_chunk
                .par_iter_mut()
                .enumerate()
                .for_each(|(chunk, totals)| chunk_totals(chunk, totals));
        } else {
            for (chunk, totals) in per_chunk.iter_mut().enumerate() {
                chunk_totals(chunk, totals);
            }
        }
        self.total.clear();
        self.total.resize(group_count, [0.0; 2]);
        for totals in per_chunk.iter_mut() {
            for (t, c) in self.total.iter_mut().zip(totals) {
                let [sum, count] = std::mem::take(c);
                t[0] += sum;
                t[1] += count;
            }
        }
        &self.total
    }
}

/// Groups renumbered densely: each group that a row names gets the next number, in the
/// order of its first row, so that the rows' numbers name as many groups as there are
/// distinct groups in the rows. Where the groups far outnumber the rows (10^3 attempts on
/// 10^4 nodes), sums by number stay in the first-level cache, where sums by group are
/// scattered over every group's, and a pass over the numbers reads the groups that the
/// rows name only.
///
/// Each call writes a group's entry as `base + number`, from a `base` past every entry
/// the calls before wrote (the last call's base plus the numbers it gave): an entry at or
/// above the base was written by this call, and one below it, by an earlier call or
/// cleared, is stale. So the entries are not cleared between calls, only when a base
/// would pass `u32::MAX` (once in some 2^32 numbers given). A row costs one read and one
/// write of its group's entry, 4 bytes, and no branch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Renumbering {
    /// Each group's entry (see above).
    entries: Vec<u32>,
    /// The next call's base, past every entry written; 0 when the entries are to be
    /// cleared first (before the first call, and once a base would pass `u32::MAX`).
    base: u32,
    /// Each row's number.
    numbers: Vec<u32>,
    /// Whether the last [`Renumbering::number_if_it_pays`] numbered the groups.
    numbered: bool,
}

impl Renumbering {
    /// Numbers the groups of the rows, `groups[row]` each, every one below `group_count`,
    /// and returns how many numbers it gave; [`Renumbering::numbers`] holds each row's.
    pub(crate) fn renumber(&mut self, groups: &[u32], group_count: usize) -> usize {
        // Fewer than 2^32 rows (a row is a `u32`); the numbers are below it.
        let rows = u32::try_from(groups.len()).unwrap_or(u32::MAX);
        // Every entry of this call, `base + number`, is at most `base + rows - 1`.
        if self.base == 0 || self.base.checked_add(rows).is_none() {
            self.entries.fill(0);
            self.base = 1;
        }
        let base = self.base;
        self.entries.resize(self.entries.len().max(group_count), 0);
        self.numbers.resize(groups.len(), 0);
        let entries = &mut self.entries[..];
        let mut given = 0;
        for (number, &group) in self.numbers.iter_mut().zip(groups) {
            let entry = entries[group as usize];
            let seen = entry >= base;
            *number = if seen { entry - base } else { given };
            entries[group as usize] = base + *number;
            given += u32::from(!seen);
        }
        // Within `base + rows`, which fits, unless the rows are `2^32 - 1` and the base 1.
        self.base = base.checked_add(given).unwrap_or(0);
        given as usize
    }

    /// Each row's number, from the last [`Renumbering::renumber`].
    pub(crate) fn numbers(&self) -> &[u32] {
        &self.numbers
    }

    /// Numbers the groups of the rows, `groups[row]` each, every one below `group_count`,
    /// where that pays ([`Renumbering::pays`]), for a detector that sums its rows by
    /// group; returns how many groups it sums by: the numbers given, or `group_count`.
    /// [`Renumbering::sum_groups`] gives each row's, and [`Renumbering::found_groups`]
    /// turns what the detector found by them back into groups.
    pub(crate) fn number_if_it_pays(&mut self, groups: &[u32], group_count: usize) -> usize {
        self.numbered = Renumbering::pays(groups.len(), group_count);
        match self.numbered {
            true => self.renumber(groups, group_count),
            false => group_count,
        }
    }

    /// The group each row is summed by after [`Renumbering::number_if_it_pays`] of
    /// `groups` (the same rows): its number, or its group as it is.
    pub(crate) fn sum_groups<'a>(&'a self, groups: &'a [u32]) -> &'a [u32] {
        match self.numbered {
            true => &self.numbers,
            false => groups,
        }
    }

    /// Turns `found`, in increasing order and none twice, of the groups of the last
    /// [`Renumbering::number_if_it_pays`] of `groups` (the same rows) into the groups
    /// they are, in increasing order. Numbers are given in the order of their first rows,
    /// so one pass over the rows meets the first row of each number found in turn.
    pub(crate) fn found_groups(&self, groups: &[u32], found: &mut [u32]) {
        if !self.numbered || found.is_empty() {
            return;
        }
        let mut next = 0;
        for (&number, &group) in self.numbers.iter().zip(groups) {
            if found.get(next) == Some(&number) {
                found[next] = group;
                next += 1;
            }
        }
        found.sort_unstable();
    }

    /// Whether numbering the groups pays: where the rows are fewer than half the groups,
    /// most groups are empty, and sums by group spread over more memory than the
    /// first-level cache holds (a cautious bound: `docs/scan-measurements.md`, *The nodes
    /// numbered*).
    pub(crate) fn pays(rows: usize, group_count: usize) -> bool {
        rows.saturating_mul(2) < group_count
    }
}

/// Replaces `out` with each group's `sum / count` from its [`RateTotals`], NaN for an
/// empty group (unbounded: the totals keep no largest value), and returns the sums of
/// those means, [`GroupSum::of_run`]'s bits, from the same pass
/// ([`kernels::divide_totals`], which leaves every total at zero).
pub(crate) fn total_means(totals: &mut [[f64; 2]], out: &mut Vec<f64>) -> GroupSum {
    out.resize(totals.len(), 0.0);
    let mut lanes = Lanes::EMPTY;
    let mut counts = [0; LANES];
    kernels::divide_totals(totals, out, &mut lanes, &mut counts);
    let mut sums = GroupSum::default();
    fold_into(&lanes, counts.iter().sum(), &mut sums);
    sums
}

/// Replaces `marks` with one byte per value, 1 for a value below `bar` and 0 for another,
/// and returns how many values are in `[bar, high)`. Compiled with the widest vectors the
/// CPU has ([`kernels::with_widest_vectors`]).
pub(crate) fn mark_below(values: &[f64], bar: f64, high: f64, marks: &mut Vec<u8>) -> usize {
    marks.resize(values.len(), 0);
    kernels::with_widest_vectors(|| {
        let mut between = 0;
        for (mark, &v) in marks.iter_mut().zip(values) {
            *mark = u8::from(v < bar);
            between += usize::from((bar <= v) & (v < high));
        }
        between
    })
}

/// Replaces `out` with each group's mean ([`GroupSum::mean`]), NaN for an empty group.
/// Compiled with the widest vectors the CPU has ([`kernels::with_widest_vectors`]): a scan
/// of many nodes waits on these divisions.
pub(crate) fn means(sums: &[GroupSum], out: &mut Vec<f64>) {
    out.resize(sums.len(), 0.0);
    kernels::with_widest_vectors(|| {
        for (mean, s) in out.iter_mut().zip(sums) {
            *mean = s.mean_or_nan();
        }
    });
}

/// Rows whose values [`GroupSums`] takes at once: runs of one group are cut at
/// multiples of it (counted from the chunk's first row), and a computed column ([`Rates`])
/// is computed this many rows at a time, into a buffer that stays in the first-level cache.
const SEGMENT: usize = 1024;

/// Adds the values of one segment to `sums`, run by run; see [`GroupSums`].
///
/// Never inlined: compiled on its own, the loop keeps its lanes in registers; inlined into
/// the loop over segments, it ran at about half the speed.
#[inline(never)]
fn sum_runs(groups: &[u32], values: &[f64], sums: &mut [GroupSum], summands: Summands<'_>) {
    // One loop per kind of summand, so that the plain sum's loop has no choice in it.
    match summands {
        Summands::Values => sum_runs_of(groups, values, sums, |_| Summand::Value),
        Summands::SquaredDeviations { .. } | Summands::Squares => {
            sum_runs_of(groups, values, sums, |g| summands.of_group(g));
        }
    }
}

/// Adds the values of one segment of mixed groups to `sums`, each row on its own, in row
/// order; see [`GroupSums`].
#[inline(never)]
fn sum_rows(groups: &[u32], values: &[f64], sums: &mut [GroupSum], summands: Summands<'_>) {
    let rows = groups.iter().map(|&g| g as usize).zip(values);
    match summands {
        Summands::Values => rows.for_each(|(g, &v)| sums[g].add(v)),
        Summands::SquaredDeviations { .. } | Summands::Squares => {
            rows.for_each(|(g, &v)| sums[g].add(summands.of_group(g).of(v)));
        }
    }
}

/// [`sum_runs`] with the summand of each group.
#[inline(always)]
fn sum_runs_of(
    groups: &[u32],
    values: &[f64],
    sums: &mut [GroupSum],
    summand_of: impl Fn(usize) -> Summand,
) {
    let end = groups.len().min(values.len());
    // As long as each other, so that the compiler drops the bounds checks.
    let (groups, values) = (&groups[..end], &values[..end]);
    let mut row = 0;
    // Every row but the last has a next one to compare with: no check for the end in the
    // loop of the rows of many nodes, mixed.
    while row + 1 < end {
        let g = groups[row] as usize;
        if groups[row + 1] as usize != g {
            // A run of one row: its lanes would add up to `v` plus zeros, which is `v`;
            // added directly, bit for bit the same.
            sums[g].add(summand_of(g).of(values[row]));
            row += 1;
            continue;
        }
        let run_end = run_end(groups, row);
        add_run(&values[row..run_end], summand_of(g), &mut sums[g]);
        row = run_end;
    }
    if row < end {
        let g = groups[row] as usize;
        sums[g].add(summand_of(g).of(values[row]));
    }
}

/// The end of the run of rows of `groups[start]`'s group that starts at `start`.
#[inline(always)]
fn run_end(groups: &[u32], start: usize) -> usize {
    const BLOCK: usize = 16;
    let group = groups[start];
    let end = groups.len();
    let mut run_end = start + 1;
    if run_end == end || groups[run_end] != group {
        return run_end;
    }
    // Blocks of BLOCK rows of the group, compared at once, then row by row.
    while run_end + BLOCK <= end
        && groups[run_end..run_end + BLOCK]
            .iter()
            .fold(true, |same, &g| same & (g == group))
    {
        run_end += BLOCK;
    }
    while run_end < end && groups[run_end] == group {
        run_end += 1;
    }
    run_end
}

/// Adds the summands of one run of one group to its sums: the run's row `i` in lane
/// `i % LANES`, then the lanes, pairwise; see [`GroupSums`].
#[inline(always)]
fn add_run(values: &[f64], summand: Summand, group: &mut GroupSum) {
    let mut lanes = Lanes::EMPTY;
    kernels::add_run(values, summand, &mut lanes);
    fold_run(values, summand, &lanes, group);
}

/// Adds the summands of a chunk of a stored column of one group to `group`, segment by
/// segment, each segment a run ([`GroupSums`]), two segments at a time
/// ([`kernels::add_run_pair`]): the same bits as one segment after the other.
fn add_segments(column: &[f64], summand: Summand, group: &mut GroupSum) {
    for pair in column.chunks(2 * SEGMENT) {
        let (a, b) = pair.split_at(pair.len().min(SEGMENT));
        let (mut lanes_a, mut lanes_b) = (Lanes::EMPTY, Lanes::EMPTY);
        kernels::add_run_pair(a, b, summand, &mut lanes_a, &mut lanes_b);
        fold_run(a, summand, &lanes_a, group);
        if !b.is_empty() {
            fold_run(b, summand, &lanes_b, group);
        }
    }
}

/// Adds to `group` the lanes of a run, `lanes` holding the summands of `values` added into
/// empty lanes ([`kernels::add_run`]); if a lane's sum is NaN (an undefined value), the run
/// is summed again, leaving them out.
#[inline(always)]
fn fold_run(values: &[f64], summand: Summand, lanes: &Lanes, group: &mut GroupSum) {
    if lanes.sum.iter().any(|s| s.is_nan()) {
        add_run_leaving_out_undefined(values, summand, group);
        return;
    }
    fold_into(lanes, values.len() as u64, group);
}

/// [`add_run`] for a run with an undefined value: the same lanes, an undefined value
/// adding `-0.0` (which leaves every sum as it was, `-0.0` included) and nothing to the
/// count ([`kernels::add_run_defined`]). Kept out of line: beside the common case it would
/// cost registers.
#[inline(never)]
fn add_run_leaving_out_undefined(values: &[f64], summand: Summand, group: &mut GroupSum) {
    let mut lanes = Lanes::EMPTY;
    let mut counts = [0; LANES];
    kernels::add_run_defined(values, summand, &mut lanes, &mut counts);
    fold_into(&lanes, counts.iter().sum(), group);
}

/// Adds a run's lanes, holding `count` values, to `group`: lanes paired in a fixed order
/// (a tree).
#[inline(always)]
fn fold_into(lanes: &Lanes, count: u64, group: &mut GroupSum) {
    let s = lanes.sum;
    group.sum += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    group.count += count;
    group.max = lanes
        .max
        .iter()
        .fold(group.max, |m, &v| if v > m { v } else { m });
}

/// A column of values for [`GroupSums`]: stored (`[f64]`), or computed a segment at a
/// time ([`Rates`]), so that a sum over a per-row quantity need not store it first.
pub(crate) trait Values: Sync {
    /// The rows of the column.
    fn len(&self) -> usize;
    /// The values of `rows`, if the column is stored.
    fn stored(&self, rows: std::ops::Range<usize>) -> Option<&[f64]>;
    /// Writes the values of `rows` into `slots` (as long).
    fn write(&self, rows: std::ops::Range<usize>, slots: &mut [f64]);
    /// [`Values::write`], the values also added to `lanes` as one run
    /// ([`kernels::add_run`]), and their squares to `squares` if given.
    fn write_adding(
        &self,
        rows: std::ops::Range<usize>,
        slots: &mut [f64],
        lanes: &mut Lanes,
        squares: Option<&mut Lanes>,
    ) {
        self.write(rows, slots);
        kernels::add_run(slots, Summand::Value, lanes);
        if let Some(squares) = squares {
            kernels::add_run(slots, Summands::Squares.of_group(0), squares);
        }
    }
    /// Whether a value written so far may differ from the exact one ([`CloseRates`]).
    fn approximated(&self) -> bool {
        false
    }
}

impl Values for [f64] {
    fn len(&self) -> usize {
        <[f64]>::len(self)
    }
    #[inline(always)]
    fn stored(&self, rows: std::ops::Range<usize>) -> Option<&[f64]> {
        Some(&self[rows])
    }
    fn write(&self, rows: std::ops::Range<usize>, slots: &mut [f64]) {
        slots.copy_from_slice(&self[rows]);
    }
}

/// Rows per block of [`filter_rows`]: blocks are filtered independently (in parallel or
/// not) and their kept rows joined in block order.
const FILTER_BLOCK: usize = 1 << 14;

/// Appends to `out`, in increasing order, the rows `0..len` for which `keep` is true.
///
/// Without a branch on `keep`: the answers for 64 rows are gathered as the bits of a word,
/// then the set bits (few: a detector flags few rows) are written out, so an unpredictable
/// `keep` costs no misprediction and the loop over rows stores nothing.
pub(crate) fn filter_rows(
    len: usize,
    parallelism: Parallelism,
    keep: impl Fn(usize) -> bool + Sync,
    out: &mut Vec<u32>,
) {
    filter_words(len, parallelism, out, |rows| {
        bits(rows.len(), |i| keep(rows.start + i))
    });
}

/// Appends to `out`, in increasing order, the rows `0..len` whose bit is set in the words
/// `word(rows)` returns for `rows` = `0..64`, `64..128`, ... (the last range shorter).
///
/// In parallel, in two passes over blocks of [`FILTER_BLOCK`] rows: the first computes
/// each block's words and counts their bits, the second writes each block's rows into its
/// own part of `out`, placed by the counts before it. Nothing is allocated per block, and
/// the rows come out as the sequential pass writes them.
fn filter_words(
    len: usize,
    parallelism: Parallelism,
    out: &mut Vec<u32>,
    word: impl Fn(std::ops::Range<usize>) -> u64 + Sync,
) {
    let word_at = |start: usize| word(start..(start + 64).min(len));
    if !parallelism.is_parallel(len) {
        for start in (0..len).step_by(64) {
            out.extend(set_rows(word_at(start), start));
        }
        return;
    }
    const WORDS_PER_BLOCK: usize = FILTER_BLOCK / 64;
    let mut words = vec![0u64; len.div_ceil(64)];
    let kept: Vec<usize> = words
        .par_chunks_mut(WORDS_PER_BLOCK)
        .enumerate()
        .map(|(block, words)| {
            let first = block * FILTER_BLOCK;
            let mut kept = 0;
            for (i, slot) in words.iter_mut().enumerate() {
                *slot = word_at(first + 64 * i);
                kept += slot.count_ones() as usize;
            }
            kept
        })
        .collect();
    let at = out.len();
    out.resize(at + kept.iter().sum::<usize>(), 0);
    let mut parts = Vec::with_capacity(kept.len());
    let mut rest = &mut out[at..];
    for &count in &kept {
        let (part, tail) = rest.split_at_mut(count);
        parts.push(part);
        rest = tail;
    }
    words
        .par_chunks(WORDS_PER_BLOCK)
        .zip(parts)
        .enumerate()
        .for_each(|(block, (words, part))| {
            let first = block * FILTER_BLOCK;
            let rows = words
                .iter()
                .enumerate()
                .flat_map(|(i, &word)| set_rows(word, first + 64 * i));
            for (slot, row) in part.iter_mut().zip(rows) {
                *slot = row;
            }
        });
}

/// The rows `start + i` for the set bits `i` of `word`, in increasing order.
#[inline(always)]
fn set_rows(word: u64, start: usize) -> impl Iterator<Item = u32> {
    set_bits(word).map(move |i| (start + i) as u32)
}

/// The positions of the set bits of `word`, in increasing order.
#[inline(always)]
pub(crate) fn set_bits(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let bit = word.trailing_zeros() as usize;
            word &= word - 1;
            bit
        })
    })
}

/// Appends to `out`, in increasing order, the rows whose value is below the bar of their
/// group: `values[row] < bars[groups[row]]`. A NaN value or bar is never kept, nor is a row
/// of a group without a bar (`groups[row] >= bars.len()`); with a single bar, the group
/// column is not read. The rule of Default and LATE.
///
/// Block by block ([`RowBlocks`]), and within a block run by run (a snapshot lists a
/// stage's rows together): the rows of a run compare with one bar; outside AVX-512, their
/// answers are gathered 64 to a word, whose kept rows are written one set bit at a time
/// when they are few and eight rows at a time from a table otherwise
/// (`kernels::write_below_settling`).
pub(crate) fn rows_below(
    values: &[f64],
    groups: &[u32],
    bars: &[f64],
    parallelism: Parallelism,
    blocks: &mut RowBlocks,
    out: &mut Vec<u32>,
) {
    rows_below_settling::<false>(values, groups, bars, bars, parallelism, blocks, out);
}

/// [`rows_below`], and with `SETTLE`, the number of rows appended that are not below the
/// low bar of their group too (`lows[groups[row]]`; LATE's candidates that its bounds leave
/// unsettled); without, 0, and `lows` is not read.
pub(crate) fn rows_below_settling<const SETTLE: bool>(
    values: &[f64],
    groups: &[u32],
    bars: &[f64],
    lows: &[f64],
    parallelism: Parallelism,
    blocks: &mut RowBlocks,
    out: &mut Vec<u32>,
) -> usize {
    let len = values.len().min(groups.len());
    let unsettled = std::sync::atomic::AtomicUsize::new(0);
    let low_of = |g: usize| lows.get(g).copied().unwrap_or(f64::NAN);
    let write = |rows: std::ops::Range<usize>, slots: &mut [u32]| {
        let (count, rows_unsettled) = if let [bar] = *bars {
            let values = &values[rows.clone()];
            kernels::write_below_settling::<SETTLE>(
                values,
                bar,
                low_of(0),
                rows.start as u32,
                slots,
            )
        } else {
            let groups = &groups[..rows.end];
            let (mut row, mut count, mut unsettled) = (rows.start, 0, 0);
            while row < rows.end {
                let end = run_end(groups, row);
                let g = groups[row] as usize;
                let (bar, low) = (bars.get(g).copied().unwrap_or(f64::NAN), low_of(g));
                if end - row < SHORT_RUN {
                    // Short runs (the rows of many stages, mixed) one row at a time, each
                    // written and counted if kept: the kernel's gathering costs more than
                    // it saves there.
                    for (r, &v) in values[row..end].iter().enumerate() {
                        slots[count] = (row + r) as u32;
                        count += usize::from(v < bar);
                        unsettled += usize::from(SETTLE && kernels::unsettled_by(v, bar, low));
                    }
                } else {
                    let (run, slots) = (&values[row..end], &mut slots[count..]);
                    let (kept, run_unsettled) =
                        kernels::write_below_settling::<SETTLE>(run, bar, low, row as u32, slots);
                    count += kept;
                    unsettled += run_unsettled;
                }
                row = end;
            }
            (count, unsettled)
        };
        if SETTLE {
            unsettled.fetch_add(rows_unsettled, std::sync::atomic::Ordering::Relaxed);
        }
        count
    };
    blocks.append(len, parallelism, write, out);
    unsettled.into_inner()
}

/// The buffers of a filter's blocks, kept between scans: a filter writes each block's kept
/// rows into its own buffer, and they are appended to the output in block order.
///
/// A block's buffer keeps its length from scan to scan, so that a filter writes into it
/// without first clearing or filling it (growing a vector that a scan has emptied writes
/// every slot); appending the kept rows to the output copies only them. In parallel, each
/// block has its own buffer, kept too: a buffer allocated per block and scan cost page
/// faults at 10^6 rows.
#[derive(Debug, Clone, Default)]
pub(crate) struct RowBlocks {
    blocks: Vec<Vec<u32>>,
}

impl RowBlocks {
    /// Appends to `out` the kept rows of `0..len`, in blocks of [`FILTER_BLOCK`] rows (on
    /// rayon's pool when parallel): `write(rows, slots)` writes the kept rows of `rows` at
    /// the start of `slots` (`rows.len() + kernels::SPARE` long at least) and returns how
    /// many it kept.
    pub(crate) fn append(
        &mut self,
        len: usize,
        parallelism: Parallelism,
        write: impl Fn(std::ops::Range<usize>, &mut [u32]) -> usize + Sync,
        out: &mut Vec<u32>,
    ) {
        let block_rows = |block: usize| block * FILTER_BLOCK..((block + 1) * FILTER_BLOCK).min(len);
        let room = len.min(FILTER_BLOCK) + kernels::SPARE;
        let parallel = parallelism.is_parallel(len);
        let buffers = if parallel {
            len.div_ceil(FILTER_BLOCK)
        } else {
            1
        };
        if self.blocks.len() < buffers {
            self.blocks.resize_with(buffers, Vec::new);
        }
        for buffer in &mut self.blocks[..buffers] {
            if buffer.len() < room {
                buffer.resize(room, 0);
            }
        }
        if !parallel {
            let buffer = &mut self.blocks[0];
            for block in 0..len.div_ceil(FILTER_BLOCK) {
                let kept = write(block_rows(block), buffer);
                out.extend_from_slice(&buffer[..kept]);
            }
            return;
        }
        let kept: Vec<usize> = self.blocks[..buffers]
            .par_iter_mut()
            .enumerate()
            .map(|(block, buffer)| write(block_rows(block), buffer))
            .collect();
        let parts: Vec<&[u32]> = (self.blocks.iter().zip(&kept))
            .map(|(buffer, &kept)| &buffer[..kept])
            .collect();
        if kept.iter().sum::<usize>() < PARALLEL_APPEND {
            for part in parts {
                out.extend_from_slice(part);
            }
        } else {
            kernels::append_in_parallel(&parts, out);
        }
    }
}

/// The fewest kept rows that [`RowBlocks::append`] appends on rayon's pool (one block's
/// worth: fewer cost less than waking the pool's threads).
const PARALLEL_APPEND: usize = FILTER_BLOCK;

/// Runs shorter than this are filtered one row at a time by [`rows_below`].
const SHORT_RUN: usize = 32;

/// The word whose bit `i` is `kept(i)`, for `i` in `0..len` (`len` at most 64).
///
/// Built as two 32-bit halves, and with the length a constant for a full word: in that
/// form the compiler turns the answers into vector comparisons and masks, a few times
/// faster than a bit at a time.
#[inline(always)]
fn bits(len: usize, kept: impl Fn(usize) -> bool) -> u64 {
    let half = |rows: std::ops::Range<usize>| {
        let first = rows.start;
        rows.fold(0u32, |word, i| word | (u32::from(kept(i)) << (i - first)))
    };
    let mid = len.min(32);
    if len == 64 {
        u64::from(half(0..32)) | (u64::from(half(32..64)) << 32)
    } else {
        u64::from(half(0..mid)) | (u64::from(half(mid..len)) << 32)
    }
}

/// Replaces `out` with `value(row)` for the rows `0..len`, in blocks on rayon's pool when
/// parallel. Each row's value depends on that row only, so the split changes nothing.
pub(crate) fn map_rows(
    len: usize,
    parallelism: Parallelism,
    out: &mut Vec<f64>,
    value: impl Fn(usize) -> f64 + Sync,
) {
    fill_blocks(len, parallelism, out, |rows, slots| {
        for (slot, row) in slots.iter_mut().zip(rows) {
            *slot = value(row);
        }
    });
}

/// Resizes `out` to `len` and hands its blocks of [`FILTER_BLOCK`] slots, with their rows,
/// to `fill`, which writes every slot; on rayon's pool when parallel.
fn fill_blocks(
    len: usize,
    parallelism: Parallelism,
    out: &mut Vec<f64>,
    fill: impl Fn(std::ops::Range<usize>, &mut [f64]) + Sync,
) {
    // Every slot is written: resized, not cleared, so that a buffer kept from the previous
    // scan of as many rows is not filled twice.
    out.resize(len, 0.0);
    let fill = |(block, slots): (usize, &mut [f64])| {
        let start = block * FILTER_BLOCK;
        fill(start..start + slots.len(), slots);
    };
    if parallelism.is_parallel(len) {
        out.par_chunks_mut(FILTER_BLOCK).enumerate().for_each(fill);
    } else {
        out.chunks_mut(FILTER_BLOCK).enumerate().for_each(fill);
    }
}

/// The rate of every row, `progress x weight / (now - start)` (the weight being 1 without
/// `weights`), NaN for a row without one ([`kernels::rate_or_nan`]). Rows past the shortest column
/// have none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rates<'a> {
    pub(crate) now_secs: f64,
    pub(crate) progress: &'a [f64],
    pub(crate) weights: Option<&'a [f64]>,
    pub(crate) start_secs: &'a [f64],
}

impl Rates<'_> {
    /// Writes the rates of `rows` into `slots` (as long).
    #[inline(always)]
    fn fill(&self, rows: std::ops::Range<usize>, slots: &mut [f64]) {
        let (progress, weights, start) = self.columns(rows);
        kernels::fill_rates(self.now_secs, progress, weights, start, slots);
    }

    /// The progress, weights and starts of `rows`.
    #[inline(always)]
    fn columns(&self, rows: std::ops::Range<usize>) -> (&[f64], Option<&[f64]>, &[f64]) {
        let weights = self.weights.map(|w| &w[rows.clone()]);
        (
            &self.progress[rows.clone()],
            weights,
            &self.start_secs[rows],
        )
    }
}

impl Values for Rates<'_> {
    fn len(&self) -> usize {
        self.progress
            .len()
            .min(self.start_secs.len())
            .min(self.weights.map_or(usize::MAX, <[f64]>::len))
    }
    fn stored(&self, _rows: std::ops::Range<usize>) -> Option<&[f64]> {
        None
    }
    #[inline(always)]
    fn write(&self, rows: std::ops::Range<usize>, slots: &mut [f64]) {
        self.fill(rows, slots);
    }
    #[inline(always)]
    fn write_adding(
        &self,
        rows: std::ops::Range<usize>,
        slots: &mut [f64],
        lanes: &mut Lanes,
        squares: Option<&mut Lanes>,
    ) {
        let (progress, weights, start) = self.columns(rows);
        kernels::fill_rates_adding(
            self.now_secs,
            progress,
            weights,
            start,
            slots,
            lanes,
            squares,
        );
    }
}

/// Whether this CPU's close rates ([`CloseRates`]) may differ from the exact ones.
#[cfg(test)]
pub(crate) fn close_rates_differ() -> bool {
    kernels::close_rates_differ()
}

/// The rates [`CloseRates`] writes for the rows of `rates`, added as one run, into `slots`;
/// returns whether they may differ from the exact ones.
#[cfg(test)]
pub(crate) fn fill_close_rates(rates: &Rates<'_>, slots: &mut [f64]) -> bool {
    let Rates {
        now_secs,
        progress,
        weights,
        start_secs,
    } = *rates;
    let mut lanes = Lanes::EMPTY;
    kernels::fill_close_rates_adding(
        now_secs, progress, weights, start_secs, slots, &mut lanes, None,
    )
}

/// [`Rates`] whose sums over one group may take each rate close to the exact one rather
/// than equal to it ([`kernels::fill_close_rates_adding`]: within [`CLOSE_RELATIVE`] of it
/// relatively, plus [`CLOSE_ABSOLUTE`]), where the CPU computes those faster;
/// [`CloseRates::approximated`] tells whether any was. Rates written without sums, and
/// sums by several groups, are exact.
#[derive(Debug)]
pub(crate) struct CloseRates<'a> {
    rates: Rates<'a>,
    approximated: std::sync::atomic::AtomicBool,
}

impl<'a> CloseRates<'a> {
    pub(crate) fn new(rates: Rates<'a>) -> Self {
        CloseRates {
            rates,
            approximated: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl Values for CloseRates<'_> {
    fn len(&self) -> usize {
        self.rates.len()
    }
    fn stored(&self, _rows: std::ops::Range<usize>) -> Option<&[f64]> {
        None
    }
    fn approximated(&self) -> bool {
        self.approximated.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[inline(always)]
    fn write(&self, rows: std::ops::Range<usize>, slots: &mut [f64]) {
        self.rates.fill(rows, slots);
    }
    #[inline(always)]
    fn write_adding(
        &self,
        rows: std::ops::Range<usize>,
        slots: &mut [f64],
        lanes: &mut Lanes,
        squares: Option<&mut Lanes>,
    ) {
        let (progress, weights, start) = self.rates.columns(rows);
        let now = self.rates.now_secs;
        let approximated =
            kernels::fill_close_rates_adding(now, progress, weights, start, slots, lanes, squares);
        if approximated {
            self.approximated
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// A hasher for the workspace's numeric ids (`TaskId`, `AttemptId`, stage indices): one
/// multiply per `u32` (FxHash's), where the standard library's SipHash, built to resist
/// chosen keys, costs tens of nanoseconds; detectors look up a million ids per scan.
/// Deterministic: no random state, so iteration orders do not change between runs.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct IdHasher(u64);

const ID_HASH_SEED: u64 = 0xf135_7aea_2e62_a9c5;

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(ID_HASH_SEED);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A `HashMap` keyed by ids, hashed with [`IdHasher`].
pub(crate) type IdMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<IdHasher>>;
/// A `HashSet` of ids, hashed with [`IdHasher`].
pub(crate) type IdSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<IdHasher>>;

/// How many rows of a snapshot each task has. Engines number tasks densely (a `TaskId`
/// indexes the run's tasks), so the counts live in an array indexed by task when the
/// largest id is at most `4 * rows + 1024`, and in an [`IdMap`] otherwise.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskRowCounts {
    dense: Vec<u32>,
    sparse: IdMap<TaskId, u32>,
    is_dense: bool,
}

impl TaskRowCounts {
    /// Counts the rows of each task in `tasks`, forgetting the previous counts.
    pub(crate) fn count(&mut self, tasks: &[TaskId]) {
        self.dense.clear();
        self.sparse.clear();
        let largest = tasks.iter().map(|t| t.index()).max().unwrap_or(0);
        self.is_dense = largest <= 4 * tasks.len() + 1024;
        if self.is_dense {
            self.dense.resize(largest + 1, 0);
            for task in tasks {
                self.dense[task.index()] += 1;
            }
        } else {
            for &task in tasks {
                *self.sparse.entry(task).or_insert(0) += 1;
            }
        }
    }

    /// The rows of `task` (0 for a task not counted).
    #[inline]
    pub(crate) fn get(&self, task: TaskId) -> u32 {
        if self.is_dense {
            self.dense.get(task.index()).copied().unwrap_or(0)
        } else {
            self.sparse.get(&task).copied().unwrap_or(0)
        }
    }
}

/// The elapsed time of every row, `None` for a row that started at `now` (no rate yet).
#[inline]
pub(crate) fn elapsed_secs(now_secs: f64, start_secs: f64) -> Option<f64> {
    let elapsed = now_secs - start_secs;
    (elapsed > 0.0).then_some(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sums of a fresh [`GroupSums`].
    fn group_sums(
        groups: &[u32],
        values: &(impl Values + ?Sized),
        group_count: usize,
        parallelism: Parallelism,
        summands: Summands<'_>,
    ) -> Vec<GroupSum> {
        GroupSums::default()
            .compute(groups, values, group_count, parallelism, summands)
            .to_vec()
    }

    /// The rates of `rates` as `compute_storing` stores them (over rows of one group),
    /// into a buffer that held other values.
    fn rate_rows(rates: Rates<'_>, parallelism: Parallelism, out: &mut Vec<f64>) {
        out.clear();
        out.resize(9, 7.0);
        let groups = vec![0; rates.len()];
        GroupSums::default().compute_storing(
            &groups,
            &rates,
            1,
            parallelism,
            Summands::Values,
            out,
            false,
        );
    }

    #[test]
    fn kept_buffers_give_fresh_sums() {
        // One buffer through snapshots of 3, 1, 3 and 0 chunks and 2, 5, 2 groups: each
        // time the sums of a fresh one.
        let mut kept = GroupSums::default();
        for (rows, groups) in [(10_000, 2), (100, 5), (9_000, 2), (0, 2)] {
            let g: Vec<u32> = (0..rows).map(|r| (r % groups) as u32).collect();
            let v: Vec<f64> = (0..rows).map(|r| r as f64 * 0.1).collect();
            for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                let reused = kept
                    .compute(&g, &v[..], groups, parallelism, Summands::Values)
                    .to_vec();
                assert_eq!(
                    reused,
                    group_sums(&g, &v[..], groups, parallelism, Summands::Values)
                );
                assert_eq!(reused.len(), groups);
            }
        }
    }

    #[test]
    fn group_sums_match_across_paths_and_hand_values() {
        // groups: 0,1,0,1,... over 10 000 rows (three chunks); value = row as f64 / 7.
        let groups: Vec<u32> = (0..10_000).map(|r| r % 2).collect();
        let values: Vec<f64> = (0..10_000).map(|r| f64::from(r) / 7.0).collect();
        let seq = group_sums(
            &groups,
            &values[..],
            2,
            Parallelism::Sequential,
            Summands::Values,
        );
        let par = group_sums(
            &groups,
            &values[..],
            2,
            Parallelism::Parallel,
            Summands::Values,
        );
        assert_eq!(seq, par);
        assert_eq!(seq[0].count, 5_000);
        // sum of even rows 0..9998 = 2 * (0 + ... + 4999) = 24_995_000, / 7
        approx::assert_relative_eq!(seq[0].sum, 24_995_000.0 / 7.0, max_relative = 1e-12);
    }

    #[test]
    fn a_run_is_summed_in_eight_lanes() {
        // One run of nine rows: lanes 0..7 hold rows 0..7, lane 0 also row 8, so the sum is
        // (1e16 + -1e16) + seven ones = 7 exactly, where a row-by-row sum loses the ones to
        // rounding (1e16 + 1 = 1e16) and ends at 0.
        let one_run = |values: &[f64]| {
            let groups = vec![0; values.len()];
            group_sums(
                &groups,
                values,
                1,
                Parallelism::Sequential,
                Summands::Values,
            )[0]
        };
        let sums = one_run(&[1e16, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1e16]);
        assert_eq!(sums.sum.to_bits(), 7.0f64.to_bits());
        assert_eq!((sums.count, sums.max), (9, 1e16));
        // The same in a block of sixteen (lane k: rows k and k + 8), with and without an
        // undefined value in it.
        let mut block = [1.0; 16];
        (block[0], block[8]) = (1e16, -1e16);
        let sums = one_run(&block);
        assert_eq!((sums.sum.to_bits(), sums.count), (14.0f64.to_bits(), 16));
        block[3] = f64::NAN;
        let sums = one_run(&block);
        assert_eq!((sums.sum.to_bits(), sums.count), (13.0f64.to_bits(), 15));
    }

    #[test]
    fn mixed_groups_are_summed_row_by_row() {
        // Group 0 holds the nine rows above in one run, then an undefined value; group 1 one
        // row. Over mixed groups, row by row, 1e16 + 1 = 1e16 each time and the sum ends
        // at 0 (in eight lanes, 7); the undefined value is left out. A one-group snapshot
        // is one run still.
        let values = [
            1e16,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            1.0,
            -1e16,
            f64::NAN,
            2.5,
        ];
        let mut groups = [0; 11];
        groups[10] = 1;
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let sums = GroupSums::mixed()
                .compute(&groups, &values[..], 2, parallelism, Summands::Values)
                .to_vec();
            assert_eq!(
                (sums[0].sum.to_bits(), sums[0].count),
                (0.0f64.to_bits(), 9)
            );
            assert_eq!((sums[0].max, sums[1].sum, sums[1].count), (1e16, 2.5, 1));
            // -1e16 - (-1e16 + 4) = -4 (both exact), squared 16; (2.5 - 0.5)^2 = 4.
            let squares = GroupSums::mixed()
                .compute(
                    &groups[8..],
                    &values[8..],
                    2,
                    parallelism,
                    Summands::SquaredDeviations {
                        centres: &[-1e16 + 4.0, 0.5],
                    },
                )
                .to_vec();
            assert_eq!((squares[0].sum, squares[0].count), (16.0, 1));
            assert_eq!((squares[1].sum, squares[1].count), (4.0, 1));
        }
        let one_group = GroupSums::mixed().compute(
            &groups[..9],
            &values[..9],
            1,
            Parallelism::Sequential,
            Summands::Values,
        )[0];
        assert_eq!((one_group.sum, one_group.count), (7.0, 9));
    }

    #[test]
    fn chunks_cut_the_rows_evenly() {
        // 10^6 rows of 10^4 groups: at most 320,000 a chunk, so four chunks, of 250,000
        // rounded up to 250,048 (3,907 x 64), the last 249,856.
        assert_eq!(chunk_len(10_000, 1_000_000), 250_048);
        // 10^5 rows of one group: at most 4,096 a chunk, so 25 chunks, 4,000 rows rounded
        // up to 4,032 (63 x 64), the last 3,232.
        assert_eq!(chunk_len(1, 100_000), 4032);
        assert_eq!(100_000 - 24 * 4032, 3232);
        // One chunk, rounded up to 64 rows; none too short for a row.
        assert_eq!(chunk_len(5, 100), 128);
        assert_eq!(chunk_len(1, 0), 64);
        assert_eq!(chunk_len(1, 4096), 4096);
        assert_eq!(chunk_len(1, 4097), 2112);
    }

    #[test]
    fn group_sums_follow_their_documented_order() {
        // Runs of 1 to 7 rows of groups 0..3, some values undefined, three chunks: the sums
        // are those of the order the docs give (chunks, runs, eight lanes), bit for bit.
        // Then runs of 40 rows (blocks of sixteen), undefined values only before row 6000.
        let groups: Vec<u32> = (0..9_000u32)
            .map(|r| {
                if r < 4_500 {
                    (r / (1 + r % 7)) % 3
                } else {
                    (r / 40) % 3
                }
            })
            .collect();
        let values: Vec<f64> = (0..9_000)
            .map(|r| {
                if r % 11 != 0 || r >= 6_000 {
                    f64::from(r).sqrt()
                } else {
                    f64::NAN
                }
            })
            .collect();
        // The summand: the square of the value's distance to its group's centre.
        let centres = [0.5, 10.0, 40.0];
        let value = |v: f64, g: usize| (v - centres[g]) * (v - centres[g]);
        let len = chunk_len(3, groups.len());
        let mut expected = vec![GroupSum::default(); 3];
        for (chunk, rows) in groups.chunks(len).enumerate() {
            let mut sums = vec![GroupSum::default(); 3];
            let mut start = 0;
            while start < rows.len() {
                let g = rows[start];
                // Runs end at a new group or at a segment's first row.
                let end = (start + 1..rows.len())
                    .find(|&i| rows[i] != g || i % SEGMENT == 0)
                    .unwrap_or(rows.len());
                let mut lanes = [0.0; 8];
                let s = &mut sums[g as usize];
                for i in start..end {
                    let v = value(values[chunk * len + i], g as usize);
                    if !v.is_nan() {
                        lanes[(i - start) % 8] += v;
                        s.count += 1;
                        s.max = s.max.max(v);
                    }
                }
                let l = lanes;
                s.sum += ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
                start = end;
            }
            for (e, s) in expected.iter_mut().zip(sums) {
                e.sum += s.sum;
                e.count += s.count;
                e.max = e.max.max(s.max);
            }
        }
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let sums = group_sums(
                &groups,
                &values[..],
                3,
                parallelism,
                Summands::SquaredDeviations { centres: &centres },
            );
            assert_eq!(sums, expected);
            assert!(
                sums.iter()
                    .zip(&expected)
                    .all(|(a, b)| a.sum.to_bits() == b.sum.to_bits())
            );
        }
    }

    #[test]
    fn undefined_values_are_not_counted() {
        let groups = [0, 0, 0];
        let sums = group_sums(
            &groups,
            &[1.0, f64::NAN, 1.0][..],
            1,
            Parallelism::Sequential,
            Summands::Values,
        );
        assert_eq!(
            sums[0],
            GroupSum {
                sum: 2.0,
                count: 2,
                max: 1.0
            }
        );
        assert_eq!(
            group_sums(&[], &[][..], 1, Parallelism::Parallel, Summands::Values)[0].mean(),
            None
        );
    }

    #[test]
    fn leaving_out_undefined_values_skips_them_lane_by_lane() {
        // Against a loop that skips every undefined value, on runs of all lengths up to
        // two blocks and a part, with NaN, infinities and zeros of both signs: the same
        // sum, count and largest value, bit for bit.
        let corner = [f64::NAN, -0.0, 0.0, f64::INFINITY, 1e-310, -2.5, 0.1];
        for len in 0..20 {
            for shift in 0..corner.len() {
                let values: Vec<f64> = (0..len).map(|i| corner[(i * 3 + shift) % 7]).collect();
                for summand in [Summand::Value, Summand::SquaredDeviation { centre: 0.5 }] {
                    let mut lanes = Lanes::EMPTY;
                    let mut count = 0;
                    for (i, &v) in values.iter().enumerate() {
                        let v = summand.of(v);
                        if !v.is_nan() {
                            lanes.sum[i % LANES] += v;
                            lanes.max[i % LANES] = lanes.max[i % LANES].max(v);
                            count += 1;
                        }
                    }
                    let mut expected = GroupSum::default();
                    fold_into(&lanes, count, &mut expected);
                    let mut got = GroupSum::default();
                    add_run_leaving_out_undefined(&values, summand, &mut got);
                    let bits = |g: GroupSum| (g.sum.to_bits(), g.count, g.max.to_bits());
                    assert_eq!(bits(got), bits(expected), "{values:?}");
                }
            }
        }
    }

    #[test]
    fn means_by_hand() {
        let sums = [
            // 6 / 3.
            GroupSum {
                sum: 6.0,
                count: 3,
                max: 3.0,
            },
            // 0.1 + 0.1 + 0.1 = 0.30000000000000004, over 3 rounded above 0.1: kept at 0.1.
            GroupSum {
                sum: 0.1 + 0.1 + 0.1,
                count: 3,
                max: 0.1,
            },
            // No value.
            GroupSum::default(),
        ];
        let mut out = vec![9.0; 7];
        means(&sums, &mut out);
        assert_eq!(out[..2], [2.0, 0.1]);
        assert!(out[2].is_nan());
        assert_eq!(out.len(), 3);
        assert_eq!(sums.map(GroupSum::mean)[..2], [Some(2.0), Some(0.1)]);
        assert_eq!(sums[2].mean(), None);
        // A run with an undefined value: 1 + 3 over two.
        assert_eq!(GroupSum::of_run(&[1.0, f64::NAN, 3.0]).mean(), Some(2.0));
    }

    #[test]
    fn rate_totals_add_rows_in_order_then_chunks_in_order() {
        // Rates progress / (10 - start), weights 1 (none given). Group 0: 1e16 / 1, then
        // 1 / 1 four times (each lost beside 1e16), then -1e16 / 1; group 1: 0.5 / 2; a row
        // started at now has no rate. Row by row, group 0 ends at 0 (in lanes it would not):
        // the order is the rows'.
        let progress = [1e16, 1.0, 1.0, 0.5, 1.0, 1.0, -1e16, 0.3];
        let start = [9.0, 9.0, 9.0, 8.0, 9.0, 9.0, 9.0, 10.0];
        let groups = [0, 0, 0, 1, 0, 0, 0, 0];
        let rates = Rates {
            now_secs: 10.0,
            progress: &progress,
            weights: None,
            start_secs: &start,
        };
        let totals = RateTotals::default()
            .compute(&groups, &rates, 3, Parallelism::Sequential)
            .to_vec();
        assert_eq!(totals, [[0.0, 6.0], [0.25, 1.0], [0.0, 0.0]]);
        // Many chunks (three groups: four, of 3,136 rows but the last of 2,957, the rows cut
        // evenly): each chunk's rows in order, then the chunks in order, on one thread or on
        // rayon's pool.
        let rows = 3 * CHUNK + 77;
        let len = chunk_len(3, rows);
        assert_eq!((len, rows - 3 * len), (3136, 2957));
        let mut rng = crate::conformance::SplitMix64(5);
        let progress: Vec<f64> = (0..rows).map(|_| rng.unit()).collect();
        let start: Vec<f64> = (0..rows).map(|_| 100.0 * rng.unit()).collect();
        let weights: Vec<f64> = (0..rows).map(|_| 1e8 * rng.unit()).collect();
        let groups: Vec<u32> = (0..rows).map(|_| rng.below(3)).collect();
        let rates = Rates {
            now_secs: 100.0,
            progress: &progress,
            weights: Some(&weights),
            start_secs: &start,
        };
        let mut expected = [[0.0f64; 2]; 3];
        for chunk in (0..rows).step_by(len) {
            let mut sums = [[0.0f64; 2]; 3];
            for row in chunk..(chunk + len).min(rows) {
                let rate = kernels::rate_or_nan(progress[row] * weights[row], 100.0, start[row]);
                sums[groups[row] as usize][0] += rate;
                sums[groups[row] as usize][1] += 1.0;
            }
            for (e, s) in expected.iter_mut().zip(sums) {
                e[0] += s[0];
                e[1] += s[1];
            }
        }
        // Into buffers that held other totals: one chunk of seven groups, then as many
        // chunks of three.
        let mut kept = RateTotals::default();
        kept.compute(&groups[..10], &rates, 7, Parallelism::Sequential);
        kept.compute(&groups, &rates, 3, Parallelism::Sequential);
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            assert_eq!(kept.compute(&groups, &rates, 3, parallelism), expected);
        }
    }

    #[test]
    fn rate_means_start_each_call_on_cleared_totals() {
        // `means` leaves the totals at zero and the next call adds onto them; a call of
        // `compute` alone leaves them summed, and the next call clears them first. One
        // chunk (100 rows of 10 groups) and several (3 x CHUNK rows of 3 groups), the
        // groups' count changing between calls: each call gives what a new `RateTotals`
        // gives.
        let mut rng = crate::conformance::SplitMix64(8);
        let rows = 3 * CHUNK;
        let progress: Vec<f64> = (0..rows).map(|_| rng.unit()).collect();
        let start: Vec<f64> = (0..rows).map(|_| 100.0 * rng.unit()).collect();
        let rates = Rates {
            now_secs: 100.0,
            progress: &progress,
            weights: None,
            start_secs: &start,
        };
        let groups: Vec<u32> = (0..rows as u32).map(|row| row % 10).collect();
        let few: Vec<u32> = groups.iter().map(|g| g % 3).collect();
        let calls = [(&groups[..100], 10), (&few[..], 3), (&groups[..100], 12)];
        let fresh = |groups: &[u32], count: usize| {
            let mut means = Vec::new();
            let sums = RateTotals::default().means(
                groups,
                &rates,
                count,
                Parallelism::Sequential,
                &mut means,
            );
            (means, sums)
        };
        let mut kept = RateTotals::default();
        for interrupt in [false, true] {
            for &(groups, count) in &calls {
                if interrupt {
                    kept.compute(groups, &rates, count, Parallelism::Sequential);
                }
                let mut means = vec![7.0; 2];
                let sums = kept.means(groups, &rates, count, Parallelism::Parallel, &mut means);
                // Bits, so that the empty groups' NaNs compare equal.
                let bits = |(means, sums): (Vec<f64>, GroupSum)| {
                    (means.iter().map(|m| m.to_bits()).collect::<Vec<_>>(), sums)
                };
                assert_eq!(
                    bits((means, sums)),
                    bits(fresh(groups, count)),
                    "{count} groups"
                );
                assert!(kept.total.iter().flatten().all(|v| v.to_bits() == 0));
                assert!(
                    kept.chunks
                        .iter()
                        .flatten()
                        .flatten()
                        .all(|v| v.to_bits() == 0)
                );
            }
        }
    }

    #[test]
    fn public_sums_refuse_a_group_past_the_count() {
        // With one group the rows' groups are otherwise not read: 5 and 7 would be summed
        // into group 0.
        let mut sums = GroupSums::default();
        for (groups, count) in [(&[0, 5, 7][..], 1), (&[0, 1, 2][..], 2), (&[0][..], 0)] {
            let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                sums.sums(groups, &[1.0, 2.0, 3.0], count, Parallelism::Sequential)
                    .len()
            }));
            assert!(refused.is_err(), "{groups:?} of {count} groups");
        }
        // Rows past the shorter column are not read, nor checked.
        let by_group = sums.sums(&[0, 1, 9], &[1.0, 2.0], 2, Parallelism::Sequential);
        assert_eq!(by_group.iter().map(|g| g.count).collect::<Vec<_>>(), [1, 1]);
    }

    #[test]
    fn groups_are_numbered_in_the_order_of_their_first_row() {
        let mut renumbering = Renumbering::default();
        assert_eq!(renumbering.renumber(&[5, 2, 5, 7, 2, 2], 8), 3);
        assert_eq!(renumbering.numbers(), [0, 1, 0, 2, 1, 1]);
        // Group 7's entry of the first call (number 2) and group 2's (number 1) are
        // stale: 7 is new here, and 2 is not named.
        assert_eq!(renumbering.renumber(&[7, 3, 7, 0], 8), 3);
        assert_eq!(renumbering.numbers(), [0, 1, 0, 2]);
        // More groups than before, and no rows.
        assert_eq!(renumbering.renumber(&[11, 5, 11], 12), 2);
        assert_eq!(renumbering.numbers(), [0, 1, 0]);
        assert_eq!(renumbering.renumber(&[], 12), 0);
        assert_eq!(renumbering.numbers(), [] as [u32; 0]);
        // Once a base would pass `u32::MAX`, the entries are cleared: group 4's entry of
        // the first call, 1, would otherwise pass for one of the base 1 that follows.
        let mut renumbering = Renumbering::default();
        assert_eq!(renumbering.renumber(&[4, 1], 5), 2);
        assert_eq!(renumbering.base, 3);
        renumbering.base = u32::MAX - 3;
        assert_eq!(renumbering.renumber(&[1], 5), 1);
        assert_eq!(renumbering.base, u32::MAX - 2);
        assert_eq!(renumbering.renumber(&[1, 4, 1], 5), 2);
        assert_eq!(renumbering.numbers(), [0, 1, 0]);
        assert_eq!(renumbering.base, 3);
        assert_eq!(renumbering.renumber(&[4, 2, 1], 5), 3);
        assert_eq!(renumbering.numbers(), [0, 1, 2]);
    }

    #[test]
    fn groups_found_by_number_are_turned_back_into_groups() {
        let groups = [5, 2, 5, 7, 2];
        let mut renumbering = Renumbering::default();
        // 5 rows of 100 groups: numbered, 5, 2 and 7 as 0, 1 and 2.
        assert_eq!(renumbering.number_if_it_pays(&groups, 100), 3);
        assert_eq!(renumbering.sum_groups(&groups), [0, 1, 0, 2, 1]);
        for (found, expected) in [
            (vec![0, 2], [5, 7].as_slice()),
            (vec![1, 2], &[2, 7]),
            (vec![0, 1, 2], &[2, 5, 7]),
            (vec![], &[]),
        ] {
            let mut found = found;
            renumbering.found_groups(&groups, &mut found);
            assert_eq!(found, expected);
        }
        // 5 rows of 8 groups: summed by group, and what is found is a group already.
        assert_eq!(renumbering.number_if_it_pays(&groups, 8), 8);
        assert_eq!(renumbering.sum_groups(&groups), groups);
        let mut found = vec![2, 7];
        renumbering.found_groups(&groups, &mut found);
        assert_eq!(found, [2, 7]);
    }

    #[test]
    fn total_means_and_marks_by_hand() {
        // 6 / 3, 0.3 / 3 (not kept at its largest value: the totals have none), no rate,
        // and six more groups, so that after two fours (AVX2) or one eight (AVX-512) a
        // group is left.
        let mut totals = [
            [6.0, 3.0],
            [0.1 + 0.1 + 0.1, 3.0],
            [0.0, 0.0],
            [1.0, 1.0],
            [3.0, 2.0],
            [4.0, 4.0],
            [9.0, 3.0],
            [-0.0, 0.0],
            [5.0, 2.0],
        ];
        let mut means = vec![7.0; 2];
        let sums = total_means(&mut totals, &mut means);
        assert_eq!(totals, [[0.0; 2]; 9]);
        let expected = [
            2.0,
            0.10000000000000002,
            f64::NAN,
            1.0,
            1.5,
            1.0,
            3.0,
            f64::NAN,
            2.5,
        ];
        let bits = |v: &[f64]| {
            v.iter()
                .map(|x| (!x.is_nan()).then(|| x.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&means), bits(&expected));
        // The means' sum, count and largest, as `GroupSum::of_run` adds them: mean `i` in
        // lane `i % 8` (the NaNs left out), so lanes 4.5 (2 + 2.5), 0.10000000000000002,
        // 0, 1, 1.5, 1, 3, 0, added pairwise: ((4.6 + 1) + (2.5 + 3)) = 11.1, rounded at
        // each step; seven means, the largest 3.
        assert_eq!(sums.count, 7);
        assert_eq!(sums.max, 3.0);
        assert_eq!(sums.sum, 11.1);
        assert_eq!(sums, GroupSum::of_run(&means));
        // Below 1.5: 0.1 and the two 1s; in [1.5, 2.5): 1.5 and 2; NaN neither.
        let mut marks = vec![9; 20];
        assert_eq!(mark_below(&means, 1.5, 2.5, &mut marks), 2);
        assert_eq!(marks, [0, 1, 0, 1, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn id_maps_find_every_id() {
        let mut map: IdMap<u32, u32> = IdMap::default();
        for id in 0..10_000u32 {
            map.insert(id.wrapping_mul(7919), id);
        }
        assert_eq!(map.len(), 10_000);
        assert!((0..10_000u32).all(|id| map.get(&id.wrapping_mul(7919)) == Some(&id)));
        let set: IdSet<u64> = [u64::MAX, 0, 1 << 40].into_iter().collect();
        assert!(set.contains(&(1 << 40)) && !set.contains(&2));
    }

    #[test]
    fn task_row_counts_dense_and_sparse() {
        let mut counts = TaskRowCounts::default();
        counts.count(&[TaskId(3), TaskId(1), TaskId(3)]);
        assert!(counts.is_dense);
        assert_eq!((counts.get(TaskId(3)), counts.get(TaskId(1))), (2, 1));
        assert_eq!((counts.get(TaskId(0)), counts.get(TaskId(99))), (0, 0));
        counts.count(&[TaskId(u32::MAX), TaskId(5), TaskId(u32::MAX)]);
        assert!(!counts.is_dense);
        assert_eq!(
            (counts.get(TaskId(u32::MAX)), counts.get(TaskId(5))),
            (2, 1)
        );
        assert_eq!(counts.get(TaskId(3)), 0);
        counts.count(&[]);
        assert_eq!(counts.get(TaskId(0)), 0);
    }

    #[test]
    fn rates_by_hand() {
        // now = 10: started at 5 with progress 0.5 -> 0.1/s (x2 with weight 2); started at
        // now or later, or with an elapsed time that overflows the rate -> NaN.
        let progress = [0.5, 0.5, 0.5, 1.0];
        let start = [5.0, 10.0, 11.0, 10.0 - 1e-310];
        let mut rates = vec![7.0; 9];
        rate_rows(
            Rates {
                now_secs: 10.0,
                progress: &progress,
                weights: None,
                start_secs: &start,
            },
            Parallelism::Sequential,
            &mut rates,
        );
        assert_eq!(rates.len(), 4);
        assert_eq!(rates[0], 0.1);
        assert!(rates[1..].iter().all(|r| r.is_nan()));
        let weights = [2.0, 1.0, 1.0];
        rate_rows(
            Rates {
                now_secs: 10.0,
                progress: &progress,
                weights: Some(&weights),
                start_secs: &start,
            },
            Parallelism::Parallel,
            &mut rates,
        );
        assert_eq!(rates.len(), 3, "the shortest column bounds the rows");
        assert_eq!(rates[0], 0.2);
    }

    #[test]
    fn sums_of_computed_rates_are_sums_of_stored_ones() {
        // Rates computed segment by segment, or stored first: the same sums, bit for bit,
        // on runs (one group) and on mixed rows (many groups), in both paths.
        // Over two chunks' worth of 300 groups (32 rows per group): three chunks.
        let n = 3 * SEGMENT + 77 + 2 * 32 * 300;
        let progress: Vec<f64> = (0..n).map(|r| (r % 997) as f64 / 997.0).collect();
        let start: Vec<f64> = (0..n).map(|r| (r % 13) as f64 * 50.0).collect();
        let weights: Vec<f64> = (0..n).map(|r| 1e6 + r as f64).collect();
        let rates = Rates {
            now_secs: 600.0,
            progress: &progress,
            weights: Some(&weights),
            start_secs: &start,
        };
        let mut stored = Vec::new();
        rate_rows(rates, Parallelism::Sequential, &mut stored);
        for (groups, group_count) in [
            (vec![0; n], 1),
            ((0..n as u32).map(|r| r % 300).collect(), 300),
        ] {
            for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
                let computed =
                    group_sums(&groups, &rates, group_count, parallelism, Summands::Values);
                let from_column = group_sums(
                    &groups,
                    &stored[..],
                    group_count,
                    parallelism,
                    Summands::Values,
                );
                // Stored as they are summed: the same rates and sums, and the same sums of
                // squares as those of the stored column.
                let mut column = vec![1.0; 5];
                let mut storing = GroupSums::default();
                storing.compute_storing(
                    &groups,
                    &rates,
                    group_count,
                    parallelism,
                    Summands::Values,
                    &mut column,
                    true,
                );
                let (while_storing, squares) = storing.sums_and_squares();
                let while_storing = while_storing.to_vec();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&column), bits(&stored));
                let stored_squares = group_sums(
                    &groups,
                    &stored[..],
                    group_count,
                    parallelism,
                    Summands::Squares,
                );
                let square_bits = |v: &[GroupSum]| {
                    v.iter()
                        .map(|s| (s.sum.to_bits(), s.count, s.max.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(square_bits(squares), square_bits(&stored_squares));
                for sums in [&from_column, &while_storing] {
                    assert_eq!(&computed, sums);
                    assert!(
                        computed
                            .iter()
                            .zip(sums)
                            .all(|(a, b)| a.sum.to_bits() == b.sum.to_bits())
                    );
                }
            }
        }
    }

    #[test]
    fn rates_match_across_paths() {
        let n = 3 * FILTER_BLOCK + 5;
        let progress: Vec<f64> = (0..n).map(|r| (r % 997) as f64 / 997.0).collect();
        let start: Vec<f64> = (0..n).map(|r| (r % 13) as f64 * 50.0).collect();
        let (mut seq, mut par) = (Vec::new(), Vec::new());
        rate_rows(
            Rates {
                now_secs: 600.0,
                progress: &progress,
                weights: Some(&start),
                start_secs: &start,
            },
            Parallelism::Sequential,
            &mut seq,
        );
        rate_rows(
            Rates {
                now_secs: 600.0,
                progress: &progress,
                weights: Some(&start),
                start_secs: &start,
            },
            Parallelism::Parallel,
            &mut par,
        );
        assert!(
            seq.iter()
                .zip(&par)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        // Started at now (600 = 12 x 50): the rows r with r % 13 == 12.
        let at_now = (0..n).filter(|r| r % 13 == 12).count();
        assert_eq!(seq.iter().filter(|r| r.is_nan()).count(), at_now);
    }

    #[test]
    fn rows_below_their_group_bar() {
        // 200 rows: groups in runs of 100 (words of one group) then mixed row by row in the
        // last 50 rows of each run; group 2 has no bar; NaN values are never kept.
        let groups: Vec<u32> = (0..300u32)
            .map(|r| if r % 100 >= 50 { r % 3 } else { r / 100 })
            .collect();
        let values: Vec<f64> = (0..300)
            .map(|r| {
                if r % 7 == 0 {
                    f64::NAN
                } else {
                    f64::from(r % 10)
                }
            })
            .collect();
        let bars = [5.0, 2.0];
        let expected: Vec<u32> = (0..300u32)
            .filter(|&r| {
                let v = values[r as usize];
                bars.get(groups[r as usize] as usize)
                    .is_some_and(|&bar| v < bar)
            })
            .collect();
        assert!(!expected.is_empty());
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let mut out = vec![9_999];
            rows_below(
                &values,
                &groups,
                &bars,
                parallelism,
                &mut RowBlocks::default(),
                &mut out,
            );
            assert_eq!(out[0], 9_999, "appended, not replaced");
            assert_eq!(out[1..], expected[..]);
        }
    }

    #[test]
    fn kept_row_blocks_give_fresh_rows() {
        // One `RowBlocks` through scans of several blocks, of one, and of several again,
        // in both paths: what a larger scan left in the buffers never shows.
        let mut blocks = RowBlocks::default();
        for (len, parallelism) in [
            (3 * FILTER_BLOCK + 70, Parallelism::Parallel),
            (100, Parallelism::Sequential),
            (2 * FILTER_BLOCK + 1, Parallelism::Sequential),
            (FILTER_BLOCK - 3, Parallelism::Parallel),
            (0, Parallelism::Parallel),
        ] {
            // Runs of 40 rows of one group, then 40 rows of three groups mixed: runs cross
            // the blocks' edges.
            let groups: Vec<u32> = (0..len as u32)
                .map(|r| if r % 80 < 40 { (r / 80) % 2 } else { r % 3 })
                .collect();
            let values: Vec<f64> = (0..len).map(|r| ((r * 7919) % 101) as f64).collect();
            let bars = [30.0, 60.0, 90.0];
            let expected: Vec<u32> = (0..len)
                .filter(|&r| values[r] < bars[groups[r] as usize])
                .map(|r| r as u32)
                .collect();
            let mut out = vec![7];
            rows_below(&values, &groups, &bars, parallelism, &mut blocks, &mut out);
            assert_eq!(out[1..], expected[..], "{len} rows, {parallelism:?}");
            if len == 3 * FILTER_BLOCK + 70 {
                assert!(expected.len() >= PARALLEL_APPEND, "appended on the pool");
            }
        }
    }

    #[test]
    fn one_group_gives_what_the_runs_give() {
        // One group: the group column is not read, and the sums and kept rows are those of
        // the general path (here with a second, empty group), bit for bit.
        let n = 2 * CHUNK + 3 * SEGMENT + 5;
        let groups = vec![0; n];
        let values: Vec<f64> = (0..n)
            .map(|r| {
                if r % 5 == 0 {
                    f64::NAN
                } else {
                    (r % 97) as f64 / 9.0
                }
            })
            .collect();
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let one = group_sums(&groups, &values[..], 1, parallelism, Summands::Values);
            let two = group_sums(&groups, &values[..], 2, parallelism, Summands::Values);
            assert_eq!(
                (one[0], one[0].sum.to_bits()),
                (two[0], two[0].sum.to_bits())
            );
            let (mut one, mut two) = (Vec::new(), Vec::new());
            rows_below(
                &values,
                &groups,
                &[4.0],
                parallelism,
                &mut RowBlocks::default(),
                &mut one,
            );
            rows_below(
                &values,
                &groups,
                &[4.0, f64::NAN],
                parallelism,
                &mut RowBlocks::default(),
                &mut two,
            );
            assert_eq!(one, two);
            assert_eq!(one.len(), (0..n).filter(|&r| values[r] < 4.0).count());
        }
    }

    #[test]
    fn filter_keeps_order() {
        let mut seq = Vec::new();
        let mut par = Vec::new();
        // Three blocks and a part, the last word partly filled.
        let len = 3 * FILTER_BLOCK + 70;
        filter_rows(len, Parallelism::Sequential, |r| r % 3 == 0, &mut seq);
        filter_rows(len, Parallelism::Parallel, |r| r % 3 == 0, &mut par);
        assert_eq!(seq, par);
        assert_eq!(seq.len(), len.div_ceil(3));
        assert!(seq.windows(2).all(|w| w[0] < w[1]));
    }
}
