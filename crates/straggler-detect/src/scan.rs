//! The two building blocks of every scan, each with a sequential and a parallel path that
//! give bit-identical results: per-group sums and row filtering.
//!
//! Floating-point addition is not associative, so a parallel sum whose split depends on the
//! number of threads could flag a row that a sequential scan does not (a task whose
//! progress sits exactly at the threshold). Here both paths split the rows into the same
//! fixed chunks (of [`chunk_len`] rows, which depends on the data only), sum each chunk from
//! zero, and add the chunk sums in chunk
//! order. Only who computes a chunk differs.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use straggler_model::TaskId;

/// The smallest number of rows per chunk.
pub(crate) const CHUNK: usize = 4096;

/// Rows per chunk for `group_count` groups: at least [`CHUNK`], and 16 rows per group so
/// that the per-chunk arrays of group sums stay small beside the rows they summarise. It
/// depends on the data only, never on the number of threads, so sums do not either.
pub(crate) fn chunk_len(group_count: usize) -> usize {
    CHUNK.max(16 * group_count)
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
    /// Parallel from 32 768 rows: below that, a scan takes tens of microseconds and
    /// handing work to other threads costs more than it saves.
    fn default() -> Self {
        Parallelism::Auto { min_rows: 1 << 15 }
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
}

/// Sum, count and range of the defined values of one group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GroupSum {
    pub(crate) sum: f64,
    pub(crate) count: u64,
    pub(crate) min: f64,
    pub(crate) max: f64,
}

impl Default for GroupSum {
    fn default() -> Self {
        GroupSum {
            sum: 0.0,
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl GroupSum {
    /// The mean of the group's values, `None` for an empty group.
    ///
    /// Kept within the group's smallest and largest values: a rounded `sum / count` can
    /// fall outside them (`(0.1 + 0.1 + 0.1) / 3 = 0.10000000000000002`), and a mean above
    /// every value would make identical tasks stragglers of each other.
    pub(crate) fn mean(self) -> Option<f64> {
        (self.count > 0).then(|| (self.sum / self.count as f64).max(self.min).min(self.max))
    }
}

/// For each of `group_count` groups, the sum and count of `value(row)` over the rows of
/// that group (`groups[row]`) where it is `Some`.
pub(crate) fn group_sums(
    groups: &[u32],
    group_count: usize,
    parallelism: Parallelism,
    value: impl Fn(usize) -> Option<f64> + Sync,
) -> Vec<GroupSum> {
    let len = chunk_len(group_count);
    let chunk_sums = |chunk: usize| {
        let mut sums = vec![GroupSum::default(); group_count];
        let end = ((chunk + 1) * len).min(groups.len());
        let mut row = chunk * len;
        // Run by run of rows of one group (a snapshot lists a stage's rows together): the
        // run's sums stay in registers, not in memory where each addition would wait for
        // the previous one's store. The additions are the same, in the same order.
        while row < end {
            let group_index = groups[row];
            let mut group = sums[group_index as usize];
            while row < end && groups[row] == group_index {
                if let Some(v) = value(row) {
                    group.sum += v;
                    group.count += 1;
                    // Branches, not `f64::min`: after a chunk's first rows they are seldom
                    // taken, and they add no dependency chain to the sums.
                    if v < group.min {
                        group.min = v;
                    }
                    if v > group.max {
                        group.max = v;
                    }
                }
                row += 1;
            }
            sums[group_index as usize] = group;
        }
        sums
    };
    let chunks = groups.len().div_ceil(len);
    let mut total = vec![GroupSum::default(); group_count];
    let mut add = |sums: Vec<GroupSum>| {
        for (t, s) in total.iter_mut().zip(sums) {
            t.sum += s.sum;
            t.count += s.count;
            t.min = t.min.min(s.min);
            t.max = t.max.max(s.max);
        }
    };
    if parallelism.is_parallel(groups.len()) {
        let per_chunk: Vec<Vec<GroupSum>> = (0..chunks).into_par_iter().map(chunk_sums).collect();
        per_chunk.into_iter().for_each(&mut add);
    } else {
        (0..chunks).map(chunk_sums).for_each(&mut add);
    }
    total
}

/// Appends to `out`, in increasing order, the rows `0..len` for which `keep` is true.
pub(crate) fn filter_rows(
    len: usize,
    parallelism: Parallelism,
    keep: impl Fn(usize) -> bool + Sync,
    out: &mut Vec<u32>,
) {
    if parallelism.is_parallel(len) {
        let kept: Vec<u32> = (0..len)
            .into_par_iter()
            .filter(|&row| keep(row))
            .map(|row| row as u32)
            .collect();
        out.extend(kept);
    } else {
        out.extend((0..len).filter(|&row| keep(row)).map(|row| row as u32));
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

/// A hasher that keeps an id's low bits as they are and mixes only the top seven, which
/// `hashbrown` compares in its control bytes. Engines number ids densely and snapshots list
/// them roughly in order, so a map hashed this way holds consecutive ids in consecutive
/// slots, and a scan looking up every row's id reads the table in order instead of at
/// random (a cache miss per row on a million entries). For maps that are only looked up,
/// never iterated: an iteration order would follow the ids' low bits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DenseIdHasher(u64);

/// The bits `hashbrown` keeps in a control byte.
const TOP_SEVEN: u64 = 0xfe00_0000_0000_0000;

impl std::hash::Hasher for DenseIdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        (self.0 & !TOP_SEVEN) | (self.0.wrapping_mul(ID_HASH_SEED) & TOP_SEVEN)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(26) ^ n;
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A `HashMap` keyed by dense ids and never iterated, hashed with [`DenseIdHasher`].
pub(crate) type DenseIdMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<DenseIdHasher>>;

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

    #[test]
    fn group_sums_match_across_paths_and_hand_values() {
        // groups: 0,1,0,1,... over 10 000 rows (three chunks); value = row as f64 / 7.
        let groups: Vec<u32> = (0..10_000).map(|r| r % 2).collect();
        let value = |r: usize| Some(r as f64 / 7.0);
        let seq = group_sums(&groups, 2, Parallelism::Sequential, value);
        let par = group_sums(&groups, 2, Parallelism::Parallel, value);
        assert_eq!(seq, par);
        assert_eq!(seq[0].count, 5_000);
        // sum of even rows 0..9998 = 2 * (0 + ... + 4999) = 24_995_000, / 7
        approx::assert_relative_eq!(seq[0].sum, 24_995_000.0 / 7.0, max_relative = 1e-12);
    }

    #[test]
    fn group_sums_in_runs_add_row_by_row() {
        // Runs of 1 to 7 rows of groups 0..3, some values undefined: the sums are those of
        // a plain row-by-row loop, bit for bit, chunk by chunk.
        let groups: Vec<u32> = (0..9_000u32).map(|r| (r / (1 + r % 7)) % 3).collect();
        let value = |r: usize| (r % 11 != 0).then(|| (r as f64).sqrt() / 3.0);
        let mut expected = vec![GroupSum::default(); 3];
        for chunk in groups.chunks(chunk_len(3)).enumerate() {
            let mut sums = vec![GroupSum::default(); 3];
            for (i, &g) in chunk.1.iter().enumerate() {
                if let Some(v) = value(chunk.0 * chunk_len(3) + i) {
                    let s = &mut sums[g as usize];
                    s.sum += v;
                    s.count += 1;
                    s.min = s.min.min(v);
                    s.max = s.max.max(v);
                }
            }
            for (e, s) in expected.iter_mut().zip(sums) {
                e.sum += s.sum;
                e.count += s.count;
                e.min = e.min.min(s.min);
                e.max = e.max.max(s.max);
            }
        }
        for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
            let sums = group_sums(&groups, 3, parallelism, value);
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
        let sums = group_sums(&groups, 1, Parallelism::Sequential, |r| {
            (r != 1).then_some(1.0)
        });
        assert_eq!(
            sums[0],
            GroupSum {
                sum: 2.0,
                count: 2,
                min: 1.0,
                max: 1.0
            }
        );
        assert_eq!(
            group_sums(&[], 1, Parallelism::Parallel, |_| Some(1.0))[0].mean(),
            None
        );
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
    fn dense_id_maps_find_every_id() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let build = BuildHasherDefault::<DenseIdHasher>::default();
        // Low bits kept: consecutive ids, consecutive slots.
        assert_eq!(build.hash_one(5u32) & !TOP_SEVEN, 5);
        let mut map: DenseIdMap<u32, u32> = DenseIdMap::default();
        for id in 0..20_000u32 {
            map.insert(id.wrapping_mul(7919) ^ (id << 20), id);
        }
        for id in (0..20_000u32).step_by(2) {
            map.remove(&(id.wrapping_mul(7919) ^ (id << 20)));
        }
        assert_eq!(map.len(), 10_000);
        assert!((0..20_000u32).all(|id| {
            let found = map.get(&(id.wrapping_mul(7919) ^ (id << 20)));
            found == (id % 2 == 1).then_some(&id)
        }));
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
    fn filter_keeps_order() {
        let mut seq = Vec::new();
        let mut par = Vec::new();
        filter_rows(20_000, Parallelism::Sequential, |r| r % 3 == 0, &mut seq);
        filter_rows(20_000, Parallelism::Parallel, |r| r % 3 == 0, &mut par);
        assert_eq!(seq, par);
        assert_eq!(seq.len(), 6_667);
        assert!(seq.windows(2).all(|w| w[0] < w[1]));
    }
}
