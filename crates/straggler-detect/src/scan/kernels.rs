//! The innermost loops of the scans: a run of values added into eight lanes (one run, or
//! two at once), the rows of a run whose value is below a bar, a column of rates (also
//! added into lanes as it is computed), rates added to their groups' sums and counts, the
//! keys below a key, and the rows whose group is marked.
//!
//! The sums and the filter below a bar have a body in AVX2, for the x86_64 CPUs that have it
//! (detected at run time; the standard library caches the answer), and one in plain Rust,
//! which LLVM compiles to SSE2's vector instructions for the sums; the filter has one in
//! SSE2 (part of every x86_64 CPU) and one in AVX-512 too, whose `vpcompressd` packs the
//! kept rows of sixteen at once; the filter's AVX2 body also counts and finds a word's
//! kept rows with POPCNT and BMI1, detected beside AVX2. All give the same bits: the
//! vector bodies do, lane by lane, what the plain one does, the same eight lanes each
//! adding its values in the same order, and IEEE 754 fixes every operation's result (a
//! lane that comes out NaN only says that an undefined value was added, and the run is
//! summed again without it). LLVM does
//! not turn the plain filter's comparison per row into `cmppd` and `movmskpd` (two
//! instructions for two rows, or four): the plain formulations tried compiled to a
//! comparison, a flag and a shift per row.
//!
//! A column of rates has one body, in plain Rust, compiled twice: for the target, and with
//! AVX2 where the CPU has it. A rate is a division, AVX divides four numbers where SSE2
//! divides two, and a scan that computes rates waits on its divisions. Rates stored and
//! added as they are computed (LATE's) have a plain body and an AVX2 one, which first
//! divides without checking each rate, keeping the least elapsed time, and keeps the
//! quotients only if that is positive and their sum finite (otherwise it divides again
//! with the checks): the checks cost a fifth of the loop. Rates that may be close to the
//! exact ones rather than equal (LATE's first pass, [`fill_close_rates_adding`]) have an
//! AVX-512 body, which multiplies by a refined reciprocal estimate instead of dividing,
//! and otherwise are the exact ones. Rates added to
//! their groups' totals have a plain body and an AVX2 one, which divides four rates at
//! once and adds each row's sum and count to its group's as one 16-byte pair; it checks
//! that the rates are finite once, by their sum, and where one is not the plain body adds
//! the rows again, checking each. The groups' means from those totals are divided eight
//! at once with AVX-512 and four with AVX2 ([`divide_totals`]), and the loops of plain
//! Rust that need no body of their own are compiled with the widest vectors the CPU has
//! ([`with_widest_vectors`]); both take the width to use ([`Vectors`]), so that the tests
//! run every width the CPU has. The count
//! of the keys below a key (Garraghan's sorted level times) has one body too, compiled
//! three times: SSE2 has no comparison of 64-bit integers, AVX2 compares four, AVX-512
//! eight.
//!
//! This is the crate's only `unsafe` code: calling a function that enables a target
//! feature is unsafe by the language's rule, even for SSE2, which the build enables
//! everywhere (checked by `cfg(target_feature = "sse2")`), and for AVX2 and AVX-512 once
//! the CPU is known to have them; the AVX-512 filter stores a vector of sixteen rows
//! through a pointer into sixteen slots of a checked slice (the intrinsic takes a raw
//! pointer), the AVX-512 close rates store eight rates into eight slots of a checked
//! slice the same way, and the AVX-512 division of totals stores its eight quotients into eight
//! slots of a checked slice, and its lanes' sums, largest values and counts into their
//! arrays of eight, the same way; and the filter of rows by their group's mark ([`keep_marked`]) reads a row's
//! group unchecked, the rows checked once per call (by the largest), and the group's mark
//! unchecked at the group masked to the marks' length; and the parallel append of a
//! filter's blocks ([`append_in_parallel`]) sets the output's length once its new slots
//! are written. Everything else in the kernels is safe code.

/// Lanes of a run's sums: lane `k` holds rows `k`, `k + LANES`, `k + 2 LANES`, ... of the
/// run.
pub(crate) const LANES: usize = 8;

/// Appends `parts` to `out`, in order, each part copied on rayon's pool straight into the
/// room past `out`'s length, which is not written first (`Vec::resize` would write every
/// slot once more before the copy). Appended one part after the other, on one thread while
/// the other waited, the 300,000 rows Default keeps of 10^6 took 7% of its samples in
/// `perf record`.
pub(crate) fn append_in_parallel(parts: &[&[u32]], out: &mut Vec<u32>) {
    use rayon::prelude::*;
    let total: usize = parts.iter().map(|part| part.len()).sum();
    out.reserve(total);
    let mut room = &mut out.spare_capacity_mut()[..total];
    let mut slots = Vec::with_capacity(parts.len());
    for part in parts {
        let (mine, rest) = std::mem::take(&mut room).split_at_mut(part.len());
        slots.push(mine);
        room = rest;
    }
    slots.into_par_iter().zip(parts).for_each(|(slots, part)| {
        for (slot, &row) in slots.iter_mut().zip(*part) {
            slot.write(row);
        }
    });
    let len = out.len() + total;
    // SAFETY: `reserve` made room for `total` more, and each of those slots was written
    // above: the parts' slots cut the first `total` slots of the room into pieces as long
    // as the parts, each written whole from its part.
    unsafe { out.set_len(len) };
}

/// The sum and largest value of each lane. A NaN makes its lane's sum NaN and leaves its
/// largest value as it was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lanes {
    pub(crate) sum: [f64; LANES],
    pub(crate) max: [f64; LANES],
}

impl Lanes {
    pub(crate) const EMPTY: Lanes = Lanes {
        sum: [0.0; LANES],
        max: [f64::NEG_INFINITY; LANES],
    };
}

/// What a run of values adds to its lanes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Summand {
    /// The value itself.
    Value,
    /// The square of its distance to `centre`: `(v - centre)^2`.
    SquaredDeviation { centre: f64 },
}

impl Summand {
    /// What `value` adds.
    #[inline(always)]
    pub(crate) fn of(self, value: f64) -> f64 {
        match self {
            Summand::Value => value,
            Summand::SquaredDeviation { centre } => {
                let deviation = value - centre;
                deviation * deviation
            }
        }
    }
}

/// Adds `summand.of(v)` for every value `v` of `values` to `lanes`, value `i` to lane
/// `i % LANES`, each lane in the order of its values. No value is skipped: a NaN makes its
/// lane's sum NaN (and is ignored by its largest value), so a caller that must leave
/// undefined values out sees that one was there.
pub(crate) fn add_run(values: &[f64], summand: Summand, lanes: &mut Lanes) {
    let blocks = values.len() / LANES * LANES;
    let (whole, rest) = values.split_at(blocks);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        unsafe { avx2::add_blocks(whole, summand, lanes) }
    } else {
        portable::add_blocks(whole, summand, lanes);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    portable::add_blocks(whole, summand, lanes);
    for (lane, &v) in rest.iter().enumerate() {
        add_one(lanes, lane, summand.of(v));
    }
}

/// [`add_run`] over two runs at once, `a` into `lanes_a` and `b` into `lanes_b`: the same
/// bits as one run after the other. A run's lanes each wait on their last addition; with
/// AVX2, two runs' lanes, added in one loop, do not wait on each other, and the pair takes
/// about the time of one run. Runs of different lengths are added one after the other.
pub(crate) fn add_run_pair(
    a: &[f64],
    b: &[f64],
    summand: Summand,
    lanes_a: &mut Lanes,
    lanes_b: &mut Lanes,
) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if a.len() == b.len() && avx2::detected() {
        let blocks = a.len() / LANES * LANES;
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        unsafe { avx2::add_block_pairs(&a[..blocks], &b[..blocks], summand, lanes_a, lanes_b) };
        for (lane, (&x, &y)) in a[blocks..].iter().zip(&b[blocks..]).enumerate() {
            add_one(lanes_a, lane, summand.of(x));
            add_one(lanes_b, lane, summand.of(y));
        }
        return;
    }
    add_run(a, summand, lanes_a);
    add_run(b, summand, lanes_b);
}

/// [`add_run`] leaving undefined summands (NaN) out: one adds `-0.0` to its lane's sum,
/// which leaves every sum as it was (`-0.0` included), and nothing to `counts[lane]`;
/// every other summand adds one to it. So no branch on whether a value is defined.
pub(crate) fn add_run_defined(
    values: &[f64],
    summand: Summand,
    lanes: &mut Lanes,
    counts: &mut [u64; LANES],
) {
    let blocks = values.len() / LANES * LANES;
    let (whole, rest) = values.split_at(blocks);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        unsafe { avx2::add_blocks_defined(whole, summand, lanes, counts) }
    } else {
        portable::add_blocks_defined(whole, summand, lanes, counts);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    portable::add_blocks_defined(whole, summand, lanes, counts);
    for (lane, &v) in rest.iter().enumerate() {
        add_one_defined(lanes, counts, lane, summand.of(v));
    }
}

/// Adds one summand to one lane as [`add_run_defined`]'s kernels do.
#[inline(always)]
fn add_one_defined(lanes: &mut Lanes, counts: &mut [u64; LANES], lane: usize, value: f64) {
    let defined = !value.is_nan();
    lanes.sum[lane] += if defined { value } else { -0.0 };
    counts[lane] += u64::from(defined);
    // The value itself, as in `add_one`: a NaN fails the comparison.
    lanes.max[lane] = if value > lanes.max[lane] {
        value
    } else {
        lanes.max[lane]
    };
}

/// Adds one value to one lane, as the kernels do.
#[inline(always)]
fn add_one(lanes: &mut Lanes, lane: usize, value: f64) {
    lanes.sum[lane] += value;
    // As SSE2's `maxpd(value, max)`: the value if it is larger, else the lane's (a NaN
    // fails the comparison).
    lanes.max[lane] = if value > lanes.max[lane] {
        value
    } else {
        lanes.max[lane]
    };
}

/// Slots past a run's rows that [`write_below_settling`] may write: the kept rows of eight are
/// written as eight slots, those past the count overwritten by the next eight's.
pub(crate) const SPARE: usize = 8;

/// Writes `first + i`, in increasing order, for every `i` with `values[i] < bar` (a NaN
/// value or bar is never below) at the start of `slots`, and returns how many there are,
/// and with `SETTLE`, how many of them are not below `low` too (LATE's candidates that its
/// bounds leave unsettled; without, 0, and `low` is not read). `slots` holds at least
/// `values.len() + SPARE` rows; the slots past the count are written with rows of no
/// meaning.
pub(crate) fn write_below_settling<const SETTLE: bool>(
    values: &[f64],
    bar: f64,
    low: f64,
    first: u32,
    slots: &mut [u32],
) -> (usize, usize) {
    // Shorter, the bodies would write kept rows over one another (their count is bounded
    // by the room, not checked against it).
    debug_assert!(
        slots.len() >= values.len() + SPARE,
        "room for the rows and SPARE"
    );
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx512::detected() {
        // SAFETY: the CPU has AVX-512F and POPCNT (just detected), the only features it
        // enables.
        unsafe { avx512::write_below::<SETTLE>(values, bar, low, first, slots) }
    } else if avx2::filter_detected() {
        // SAFETY: the CPU has AVX2, POPCNT and BMI1 (just detected), the only features it
        // enables.
        unsafe { avx2::write_below::<SETTLE>(values, bar, low, first, slots) }
    } else {
        // SAFETY: this build enables SSE2 (the cfg above), the only feature it enables.
        unsafe { sse2::write_below::<SETTLE>(values, bar, low, first, slots) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    portable::write_below::<SETTLE>(values, bar, low, first, slots)
}

/// Writes the rate `amount / (now - start)` of each row into `slots` ([`rate_or_nan`]),
/// the amount being the row's progress, times its weight when there are `weights`. Rows
/// past the shortest of the columns and `slots` are not written.
pub(crate) fn fill_rates(
    now_secs: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start_secs: &[f64],
    slots: &mut [f64],
) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        unsafe { avx2::fill_rates(now_secs, progress, weights, start_secs, slots) };
        return;
    }
    plain_fill_rates(now_secs, progress, weights, start_secs, slots);
}

/// [`fill_rates`], the rates also added to `lanes` as [`add_run`] adds a run's values
/// (row `i` to lane `i % LANES`), and their squares to `squares` if given (as `add_run`
/// adds `Summand::SquaredDeviation { centre: 0.0 }`), in the same pass: with AVX2, the
/// additions are done while the divisions, which a scan of rates waits on, are under way.
/// Rows past the shortest of the columns and `slots` are neither written nor added.
pub(crate) fn fill_rates_adding(
    now_secs: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start_secs: &[f64],
    slots: &mut [f64],
    lanes: &mut Lanes,
    squares: Option<&mut Lanes>,
) {
    let len = slots
        .len()
        .min(progress.len())
        .min(start_secs.len())
        .min(weights.map_or(usize::MAX, <[f64]>::len));
    let slots = &mut slots[..len];
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        unsafe {
            avx2::fill_rates_adding(
                now_secs, progress, weights, start_secs, slots, lanes, squares,
            )
        };
        return;
    }
    fill_rates(now_secs, progress, weights, start_secs, slots);
    add_run(slots, Summand::Value, lanes);
    if let Some(squares) = squares {
        add_run(slots, Summand::SquaredDeviation { centre: 0.0 }, squares);
    }
}

/// The relative distance, at most, of a rate [`fill_close_rates_adding`] writes to the rate
/// [`rate_or_nan`] gives: `2^-27`, twice the bound worked there.
pub(crate) const CLOSE_RELATIVE: f64 = f64::from_bits((1023 - 27) << 52);

/// The absolute distance added to [`CLOSE_RELATIVE`]'s, for rates too small to be normal:
/// `2^-1060`.
pub(crate) const CLOSE_ABSOLUTE: f64 = f64::from_bits(1 << (1074 - 1060));

/// Whether [`fill_close_rates_adding`] may write rates that differ from the exact ones on
/// this CPU.
#[cfg(test)]
pub(crate) fn close_rates_differ() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx512::detected() {
        return true;
    }
    false
}

/// [`fill_rates_adding`], but each rate may be close to [`rate_or_nan`]'s rather than equal
/// to it: within `CLOSE_RELATIVE` of it relatively, plus `CLOSE_ABSOLUTE` (`|close - exact|
/// <= CLOSE_RELATIVE |exact| + CLOSE_ABSOLUTE`), NaN where it is NaN. Returns whether a
/// rate written may differ from the exact one; where not, the slots and lanes are
/// `fill_rates_adding`'s, bit for bit. The lanes are those of the rates written, added as
/// `fill_rates_adding` adds.
///
/// The rates differ where the CPU has AVX-512, whose rates come from the reciprocal
/// estimate `VRCP14PD` (relative error below `2^-14`, Intel's manual), refined by one
/// Newton-Raphson step of fused multiply-adds and multiplied by the amount: eight rates at
/// a time in less time than `VDIVPD` takes, whose throughput bounds a scan of rates on
/// Intel's cores (`docs/scan-measurements.md`). The bound, for `b` the elapsed time and `a`
/// the amount: `y0 = rcp14(b)` has `|1 - b y0| < 2^-14`; the step `y1 = y0 + y0 (1 - b y0)`,
/// its inner term rounded once and its result once, squares that error and adds at most
/// `1.01 u` (`u = 2^-53`): `|1 - b y1| <= 2^-28 + 1.01 u`. Then `q = a y1`, rounded, is
/// within `2^-28 + 2.02 u` of `a / b` relatively, and the exact rate, `a / b` rounded,
/// within `u`: the two are within `2^-28 + 3.1 u`, about half of `CLOSE_RELATIVE`. (A
/// second step would bring them within `3.2 u`, for two more instructions per eight rates;
/// LATE's bounds allow for `2^-27`, and leave to exact rates the rows within a few times
/// `2^-26` of their stage's threshold, relatively, see `late.rs`.)
/// That holds where no value along the way is too small to be normal or too large to be
/// finite. The elapsed times are checked to lie in `[2^-300, 2^300]` (so the reciprocals
/// are normal), and the amounts to lie in `[+0, 2^700]` (their bits compared as
/// integers, so that a negative amount, `-0.0` too, or a NaN fails), so that no quotient,
/// close or exact, comes near overflow (`2^1000` at most): a quotient just past
/// `f64::MAX` has no exact rate (NaN) where the close one may round to `f64::MAX`. The
/// rates are then at least 0, and the largest square of a lane is the square of its
/// largest rate (rounding is monotonic), which is how it is found. A rate too small to be
/// normal adds at most `2^-1075` by its rounding, far below `CLOSE_ABSOLUTE`; a NaN
/// leaves its lane's sum NaN, and the rows are then done again exactly. Elsewhere (an
/// elapsed time or an amount out of its range, a lane not finite, a CPU without AVX-512)
/// the rates are `fill_rates_adding`'s.
pub(crate) fn fill_close_rates_adding(
    now_secs: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start_secs: &[f64],
    slots: &mut [f64],
    lanes: &mut Lanes,
    mut squares: Option<&mut Lanes>,
) -> bool {
    let len = slots
        .len()
        .min(progress.len())
        .min(start_secs.len())
        .min(weights.map_or(usize::MAX, <[f64]>::len));
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx512::detected() {
        // SAFETY: the CPU has AVX-512F and POPCNT (just detected), the features it enables.
        let close = unsafe {
            avx512::fill_close_rates_adding(
                now_secs,
                progress,
                weights,
                start_secs,
                &mut slots[..len],
                lanes,
                squares.as_deref_mut(),
            )
        };
        if close {
            return true;
        }
    }
    fill_rates_adding(
        now_secs, progress, weights, start_secs, slots, lanes, squares,
    );
    false
}

/// Adds onto each group's total, `totals[g]`, a `[sum, count]` pair that must be
/// `[+0.0, +0.0]` (as [`divide_totals`] leaves it), the sum and count of the rates of its
/// rows ([`rate_or_nan`] of a row's progress, times its weight when there are `weights`,
/// over `now - start`; a row without a rate is left out), added row after row in order.
/// Rows past the shortest of the columns are not read; every group is below
/// `totals.len()`.
///
/// With AVX2, four rates are divided at once and each row's pair is added to its group's
/// with one 16-byte read, addition and write, while the next rates are divided: where rows
/// of many groups are mixed, as a snapshot's nodes are, a sum by group waits on those
/// writes and on the divisions, and here they overlap (Hierarchical's node speeds). That
/// body leaves out only the rows whose elapsed time is not positive, and adds every rate
/// into a sum of its own besides: if that sum is finite, every rate added was, as
/// [`rate_or_nan`] requires, and the totals are its. If not (a rate that a sub-normal
/// elapsed time overflows, or a NaN progress), the rows are added again by the plain
/// body, which checks each rate. A row left out adds `+0.0` there and `-0.0` in the plain
/// body, the same: a sum that starts at `+0.0` is never `-0.0`.
pub(crate) fn rates_by_group(
    now_secs: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start_secs: &[f64],
    groups: &[u32],
    totals: &mut [[f64; 2]],
) {
    debug_assert!(
        totals.iter().flatten().all(|v| v.to_bits() == 0),
        "totals start at +0.0"
    );
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        let every_rate_finite = unsafe {
            avx2::add_rates_by_group(now_secs, progress, weights, start_secs, groups, totals)
        };
        if every_rate_finite {
            return;
        }
        totals.fill([0.0; 2]);
    }
    plain_add_rates_by_group(now_secs, progress, weights, start_secs, groups, totals);
}

/// [`rates_by_group`]'s plain body, adding onto `totals` as they are.
#[inline(always)]
fn plain_add_rates_by_group(
    now: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start: &[f64],
    groups: &[u32],
    totals: &mut [[f64; 2]],
) {
    let rows = groups.iter().zip(progress).zip(start).enumerate();
    for (row, ((&group, &p), &s)) in rows {
        let amount = match weights {
            Some(weights) => match weights.get(row) {
                Some(&w) => p * w,
                None => return,
            },
            None => p,
        };
        add_rate(&mut totals[group as usize], rate_or_nan(amount, now, s));
    }
}

/// Adds one row's rate to its group's `[sum, count]`, as [`rates_by_group`] does.
#[inline(always)]
fn add_rate(total: &mut [f64; 2], rate: f64) {
    let defined = !rate.is_nan();
    total[0] += if defined { rate } else { -0.0 };
    total[1] += if defined { 1.0 } else { 0.0 };
}

/// How many of `keys` are at most `key` (`or_equal`) or below it: a count with no branch
/// (Garraghan's sorted level times count the few dozen keys of a chunk to find a slot).
/// With AVX-512 or AVX2 where the CPU has it: SSE2 has no comparison of 64-bit integers,
/// and its emulation took over a quarter of the samples of a Garraghan run on a tenth of
/// the datacenter day (`perf record`).
pub(crate) fn count_below(keys: &[i64], key: i64, or_equal: bool) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if avx512::detected() {
        // SAFETY: the CPU has AVX-512F and POPCNT (just detected), the only features it
        // enables.
        return unsafe { avx512::count_below(keys, key, or_equal) };
    } else if avx2::detected() {
        // SAFETY: the CPU has AVX2 (just detected), the only feature it enables.
        return unsafe { avx2::count_below(keys, key, or_equal) };
    }
    plain_count_below(keys, key, or_equal)
}

/// [`count_below`]'s body.
#[inline(always)]
fn plain_count_below(keys: &[i64], key: i64, or_equal: bool) -> usize {
    if or_equal {
        keys.iter().map(|&k| usize::from(k <= key)).sum()
    } else {
        keys.iter().map(|&k| usize::from(k < key)).sum()
    }
}

/// Writes the rows of `rows` whose group is marked (`marks[groups[row]] != 0`), in order, at
/// the start of `slots` (as long at least), and returns how many; the slots past the count
/// may be written with rows of no meaning. A row past `groups` is not kept, nor is a row
/// of a group past `marks`. Hierarchical keeps its wrapped detector's rows on slow nodes
/// with it.
///
/// The answers for 64 rows are gathered as the bits of a word, then the kept rows (few)
/// written out, so that the lookups wait on no store. Where `marks` is as long as a power
/// of two and no row is past `groups` (checked once, by the largest row), the lookups are
/// not checked one by one: a row's group is read unchecked, and its mark at the group's
/// low bits (`group & (marks.len() - 1)`, always inside `marks`), while the groups read
/// are OR-ed together. A group past `marks` has a bit at or above `marks.len()`, so the
/// OR of the groups is below `marks.len()` iff every group read is inside; if it is not,
/// the rows are filtered again by [`plain_keep_marked`]. With each lookup clamped, the
/// filter took a quarter of Hierarchical's scan of the bench's 10^4 tasks on 100 nodes,
/// and a sixth like this (`perf record`; a fifth on the Xeon of 2026-11-28;
/// `docs/scan-measurements.md`). With AVX-512 (and at least 4 marks), sixteen rows are
/// looked up at once, by gathers, and their kept rows packed into one store
/// ([`avx512::keep_marked`]); the rest, fewer than sixteen, as above
/// (`docs/scan-measurements.md`, *The flagged rows' nodes by gathers*).
pub(crate) fn keep_marked(rows: &[u32], groups: &[u32], marks: &[u8], slots: &mut [u32]) -> usize {
    keep_marked_with(Vectors::of_cpu(), rows, groups, marks, slots)
}

/// [`keep_marked`] with `vectors` at most: sixteen rows at a time with AVX-512, one after
/// another otherwise.
fn keep_marked_with(
    vectors: Vectors,
    rows: &[u32],
    groups: &[u32],
    marks: &[u8],
    slots: &mut [u32],
) -> usize {
    let largest = with_widest_vectors(|| rows.iter().copied().max());
    let rows_inside = largest.is_none_or(|row| (row as usize) < groups.len());
    if !(rows_inside && marks.len().is_power_of_two()) {
        return plain_keep_marked(rows, groups, marks, slots);
    }
    let low_bits = marks.len() - 1;
    let (mut kept, mut seen, mut done) = (0, 0u32, 0);
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if vectors.min(Vectors::of_cpu()) == Vectors::Avx512
        && marks.len() >= 4
        && groups.len() <= 1 << 31
        && slots.len() >= rows.len()
    {
        // SAFETY: the CPU has AVX-512F and POPCNT (no wider than `of_cpu`); every row is below
        // `groups.len()`, itself at most 2^31, `marks.len()` is a power of two of at least
        // 4, and `slots` is as long as the rows, as the body needs.
        (kept, seen, done) = unsafe { avx512::keep_marked(rows, groups, marks, slots) };
    }
    for rows in rows[done..].chunks(64) {
        let mut word = 0u64;
        for (i, &row) in rows.iter().enumerate() {
            // SAFETY: `row` is at most the largest row, which is below `groups.len()`
            // (`usize` is at least as wide as `u32`, below).
            let group = unsafe { *groups.get_unchecked(row as usize) };
            seen |= group;
            // SAFETY: `marks.len()` is a power of two, so not zero, and `low_bits` keeps
            // an index below it.
            let mark = unsafe { *marks.get_unchecked(group as usize & low_bits) };
            word |= u64::from(mark != 0) << i;
        }
        for i in super::set_bits(word) {
            slots[kept] = rows[i];
            kept += 1;
        }
    }
    if seen as usize > low_bits {
        return plain_keep_marked(rows, groups, marks, slots);
    }
    kept
}

// `keep_marked`'s check of its rows by the largest holds for every row only if converting
// a row to `usize` loses nothing.
const _: () = assert!(usize::BITS >= u32::BITS);

/// [`keep_marked`] with each lookup checked: indices are clamped and answers masked rather
/// than checked, so that the loop has no branch.
fn plain_keep_marked(rows: &[u32], groups: &[u32], marks: &[u8], slots: &mut [u32]) -> usize {
    let (Some(last_row), Some(last_group)) =
        (groups.len().checked_sub(1), marks.len().checked_sub(1))
    else {
        return 0;
    };
    let mut kept = 0;
    for rows in rows.chunks(64) {
        let mut word = 0u64;
        for (i, &row) in rows.iter().enumerate() {
            let row = row as usize;
            let group = groups[row.min(last_row)] as usize;
            let inside = (row <= last_row) & (group <= last_group);
            let marked = marks[group.min(last_group)] != 0;
            word |= u64::from(marked & inside) << i;
        }
        for i in super::set_bits(word) {
            slots[kept] = rows[i];
            kept += 1;
        }
    }
    kept
}

/// The widest vector instructions a kernel uses: the widest the CPU has
/// ([`Vectors::of_cpu`]), or narrower ones, which the tests run too. A kernel given a width
/// the CPU lacks uses the CPU's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(
    not(all(target_arch = "x86_64", target_feature = "sse2")),
    allow(dead_code)
)]
pub(crate) enum Vectors {
    /// Plain Rust, compiled for the target (SSE2's vectors on x86_64).
    Plain,
    /// AVX2's, four numbers of 64 bits.
    Avx2,
    /// AVX-512's, eight (with POPCNT).
    Avx512,
}

impl Vectors {
    /// The widest the CPU has (detected at run time; the standard library caches the
    /// answer).
    #[inline(always)]
    pub(crate) fn of_cpu() -> Vectors {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if avx512::detected() {
            return Vectors::Avx512;
        } else if avx2::detected() {
            return Vectors::Avx2;
        }
        Vectors::Plain
    }

    /// Every width up to the CPU's, narrowest first.
    #[cfg(test)]
    fn up_to_cpu() -> impl Iterator<Item = Vectors> {
        let widest = Vectors::of_cpu();
        [Vectors::Plain, Vectors::Avx2, Vectors::Avx512]
            .into_iter()
            .filter(move |&v| v <= widest)
    }
}

/// Writes each total's `sum / count` into `means` (as long as `totals`), and adds the means
/// to `lanes` and `counts` as [`add_run_defined`] adds a run: a scan of many nodes waits
/// on these divisions, and then on the additions of the nodes' average. Leaves every total
/// `[+0.0, +0.0]`, written as it is read, so that the next sums by group
/// ([`rates_by_group`]) need no pass of their own to clear them. With the CPU's widest
/// vectors; see [`divide_totals_with`].
pub(crate) fn divide_totals(
    totals: &mut [[f64; 2]],
    means: &mut [f64],
    lanes: &mut Lanes,
    counts: &mut [u64; LANES],
) {
    divide_totals_with(Vectors::of_cpu(), totals, means, lanes, counts);
}

/// [`divide_totals`] with `vectors` at most: AVX-512 divides eight totals at once and adds
/// the eight quotients while the next are divided; AVX2 divides four, and the means are
/// added after, as in plain Rust. On the Zen 5 measured, a division of eight took as long
/// as one of four, and the additions (each lane waiting on its last) took as long again
/// on their own.
fn divide_totals_with(
    vectors: Vectors,
    totals: &mut [[f64; 2]],
    means: &mut [f64],
    lanes: &mut Lanes,
    counts: &mut [u64; LANES],
) {
    debug_assert_eq!(means.len(), totals.len(), "a mean per total");
    let vectors = vectors.min(Vectors::of_cpu());
    let eights = match vectors {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: the CPU has AVX-512F and POPCNT (no wider than `of_cpu`), what it enables.
        Vectors::Avx512 => unsafe { avx512::divide_totals_adding(totals, means, lanes, counts) },
        _ => 0,
    };
    // A multiple of `LANES`: the rest's values go to their lanes from the first.
    let (totals, means) = (&mut totals[eights..], &mut means[eights..]);
    let fours = match vectors {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: the CPU has AVX2 (no narrower than `Avx2`), the only feature it enables.
        Vectors::Avx2 | Vectors::Avx512 => unsafe { avx2::divide_totals(totals, means) },
        _ => 0,
    };
    for (mean, total) in means[fours..].iter_mut().zip(&mut totals[fours..]) {
        let [sum, count] = std::mem::take(total);
        *mean = sum / count;
    }
    add_run_defined(means, Summand::Value, lanes, counts);
}

/// Runs `work`, compiled with AVX-512 or AVX2 where the CPU has it (detected at run time):
/// for a loop of plain Rust that LLVM turns into vector instructions, two or four times as
/// wide as SSE2's (Hierarchical's marks of 10^4 nodes below a bar took 0.05 ns per node
/// with AVX-512 against 0.11 with AVX2 on the Zen 5 measured; no CPU with AVX-512 of
/// another kind was measured). What `work` computes is the same either way.
#[inline(always)]
pub(crate) fn with_widest_vectors<R>(work: impl FnOnce() -> R) -> R {
    run_with(Vectors::of_cpu(), work)
}

/// Runs `work`, inlined into a function compiled with `vectors` at most.
#[inline(always)]
fn run_with<R>(vectors: Vectors, work: impl FnOnce() -> R) -> R {
    match vectors.min(Vectors::of_cpu()) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: the CPU has AVX-512F and POPCNT (no wider than `of_cpu`), what it enables.
        Vectors::Avx512 => unsafe { avx512::run(work) },
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        // SAFETY: the CPU has AVX2 (no wider than `of_cpu`), the only feature it enables.
        Vectors::Avx2 => unsafe { avx2::run(work) },
        _ => work(),
    }
}

/// [`fill_rates`]'s body.
#[inline(always)]
fn plain_fill_rates(
    now: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start: &[f64],
    slots: &mut [f64],
) {
    // Zipped slices, no index: the loops run as vectors.
    let rated = slots.iter_mut().zip(progress).zip(start);
    match weights {
        None => rated.for_each(|((slot, &p), &s)| *slot = rate_or_nan(p, now, s)),
        Some(weights) => rated
            .zip(weights)
            .for_each(|(((slot, &p), &s), &w)| *slot = rate_or_nan(p * w, now, s)),
    }
}

/// The last rows of a column of rates whose whole blocks of `LANES` rows are done (the
/// first `whole` rows): their rates (exact) into `rest`, each added to the first lanes at
/// its place in the block, and its square to the second if `N` is 2.
#[inline(always)]
fn fill_tail_adding<const N: usize>(
    now: f64,
    progress: &[f64],
    weights: Option<&[f64]>,
    start: &[f64],
    whole: usize,
    rest: &mut [f64],
    lanes: &mut [&mut Lanes; N],
) {
    let tail = whole..whole + rest.len();
    let weights = weights.map(|w| &w[tail.clone()]);
    plain_fill_rates(now, &progress[tail.clone()], weights, &start[tail], rest);
    for (lane, &v) in rest.iter().enumerate() {
        add_one(lanes[0], lane, v);
        if N > 1 {
            add_one(lanes[1], lane, v * v);
        }
    }
}

/// The rate `amount / (now - start)` of a row, NaN (no rate) when the row started at `now`
/// or later, or when the rate is not finite (a sub-normal elapsed time can overflow it).
/// Without branches, so that a pass over every row runs as vectors.
#[inline(always)]
pub(crate) fn rate_or_nan(amount: f64, now_secs: f64, start_secs: f64) -> f64 {
    let elapsed = now_secs - start_secs;
    let rate = amount / elapsed;
    // `&`, not `&&`, and `abs() <` rather than `is_finite`: a select, not a branch.
    if (elapsed > 0.0) & (rate.abs() < f64::INFINITY) {
        rate
    } else {
        f64::NAN
    }
}

/// For each byte `b`, the positions of its set bits in increasing order, then zeros: the
/// rows of eight whose answers are the bits of `b`.
static SET_BITS: [[u32; 8]; 256] = {
    let mut table = [[0u32; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut count) = (0, 0);
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][count] = bit as u32;
                count += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The number of set bits of each byte (the x86_64 baseline has no population count).
static BIT_COUNT: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = (byte as u32).count_ones() as u8;
        byte += 1;
    }
    table
};

/// Writes the rows `base + bit` of the set bits of `byte` at the start of `slots`, and
/// returns how many there are. All eight slots are written; those past the count are
/// overwritten by the next call.
#[inline(always)]
fn write_set_bits(byte: usize, base: u32, slots: &mut [u32; 8]) -> usize {
    let bits = &SET_BITS[byte];
    for (slot, &bit) in slots.iter_mut().zip(bits) {
        *slot = base + bit;
    }
    usize::from(BIT_COUNT[byte])
}

/// Whether `v` is below `bar` but not below `low`: a candidate that LATE's bounds leave
/// unsettled. A NaN is below nothing, so the negation is meant.
#[inline(always)]
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(crate) fn unsettled_by(v: f64, bar: f64, low: f64) -> bool {
    (v < bar) & !(v < low)
}

/// The most kept rows of a word of 64 that [`gather_below`] writes one set bit at a time;
/// a word that keeps more is written eight rows at a time from the table.
const SPARSE_WORD: u32 = 8;

/// [`write_below_settling`]'s body: the answers of 64 rows gathered into a word, eight
/// at a time by `byte_of` (bit `k` for row `k` below the bar given). A word that keeps few
/// rows (as LATE's do on the bench's snapshot, where few tasks straggle) is written one
/// set bit at a time, a branch per kept row; a word that keeps more, eight rows at a time
/// from the table ([`write_set_bits`]), whose eight slots are written whatever the count,
/// without a branch on the answers. The last rows (fewer than 64) eight at a time from
/// the table, then one by one, each written and counted if kept.
///
/// With `SETTLE`, the kept rows not below `low` are counted as they are written: one by
/// one in a word written a bit at a time, from a second word of answers (below `low`) in
/// a word written from the table, where comparing every row once more costs less than
/// reading the kept ones again.
#[inline(always)]
fn gather_below<const SETTLE: bool>(
    values: &[f64],
    bar: f64,
    low: f64,
    first: u32,
    slots: &mut [u32],
    byte_of: impl Fn(&[f64; 8], f64) -> usize,
) -> (usize, usize) {
    let (mut count, mut unsettled) = (0, 0);
    // Where the last eight slots start. The count never passes it (eight rows keep at most
    // eight, and `slots` has room for the rows and `SPARE` more), so the clamp never moves
    // a kept row; it bounds the eight slots written from the table.
    let last = slots.len().saturating_sub(8);
    let write_eight = |slots: &mut [u32], count: usize, below: usize, base: u32| {
        let at = count.min(last);
        let eight_slots: &mut [u32; 8] =
            (&mut slots[at..at + 8]).try_into().expect("room for eight");
        at + write_set_bits(below, base, eight_slots)
    };
    fn eights_of(rows: &[f64]) -> impl Iterator<Item = &[f64; 8]> {
        rows.chunks_exact(8)
            .map(|e| e.try_into().expect("eight values"))
    }
    let words = values.chunks_exact(64);
    let rest = words.remainder();
    for (w, word_rows) in words.enumerate() {
        let base = first + 64 * w as u32;
        let word_below = |bar: f64| {
            eights_of(word_rows).enumerate().fold(0u64, |word, (k, e)| {
                word | ((byte_of(e, bar) as u64) << (8 * k))
            })
        };
        let word = word_below(bar);
        if word.count_ones() <= SPARSE_WORD {
            for bit in super::set_bits(word) {
                let at = count.min(last);
                slots[at] = base + bit as u32;
                count = at + 1;
                unsettled += usize::from(SETTLE && unsettled_by(word_rows[bit], bar, low));
            }
        } else {
            for k in 0..8 {
                let below = (word >> (8 * k)) as usize & 0xff;
                count = write_eight(slots, count, below, base + 8 * k as u32);
            }
            if SETTLE {
                unsettled += (word & !word_below(low)).count_ones() as usize;
            }
        }
    }
    let rest_first = first + (values.len() - rest.len()) as u32;
    let eights = eights_of(rest);
    let tail = &rest[rest.len() / 8 * 8..];
    for (k, eight) in eights.enumerate() {
        let below = byte_of(eight, bar);
        count = write_eight(slots, count, below, rest_first + 8 * k as u32);
        if SETTLE {
            unsettled += usize::from(BIT_COUNT[below & !byte_of(eight, low)]);
        }
    }
    let tail_first = first + (values.len() - tail.len()) as u32;
    for (i, &v) in tail.iter().enumerate() {
        slots[count] = tail_first + i as u32;
        count += usize::from(v < bar);
        unsettled += usize::from(SETTLE && unsettled_by(v, bar, low));
    }
    (count, unsettled)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128d, _mm_cmplt_pd, _mm_cvtsd_f64, _mm_movemask_pd, _mm_set1_pd, _mm_setr_pd,
        _mm_unpackhi_pd,
    };

    use super::LANES;

    /// Values `2k` and `2k + 1` of `values`, as one vector (one unaligned load).
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn pair(values: &[f64; LANES], k: usize) -> __m128d {
        _mm_setr_pd(values[2 * k], values[2 * k + 1])
    }

    /// The two halves of a vector.
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(super) fn halves(v: __m128d) -> [f64; 2] {
        [_mm_cvtsd_f64(v), _mm_cvtsd_f64(_mm_unpackhi_pd(v, v))]
    }

    /// [`super::write_below_settling`]: eight rows' answers from four comparisons of two.
    #[target_feature(enable = "sse2")]
    pub(super) fn write_below<const SETTLE: bool>(
        values: &[f64],
        bar: f64,
        low: f64,
        first: u32,
        slots: &mut [u32],
    ) -> (usize, usize) {
        super::gather_below::<SETTLE>(values, bar, low, first, slots, |eight, bar| {
            let bars = _mm_set1_pd(bar);
            (0..4).fold(0, |byte, k| {
                let below = _mm_movemask_pd(_mm_cmplt_pd(pair(eight, k), bars));
                byte | ((below as usize) << (2 * k))
            })
        })
    }
}

/// The AVX2 bodies: lanes `4k` to `4k + 3` in vector `k`, each lane doing what the SSE2
/// and plain bodies do.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2 {
    use std::arch::x86_64::{
        __m256d, __m256i, _CMP_GT_OQ, _CMP_LT_OQ, _CMP_ORD_Q, _mm_add_pd, _mm_setr_pd,
        _mm256_add_pd, _mm256_and_pd, _mm256_andnot_pd, _mm256_castpd_si256,
        _mm256_castpd256_pd128, _mm256_castsi256_pd, _mm256_cmp_pd, _mm256_div_pd,
        _mm256_extractf128_pd, _mm256_max_pd, _mm256_min_pd, _mm256_movemask_pd, _mm256_mul_pd,
        _mm256_or_pd, _mm256_set1_pd, _mm256_setr_epi64x, _mm256_setr_pd, _mm256_sub_epi64,
        _mm256_sub_pd, _mm256_unpackhi_pd, _mm256_unpacklo_pd,
    };

    use super::sse2::halves;
    use super::{LANES, Lanes, Summand};

    /// Whether the CPU has AVX2 (the standard library detects it once, then reads a cached
    /// answer).
    #[inline(always)]
    pub(super) fn detected() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// Whether the CPU has what the AVX2 filter enables besides AVX2: POPCNT, to count a
    /// word's kept rows, and BMI1, to find them (every CPU with AVX2 we know of has both,
    /// but they are separate features).
    #[inline(always)]
    pub(super) fn filter_detected() -> bool {
        detected()
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
    }

    /// Values `4k` to `4k + 3` of `values`, as one vector (one unaligned load).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn quad(values: &[f64; LANES], k: usize) -> __m256d {
        let v = &values[4 * k..4 * k + 4];
        _mm256_setr_pd(v[0], v[1], v[2], v[3])
    }

    /// The four values of a vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn quarters(v: __m256d) -> [f64; 4] {
        let [a, b] = halves(_mm256_castpd256_pd128(v));
        let [c, d] = halves(_mm256_extractf128_pd::<1>(v));
        [a, b, c, d]
    }

    /// Lanes as two vectors of four.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(lanes: &[f64; LANES]) -> [__m256d; 2] {
        std::array::from_fn(|k| quad(lanes, k))
    }

    /// Two vectors of four back into lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(vectors: [__m256d; 2], lanes: &mut [f64; LANES]) {
        for (k, v) in vectors.into_iter().enumerate() {
            lanes[4 * k..4 * k + 4].copy_from_slice(&quarters(v));
        }
    }

    /// [`super::add_run`] over whole blocks of `LANES` values.
    #[target_feature(enable = "avx2")]
    pub(super) fn add_blocks(values: &[f64], summand: Summand, lanes: &mut Lanes) {
        let mut sum = load(&lanes.sum);
        let mut max = load(&lanes.max);
        each_summand(values, summand, |k, v| {
            sum[k] = _mm256_add_pd(sum[k], v);
            max[k] = _mm256_max_pd(v, max[k]);
        });
        store(sum, &mut lanes.sum);
        store(max, &mut lanes.max);
    }

    /// [`super::add_run_pair`] over whole blocks of `LANES` values of two runs as long.
    #[target_feature(enable = "avx2")]
    pub(super) fn add_block_pairs(
        a: &[f64],
        b: &[f64],
        summand: Summand,
        lanes_a: &mut Lanes,
        lanes_b: &mut Lanes,
    ) {
        let (mut sum_a, mut max_a) = (load(&lanes_a.sum), load(&lanes_a.max));
        let (mut sum_b, mut max_b) = (load(&lanes_b.sum), load(&lanes_b.max));
        let blocks = a.chunks_exact(LANES).zip(b.chunks_exact(LANES));
        let mut add = |x: &[f64], y: &[f64], of: &dyn Fn(__m256d) -> __m256d| {
            let (x, y): (&[f64; LANES], &[f64; LANES]) = (
                x.try_into().expect("a block"),
                y.try_into().expect("a block"),
            );
            for k in 0..2 {
                let (u, v) = (of(quad(x, k)), of(quad(y, k)));
                sum_a[k] = _mm256_add_pd(sum_a[k], u);
                max_a[k] = _mm256_max_pd(u, max_a[k]);
                sum_b[k] = _mm256_add_pd(sum_b[k], v);
                max_b[k] = _mm256_max_pd(v, max_b[k]);
            }
        };
        // One loop per kind of summand, so that neither has a choice in it.
        match summand {
            Summand::Value => blocks.for_each(|(x, y)| add(x, y, &|v| v)),
            Summand::SquaredDeviation { centre } => {
                let centre = _mm256_set1_pd(centre);
                blocks.for_each(|(x, y)| {
                    add(x, y, &|v| {
                        let deviation = _mm256_sub_pd(v, centre);
                        _mm256_mul_pd(deviation, deviation)
                    });
                });
            }
        }
        store(sum_a, &mut lanes_a.sum);
        store(max_a, &mut lanes_a.max);
        store(sum_b, &mut lanes_b.sum);
        store(max_b, &mut lanes_b.max);
    }

    /// [`super::add_run_defined`] over whole blocks of `LANES` values: a lane's count goes
    /// down by the comparison's mask (all ones, -1, for a defined summand).
    #[target_feature(enable = "avx2")]
    pub(super) fn add_blocks_defined(
        values: &[f64],
        summand: Summand,
        lanes: &mut Lanes,
        counts: &mut [u64; LANES],
    ) {
        let mut sum = load(&lanes.sum);
        let mut max = load(&lanes.max);
        let mut count: [__m256i; 2] = std::array::from_fn(|k| {
            let c = &counts[4 * k..4 * k + 4];
            _mm256_setr_epi64x(c[0] as i64, c[1] as i64, c[2] as i64, c[3] as i64)
        });
        let negative_zero = _mm256_set1_pd(-0.0);
        each_summand(values, summand, |k, v| {
            let defined = _mm256_cmp_pd::<_CMP_ORD_Q>(v, v);
            let addend = _mm256_or_pd(
                _mm256_and_pd(defined, v),
                _mm256_andnot_pd(defined, negative_zero),
            );
            sum[k] = _mm256_add_pd(sum[k], addend);
            max[k] = _mm256_max_pd(v, max[k]);
            count[k] = _mm256_sub_epi64(count[k], _mm256_castpd_si256(defined));
        });
        store(sum, &mut lanes.sum);
        store(max, &mut lanes.max);
        for (k, c) in count.iter().enumerate() {
            let four = quarters(_mm256_castsi256_pd(*c)).map(f64::to_bits);
            counts[4 * k..4 * k + 4].copy_from_slice(&four);
        }
    }

    /// Calls `add(k, summands)` for the vectors `k` of four summands of each block of
    /// `LANES` values, in order; one loop per kind of summand.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn each_summand(values: &[f64], summand: Summand, mut add: impl FnMut(usize, __m256d)) {
        let blocks = values.chunks_exact(LANES);
        match summand {
            Summand::Value => {
                for block in blocks {
                    let block: &[f64; LANES] = block.try_into().expect("a block");
                    for k in 0..2 {
                        add(k, quad(block, k));
                    }
                }
            }
            Summand::SquaredDeviation { centre } => {
                let centre = _mm256_set1_pd(centre);
                for block in blocks {
                    let block: &[f64; LANES] = block.try_into().expect("a block");
                    for k in 0..2 {
                        let deviation = _mm256_sub_pd(quad(block, k), centre);
                        add(k, _mm256_mul_pd(deviation, deviation));
                    }
                }
            }
        }
    }

    /// [`super::write_below_settling`]: eight rows' answers from two comparisons of four;
    /// a word's kept rows counted by `popcnt` and found by `tzcnt`.
    #[target_feature(enable = "avx2,popcnt,bmi1")]
    pub(super) fn write_below<const SETTLE: bool>(
        values: &[f64],
        bar: f64,
        low: f64,
        first: u32,
        slots: &mut [u32],
    ) -> (usize, usize) {
        super::gather_below::<SETTLE>(values, bar, low, first, slots, |eight, bar| {
            let bars = _mm256_set1_pd(bar);
            let below = |k| _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(quad(eight, k), bars));
            (below(0) | (below(1) << 4)) as usize
        })
    }

    /// [`super::fill_rates_adding`] over `slots.len()` rows (the columns at least as
    /// long): each block of `LANES` rates computed, stored and added to the lanes, kept in
    /// registers; the last rows (fewer than `LANES`) filled, then added one by one. The
    /// squares, when asked for, are added in a loop of their own, so that the plain loop
    /// has no choice in it.
    ///
    /// The blocks are first divided without [`super::rate_or_nan`]'s checks, which cost
    /// a fifth of the loop: each quotient stored and added as it comes, and the least
    /// elapsed time kept. If that is positive and the rates' lanes come out finite, every
    /// quotient was a rate `rate_or_nan` gives (a NaN or infinite one would have left its
    /// lane NaN or infinite), so the slots and lanes are those of the checked loop, bit for
    /// bit. If not (a row started at or after `now`, a NaN, a rate that overflows, or
    /// lanes that came in or overflowed to infinity), the lanes are put back as they came
    /// and the blocks done again by the checked loop.
    #[target_feature(enable = "avx2")]
    pub(super) fn fill_rates_adding(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        slots: &mut [f64],
        lanes: &mut Lanes,
        squares: Option<&mut Lanes>,
    ) {
        match squares {
            None => fill_adding(now, progress, weights, start, slots, &mut [lanes]),
            Some(squares) => {
                fill_adding(now, progress, weights, start, slots, &mut [lanes, squares])
            }
        }
    }

    /// [`fill_rates_adding`] with `N` sets of lanes: the rates into the first, their squares
    /// into the second.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn fill_adding<const N: usize>(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        slots: &mut [f64],
        lanes: &mut [&mut Lanes; N],
    ) {
        let whole = slots.len() / LANES * LANES;
        let (blocks, rest) = slots.split_at_mut(whole);
        let before: [Lanes; N] = std::array::from_fn(|i| *lanes[i]);
        if !add_quotients(now, progress, weights, start, blocks, lanes) {
            for (lanes, before) in lanes.iter_mut().zip(before) {
                **lanes = before;
            }
            add_checked_rates(now, progress, weights, start, blocks, lanes);
        }
        super::fill_tail_adding(now, progress, weights, start, whole, rest, lanes);
    }

    /// Adds a block's four-and-four rates (or any values) to the lanes of [`fill_adding`]:
    /// each into the first lanes, its square into the second if `N` is 2.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_quads<const N: usize>(
        quads: [__m256d; 2],
        sum: &mut [[__m256d; 2]; N],
        max: &mut [[__m256d; 2]; N],
    ) {
        for (k, v) in quads.into_iter().enumerate() {
            for i in 0..N {
                // The rate, then its square (`(v - 0)^2`, which is `v * v`).
                let u = if i == 0 { v } else { _mm256_mul_pd(v, v) };
                sum[i][k] = _mm256_add_pd(sum[i][k], u);
                max[i][k] = _mm256_max_pd(u, max[i][k]);
            }
        }
    }

    /// [`fill_adding`]'s blocks divided without checks: each quotient `amount / (now -
    /// start)` stored in `blocks` and added to the lanes. Returns whether every one was a
    /// rate [`super::rate_or_nan`] gives: the least elapsed time positive and the rates'
    /// lanes finite.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_quotients<const N: usize>(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        blocks: &mut [f64],
        lanes: &mut [&mut Lanes; N],
    ) -> bool {
        let mut sum: [[__m256d; 2]; N] = std::array::from_fn(|i| load(&lanes[i].sum));
        let mut max: [[__m256d; 2]; N] = std::array::from_fn(|i| load(&lanes[i].max));
        let now = _mm256_set1_pd(now);
        let mut least = [_mm256_set1_pd(f64::INFINITY); 2];
        let firsts = (0..blocks.len()).step_by(LANES);
        let mut add = |amount: [__m256d; 2], first: usize, out: &mut [f64]| {
            let start = block(start, first);
            let rates: [__m256d; 2] = std::array::from_fn(|k| {
                let elapsed = _mm256_sub_pd(now, quad(start, k));
                // `minpd` keeps its second operand where the first is NaN, whose
                // quotient is NaN and leaves its lane NaN.
                least[k] = _mm256_min_pd(elapsed, least[k]);
                _mm256_div_pd(amount[k], elapsed)
            });
            store(rates, out.try_into().expect("a block"));
            add_quads(rates, &mut sum, &mut max);
        };
        // One loop with weights and one without, so that neither has a choice in it.
        match weights {
            None => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    let p = block(progress, first);
                    add(std::array::from_fn(|k| quad(p, k)), first, out);
                }
            }
            Some(weights) => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    let (p, w) = (block(progress, first), block(weights, first));
                    let amount = std::array::from_fn(|k| _mm256_mul_pd(quad(p, k), quad(w, k)));
                    add(amount, first, out);
                }
            }
        }
        for i in 0..N {
            store(sum[i], &mut lanes[i].sum);
            store(max[i], &mut lanes[i].max);
        }
        let mut least_of_lanes = [0.0; LANES];
        store(least, &mut least_of_lanes);
        least_of_lanes.iter().all(|&e| e > 0.0) && lanes[0].sum.iter().all(|s| s.is_finite())
    }

    /// [`fill_adding`]'s blocks with [`super::rate_or_nan`]'s checks: each rate computed,
    /// stored and added to the lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_checked_rates<const N: usize>(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        blocks: &mut [f64],
        lanes: &mut [&mut Lanes; N],
    ) {
        let mut sum: [[__m256d; 2]; N] = std::array::from_fn(|i| load(&lanes[i].sum));
        let mut max: [[__m256d; 2]; N] = std::array::from_fn(|i| load(&lanes[i].max));
        let mut add = |rates: &[f64; LANES]| {
            add_quads(std::array::from_fn(|k| quad(rates, k)), &mut sum, &mut max);
        };
        // One loop with weights and one without, so that neither has a choice in it.
        let firsts = (0..blocks.len()).step_by(LANES);
        match weights {
            None => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    let (p, s) = (block(progress, first), block(start, first));
                    let rates = std::array::from_fn(|i| super::rate_or_nan(p[i], now, s[i]));
                    out.copy_from_slice(&rates);
                    add(&rates);
                }
            }
            Some(weights) => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    let (p, s) = (block(progress, first), block(start, first));
                    let w = block(weights, first);
                    let rates = std::array::from_fn(|i| super::rate_or_nan(p[i] * w[i], now, s[i]));
                    out.copy_from_slice(&rates);
                    add(&rates);
                }
            }
        }
        for i in 0..N {
            store(sum[i], &mut lanes[i].sum);
            store(max[i], &mut lanes[i].max);
        }
    }

    /// [`super::with_widest_vectors`]: `work`, inlined here, compiled with AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn run<R>(work: impl FnOnce() -> R) -> R {
        work()
    }

    /// [`super::divide_totals`] over the whole fours of `totals`, spelt out four at a time
    /// (as one loop, LLVM divided one pair at a time); returns how many it wrote.
    #[target_feature(enable = "avx2")]
    pub(super) fn divide_totals(totals: &mut [[f64; 2]], means: &mut [f64]) -> usize {
        let fours = means.chunks_exact_mut(4).zip(totals.chunks_exact_mut(4));
        let done = fours.len() * 4;
        for (means, totals) in fours {
            let sums: [f64; 4] = std::array::from_fn(|i| totals[i][0]);
            let counts: [f64; 4] = std::array::from_fn(|i| totals[i][1]);
            totals.fill([0.0; 2]);
            for ((mean, sum), count) in means.iter_mut().zip(sums).zip(counts) {
                *mean = sum / count;
            }
        }
        done
    }

    /// [`super::count_below`] compiled with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn count_below(keys: &[i64], key: i64, or_equal: bool) -> usize {
        super::plain_count_below(keys, key, or_equal)
    }

    /// [`super::fill_rates`] compiled with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn fill_rates(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        slots: &mut [f64],
    ) {
        super::plain_fill_rates(now, progress, weights, start, slots);
    }

    /// [`super::rates_by_group`]'s AVX2 body, adding onto `totals` as they are; `false`
    /// if some rate added was not finite (the totals are then not the rule's).
    #[target_feature(enable = "avx2")]
    pub(super) fn add_rates_by_group(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        groups: &[u32],
        totals: &mut [[f64; 2]],
    ) -> bool {
        let len = groups
            .len()
            .min(progress.len())
            .min(start.len())
            .min(weights.map_or(usize::MAX, <[f64]>::len));
        let whole = len / LANES * LANES;
        let added = match weights {
            Some(weights) => add_blocks_by_group(
                now,
                progress,
                start,
                groups,
                totals,
                whole,
                |p, first, k| _mm256_mul_pd(p, quad(block(weights, first), k)),
            ),
            None => add_blocks_by_group(now, progress, start, groups, totals, whole, |p, _, _| p),
        };
        let tail = whole..len;
        super::plain_add_rates_by_group(
            now,
            &progress[tail.clone()],
            weights.map(|w| &w[tail.clone()]),
            &start[tail.clone()],
            &groups[tail],
            totals,
        );
        quarters(added).iter().all(|sum| sum.is_finite())
    }

    /// The `LANES` values of `column` from `first`.
    #[inline(always)]
    fn block(column: &[f64], first: usize) -> &[f64; LANES] {
        column[first..first + LANES].try_into().expect("a block")
    }

    /// [`add_rates_by_group`] over the first `whole` rows (a multiple of `LANES`), the
    /// amount of four rows being `amount(progress, first row of the block, quad)`; returns
    /// the sum of the rates added, in four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn add_blocks_by_group(
        now: f64,
        progress: &[f64],
        start: &[f64],
        groups: &[u32],
        totals: &mut [[f64; 2]],
        whole: usize,
        amount: impl Fn(__m256d, usize, usize) -> __m256d,
    ) -> __m256d {
        let (nows, zeros, ones) = (
            _mm256_set1_pd(now),
            _mm256_set1_pd(0.0),
            _mm256_set1_pd(1.0),
        );
        let mut added = zeros;
        for first in (0..whole).step_by(LANES) {
            let (p, s) = (block(progress, first), block(start, first));
            let groups: &[u32; LANES] = groups[first..first + LANES].try_into().expect("a block");
            for k in 0..2 {
                // `rate_or_nan`, four rows at once, but for the check of the rate: a rate
                // where the elapsed time is positive, whose sum tells if every one was finite.
                let elapsed = _mm256_sub_pd(nows, quad(s, k));
                let rate = _mm256_div_pd(amount(quad(p, k), first, k), elapsed);
                let positive = _mm256_cmp_pd::<_CMP_GT_OQ>(elapsed, zeros);
                // Each row's pair: `[rate, 1]`, or `[+0.0, 0]` where no time has elapsed.
                let sums = _mm256_and_pd(rate, positive);
                let counts = _mm256_and_pd(ones, positive);
                added = _mm256_add_pd(added, sums);
                let (even, odd) = (
                    _mm256_unpacklo_pd(sums, counts),
                    _mm256_unpackhi_pd(sums, counts),
                );
                let pairs = [
                    _mm256_castpd256_pd128(even),
                    _mm256_castpd256_pd128(odd),
                    _mm256_extractf128_pd::<1>(even),
                    _mm256_extractf128_pd::<1>(odd),
                ];
                for (pair, &group) in pairs.into_iter().zip(&groups[4 * k..4 * k + 4]) {
                    let total = &mut totals[group as usize];
                    *total = halves(_mm_add_pd(_mm_setr_pd(total[0], total[1]), pair));
                }
            }
        }
        added
    }
}

/// The AVX-512 body of the filter: sixteen rows compared in two vectors of eight, and
/// their kept rows packed into one vector by `vpcompressd` and stored at once, where the
/// other bodies look the eight rows of each byte of answers up in a table.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx512 {
    use std::arch::x86_64::{
        __m512d, __m512i, _CMP_LT_OQ, _CMP_ORD_Q, _mm512_add_epi32, _mm512_add_pd,
        _mm512_and_si512, _mm512_castpd_si512, _mm512_cmp_pd_mask, _mm512_div_pd, _mm512_fmadd_pd,
        _mm512_fnmadd_pd, _mm512_i32gather_epi32, _mm512_loadu_si512, _mm512_mask_add_epi64,
        _mm512_mask_blend_pd, _mm512_maskz_compress_epi32, _mm512_max_epu64, _mm512_max_pd,
        _mm512_min_pd, _mm512_mul_pd, _mm512_or_si512, _mm512_permutex2var_pd, _mm512_rcp14_pd,
        _mm512_reduce_or_epi32, _mm512_set1_epi32, _mm512_set1_epi64, _mm512_set1_pd,
        _mm512_setr_epi32, _mm512_setr_epi64, _mm512_setr_pd, _mm512_setzero_si512,
        _mm512_slli_epi32, _mm512_srli_epi32, _mm512_srlv_epi32, _mm512_storeu_pd,
        _mm512_storeu_si512, _mm512_sub_pd, _mm512_test_epi32_mask,
    };

    use super::{LANES, Lanes};

    /// [`super::keep_marked`] over the whole sixteens of `rows`, sixteen rows at a time:
    /// their groups gathered (`vpgatherdd`), each mark read as the 4-byte word holding it,
    /// at a multiple of 4 from the start of `marks` (gathered too), and shifted out of it,
    /// and the kept rows packed by `vpcompressd` and stored at once. Returns how many rows
    /// it kept, the OR of the groups it read and how many rows it read.
    ///
    /// # Safety
    ///
    /// The CPU has AVX-512F and POPCNT; every row is below `groups.len()`, which is at most
    /// 2^31 (the gather's indices are signed), and `marks.len()` is a power of two of at
    /// least 4, so that the word holding a mark at a group's low bits lies inside `marks`;
    /// `slots` is as long as `rows` at least.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn keep_marked(
        rows: &[u32],
        groups: &[u32],
        marks: &[u8],
        slots: &mut [u32],
    ) -> (usize, u32, usize) {
        // The low 32 bits of `marks.len() - 1`: the mask itself below 2^32 marks, all ones
        // from 2^32 on, where every group (a `u32`) is inside the marks.
        let low_bits = _mm512_set1_epi32((marks.len() - 1) as i32);
        let (threes, bytes) = (_mm512_set1_epi32(3), _mm512_set1_epi32(0xff));
        let mut seen = _mm512_setzero_si512();
        let mut kept = 0;
        let sixteens = rows.chunks_exact(16);
        let done = rows.len() - sixteens.remainder().len();
        for sixteen in sixteens {
            // SAFETY: `sixteen` is sixteen `u32`, the 64 bytes the load reads.
            let rows = unsafe { _mm512_loadu_si512(sixteen.as_ptr().cast()) };
            // SAFETY: each row is below `groups.len()`, at most 2^31, so read as a signed
            // index it is the row, and the 4 bytes at it are its group (the caller's
            // promise).
            let group = unsafe { _mm512_i32gather_epi32::<4>(rows, groups.as_ptr().cast()) };
            seen = _mm512_or_si512(seen, group);
            let at = _mm512_and_si512(group, low_bits);
            // SAFETY: `at` is below `marks.len()`, a multiple of 4, so the word of 4 bytes
            // from `4 (at / 4)` lies inside `marks`.
            let word = unsafe {
                _mm512_i32gather_epi32::<4>(_mm512_srli_epi32::<2>(at), marks.as_ptr().cast())
            };
            // The mark is the word's byte `at % 4` (x86 is little-endian), shifted down to
            // the low byte, and the row is kept if that byte is not 0.
            let shift = _mm512_slli_epi32::<3>(_mm512_and_si512(at, threes));
            let keep = _mm512_test_epi32_mask(_mm512_srlv_epi32(word, shift), bytes);
            // At most the rows read before these sixteen are kept, so the sixteen slots
            // from `kept` lie within the rows' length, which `slots` has.
            store_packed(&mut slots[kept..kept + 16], keep, rows);
            kept += keep.count_ones() as usize;
        }
        (kept, _mm512_reduce_or_epi32(seen) as u32, done)
    }

    /// Writes the lanes of `rows` that `keep` marks, packed in order (`vpcompressd`), at the
    /// start of `slots`, sixteen slots, in one store; the slots past them get zeros.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn store_packed(slots: &mut [u32], keep: u16, rows: __m512i) {
        let out: &mut [u32; 16] = slots.try_into().expect("sixteen slots");
        // SAFETY: `out` is sixteen writable `u32`, the 64 bytes the store writes (it needs
        // no alignment).
        unsafe {
            _mm512_storeu_si512(
                out.as_mut_ptr().cast(),
                _mm512_maskz_compress_epi32(keep, rows),
            )
        }
    }

    /// Whether the CPU has AVX-512F and POPCNT (detected once, then read from a cache).
    #[inline(always)]
    pub(super) fn detected() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("popcnt")
    }

    /// [`super::count_below`] compiled with AVX-512.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn count_below(keys: &[i64], key: i64, or_equal: bool) -> usize {
        super::plain_count_below(keys, key, or_equal)
    }

    /// [`super::with_widest_vectors`]: `work`, inlined here, compiled with AVX-512.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn run<R>(work: impl FnOnce() -> R) -> R {
        work()
    }

    /// [`super::divide_totals`] over the whole eights of `totals`: eight sums and eight
    /// counts picked out of sixteen numbers by two permutations and divided at once, and
    /// the quotients added to `lanes` and `counts` as the AVX2 body of
    /// [`super::add_run_defined`] adds them; returns how many it wrote.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn divide_totals_adding(
        totals: &mut [[f64; 2]],
        means: &mut [f64],
        lanes: &mut Lanes,
        counts: &mut [u64; LANES],
    ) -> usize {
        let sums = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
        let divisors = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
        let eight =
            |v: &[f64; LANES]| _mm512_setr_pd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        let (mut sum, mut max) = (eight(&lanes.sum), eight(&lanes.max));
        let c = counts.map(|c| c as i64);
        let mut count = _mm512_setr_epi64(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
        let (negative_zero, ones) = (_mm512_set1_pd(-0.0), _mm512_set1_epi64(1));
        let eights = means
            .chunks_exact_mut(LANES)
            .zip(totals.chunks_exact_mut(LANES));
        let done = eights.len() * LANES;
        for (means, totals) in eights {
            let t = totals.as_flattened_mut();
            let (low, high) = (
                _mm512_setr_pd(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]),
                _mm512_setr_pd(t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]),
            );
            t.fill(0.0);
            let quotients = _mm512_div_pd(
                _mm512_permutex2var_pd(low, sums, high),
                _mm512_permutex2var_pd(low, divisors, high),
            );
            let out: &mut [f64; LANES] = means.try_into().expect("eight");
            // SAFETY: `out` is eight writable `f64`, the 64 bytes the store writes (it
            // needs no alignment).
            unsafe { _mm512_storeu_pd(out.as_mut_ptr(), quotients) };
            // As the AVX2 body adds: `-0.0` for an undefined value, which leaves a sum's
            // bits as they are.
            let defined = _mm512_cmp_pd_mask::<_CMP_ORD_Q>(quotients, quotients);
            sum = _mm512_add_pd(sum, _mm512_mask_blend_pd(defined, negative_zero, quotients));
            max = _mm512_max_pd(quotients, max);
            count = _mm512_mask_add_epi64(count, defined, count, ones);
        }
        // SAFETY: each array is eight writable 8-byte numbers, the 64 bytes a store writes.
        unsafe {
            _mm512_storeu_pd(lanes.sum.as_mut_ptr(), sum);
            _mm512_storeu_pd(lanes.max.as_mut_ptr(), max);
            _mm512_storeu_si512(counts.as_mut_ptr().cast(), count);
        }
        done
    }

    /// [`super::fill_close_rates_adding`] over `slots.len()` rows (the columns at least as
    /// long): each block of `LANES` rates by [`close_quotients`], stored and added to the
    /// lanes, the elapsed times' least and largest kept, and the amounts' largest bits (as
    /// unsigned integers); then, if the elapsed times lie in `[2^-300, 2^300]`, the amounts
    /// in `[+0, 2^700]` and the rates' lanes came out finite, the last rows (fewer than
    /// `LANES`) exactly, and `true`. If not, `false`, and the lanes are as they came (the
    /// slots are written over).
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn fill_close_rates_adding(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        slots: &mut [f64],
        lanes: &mut Lanes,
        squares: Option<&mut Lanes>,
    ) -> bool {
        match squares {
            None => close_adding(now, progress, weights, start, slots, &mut [lanes]),
            Some(squares) => {
                close_adding(now, progress, weights, start, slots, &mut [lanes, squares])
            }
        }
    }

    /// [`fill_close_rates_adding`] with `N` sets of lanes: the rates into the first, their
    /// squares into the second.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn close_adding<const N: usize>(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        slots: &mut [f64],
        lanes: &mut [&mut Lanes; N],
    ) -> bool {
        /// The least and largest elapsed times where the bound holds: `2^-300`, `2^300`.
        const LEAST: f64 = f64::from_bits((1023 - 300) << 52);
        const MOST: f64 = f64::from_bits((1023 + 300) << 52);
        /// The largest amount: `2^700`, so that no quotient overflows.
        const AMOUNT_MOST: f64 = f64::from_bits((1023 + 700) << 52);
        let whole = slots.len() / LANES * LANES;
        let (blocks, rest) = slots.split_at_mut(whole);
        let eight = |v: &[f64]| _mm512_setr_pd(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        let mut sum: [__m512d; N] = std::array::from_fn(|i| eight(&lanes[i].sum));
        // The largest rate of each lane among these rows; that of their squares is its
        // square (below).
        let mut max = _mm512_set1_pd(f64::NEG_INFINITY);
        let now_secs = now;
        let now = _mm512_set1_pd(now);
        let (mut least, mut most) = (_mm512_set1_pd(f64::INFINITY), _mm512_set1_pd(0.0));
        // The largest amount, its bits compared as unsigned integers: a negative amount
        // (its sign bit set) or a NaN compares above every amount in range.
        let mut largest_amount = _mm512_set1_epi64(0);
        let firsts = (0..blocks.len()).step_by(LANES);
        let mut add = |amount: __m512d, first: usize, out: &mut [f64]| {
            let elapsed = _mm512_sub_pd(now, eight(&start[first..first + LANES]));
            // A NaN elapsed time leaves both as they are; its quotient is NaN and leaves
            // its lane NaN.
            least = _mm512_min_pd(elapsed, least);
            most = _mm512_max_pd(elapsed, most);
            largest_amount = _mm512_max_epu64(_mm512_castpd_si512(amount), largest_amount);
            let rates = close_quotients(amount, elapsed);
            let out: &mut [f64; LANES] = out.try_into().expect("a block");
            // SAFETY: `out` is eight writable `f64`, the 64 bytes the store writes (it
            // needs no alignment).
            unsafe { _mm512_storeu_pd(out.as_mut_ptr(), rates) };
            max = _mm512_max_pd(rates, max);
            for (i, total) in sum.iter_mut().enumerate() {
                // The rate, then its square, as the AVX2 body adds them.
                let v = if i == 0 {
                    rates
                } else {
                    _mm512_mul_pd(rates, rates)
                };
                *total = _mm512_add_pd(*total, v);
            }
        };
        // One loop with weights and one without, so that neither has a choice in it.
        match weights {
            None => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    add(eight(&progress[first..first + LANES]), first, out);
                }
            }
            Some(weights) => {
                for (first, out) in firsts.zip(blocks.chunks_exact_mut(LANES)) {
                    let amount = _mm512_mul_pd(
                        eight(&progress[first..first + LANES]),
                        eight(&weights[first..first + LANES]),
                    );
                    add(amount, first, out);
                }
            }
        }
        let mut sums = [[0.0; LANES]; N];
        let (mut maxes, mut leasts, mut mosts) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        let mut amounts = [0u64; LANES];
        // SAFETY: each array is eight writable `f64` or `u64`, the 64 bytes a store writes.
        unsafe {
            for i in 0..N {
                _mm512_storeu_pd(sums[i].as_mut_ptr(), sum[i]);
            }
            _mm512_storeu_pd(maxes.as_mut_ptr(), max);
            _mm512_storeu_pd(leasts.as_mut_ptr(), least);
            _mm512_storeu_pd(mosts.as_mut_ptr(), most);
            _mm512_storeu_si512(amounts.as_mut_ptr().cast(), largest_amount);
        }
        let within = leasts.iter().all(|&e| e >= LEAST)
            && mosts.iter().all(|&e| e <= MOST)
            && amounts.iter().all(|&a| a <= AMOUNT_MOST.to_bits());
        if !(within && sums[0].iter().all(|s| s.is_finite())) {
            return false;
        }
        for i in 0..N {
            lanes[i].sum = sums[i];
            // The rates are at least 0 (so are the amounts, and the elapsed times are
            // positive), and rounding is monotonic: the largest square of a lane is the
            // square of its largest rate. A lane without a row keeps its maximum.
            for (lane, &m) in lanes[i].max.iter_mut().zip(&maxes) {
                let m = match i {
                    0 => m,
                    _ if m == f64::NEG_INFINITY => m,
                    _ => m * m,
                };
                if m > *lane {
                    *lane = m;
                }
            }
        }
        super::fill_tail_adding(now_secs, progress, weights, start, whole, rest, lanes);
        true
    }

    /// `a / b`, lane by lane, within `2^-28 + 2.02 u` of the quotient (`u = 2^-53`) where
    /// `b` is in `[2^-300, 2^300]` and nothing is too small to be normal: the reciprocal
    /// estimate refined once, times `a` (the bound is worked in
    /// [`super::fill_close_rates_adding`]).
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    fn close_quotients(a: __m512d, b: __m512d) -> __m512d {
        let one = _mm512_set1_pd(1.0);
        let y0 = _mm512_rcp14_pd(b);
        let y1 = _mm512_fmadd_pd(y0, _mm512_fnmadd_pd(b, y0, one), y0);
        _mm512_mul_pd(a, y1)
    }

    /// [`super::write_below_settling`].
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn write_below<const SETTLE: bool>(
        values: &[f64],
        bar: f64,
        low: f64,
        first: u32,
        slots: &mut [u32],
    ) -> (usize, usize) {
        let (bars, lows) = (_mm512_set1_pd(bar), _mm512_set1_pd(low));
        let offsets = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let sixteens = values.chunks_exact(16);
        let rest = sixteens.remainder();
        let (mut count, mut unsettled) = (0, 0);
        // As in `gather_below`: the count never passes `last`, so the slots need no check
        // that could fail.
        let last = slots.len().saturating_sub(16);
        for (k, sixteen) in sixteens.enumerate() {
            let v = |h: usize| {
                let e = &sixteen[8 * h..8 * h + 8];
                _mm512_setr_pd(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7])
            };
            let below_of = |bars| {
                u16::from(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(v(0), bars))
                    | (u16::from(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(v(1), bars)) << 8)
            };
            let below = below_of(bars);
            if SETTLE {
                unsettled += (below & !below_of(lows)).count_ones() as usize;
            }
            let rows = _mm512_add_epi32(_mm512_set1_epi32((first + 16 * k as u32) as i32), offsets);
            let at = count.min(last);
            store_packed(&mut slots[at..at + 16], below, rows);
            count = at + below.count_ones() as usize;
        }
        // The last rows (fewer than sixteen) as the other bodies take them.
        let rest_first = first + (values.len() - rest.len()) as u32;
        let slots = &mut slots[count..];
        let (rest_count, rest_unsettled) =
            super::gather_below::<SETTLE>(rest, bar, low, rest_first, slots, |e, bar| {
                let eight = _mm512_setr_pd(e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
                usize::from(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(eight, _mm512_set1_pd(bar)))
            });
        (count + rest_count, unsettled + rest_unsettled)
    }
}

/// The plain-Rust bodies: the sums where the CPU has no AVX2, the filter on targets
/// without SSE2, and the bodies the tests check the vector ones against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
mod portable {
    use super::{LANES, Lanes, Summand, add_one, add_one_defined};

    /// [`super::add_run`] over whole blocks of `LANES` values.
    pub(super) fn add_blocks(values: &[f64], summand: Summand, lanes: &mut Lanes) {
        for block in values.chunks_exact(LANES) {
            for (lane, &v) in block.iter().enumerate() {
                add_one(lanes, lane, summand.of(v));
            }
        }
    }

    /// [`super::add_run_defined`] over whole blocks of `LANES` values.
    pub(super) fn add_blocks_defined(
        values: &[f64],
        summand: Summand,
        lanes: &mut Lanes,
        counts: &mut [u64; LANES],
    ) {
        for block in values.chunks_exact(LANES) {
            for (lane, &v) in block.iter().enumerate() {
                add_one_defined(lanes, counts, lane, summand.of(v));
            }
        }
    }

    /// [`super::write_below_settling`].
    pub(super) fn write_below<const SETTLE: bool>(
        values: &[f64],
        bar: f64,
        low: f64,
        first: u32,
        slots: &mut [u32],
    ) -> (usize, usize) {
        super::gather_below::<SETTLE>(values, bar, low, first, slots, |eight, bar| {
            (0..8).fold(0, |byte, k| byte | (usize::from(eight[k] < bar) << k))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values that exercise the corners: NaN, infinities, zeros of both signs, sub-normals,
    /// values at the bar.
    fn awkward(len: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                match state >> 60 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    3 => -0.0,
                    4 => 0.0,
                    5 => 1e-310,
                    6 => 0.5,
                    _ => (state >> 11) as f64 / (1u64 << 53) as f64 - 0.25,
                }
            })
            .collect()
    }

    /// Whether two sets of lanes hold the same bits, any NaN being the same as any other: a
    /// NaN lane only says that an undefined value was added (the sum is then taken again,
    /// leaving it out), and which NaN comes out of `inf - inf` or `NaN + NaN` depends on
    /// the order of an addition's operands, which the compiler may swap.
    fn same_bits(a: &Lanes, b: &Lanes) -> bool {
        let bits = |l: &Lanes| {
            l.sum
                .iter()
                .chain(&l.max)
                .map(|v| if v.is_nan() { None } else { Some(v.to_bits()) })
                .collect::<Vec<_>>()
        };
        bits(a) == bits(b)
    }

    /// A filter: values, bar, low bar, first row, slots; rows written and unsettled.
    type WriteBelow = fn(&[f64], f64, f64, u32, &mut [u32]) -> (usize, usize);

    /// A body of the kernels: its name, its sums over whole blocks (plain, and leaving
    /// undefined values out) and its filter.
    #[derive(Clone, Copy)]
    struct Body {
        name: &'static str,
        add_blocks: fn(&[f64], Summand, &mut Lanes),
        add_blocks_defined: fn(&[f64], Summand, &mut Lanes, &mut [u64; LANES]),
        write_below: WriteBelow,
    }

    /// Every body this CPU runs, to be checked against the plain one: the one the kernels
    /// choose, and each vector body on its own.
    fn vector_bodies() -> Vec<Body> {
        #[allow(unused_mut)]
        let mut bodies = vec![Body {
            name: "chosen",
            add_blocks: add_run,
            add_blocks_defined: add_run_defined,
            write_below: write_below_settling::<true>,
        }];
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            // The SSE2 filter (the sums without AVX2 are the plain ones).
            bodies.push(Body {
                name: "sse2",
                add_blocks: portable::add_blocks,
                add_blocks_defined: portable::add_blocks_defined,
                write_below: |v, b, l, f, s| {
                    // SAFETY: this build enables SSE2, the only feature it enables.
                    unsafe { sse2::write_below::<true>(v, b, l, f, s) }
                },
            });
            // Listed only where the CPU has AVX2, the only feature the sums enable; the
            // filter, which also enables POPCNT and BMI1, only where it has those too.
            if avx2::detected() {
                let avx2_body = Body {
                    name: if avx2::filter_detected() {
                        "avx2"
                    } else {
                        "avx2 sums, chosen filter"
                    },
                    add_blocks: |v, s, l| {
                        // SAFETY: listed only where the CPU has AVX2.
                        unsafe { avx2::add_blocks(v, s, l) }
                    },
                    add_blocks_defined: |v, s, l, c| {
                        // SAFETY: as above.
                        unsafe { avx2::add_blocks_defined(v, s, l, c) }
                    },
                    write_below: if avx2::filter_detected() {
                        |v, b, l, f, s| {
                            // SAFETY: listed only where the CPU has AVX2, POPCNT and BMI1.
                            unsafe { avx2::write_below::<true>(v, b, l, f, s) }
                        }
                    } else {
                        write_below_settling::<true>
                    },
                };
                bodies.push(avx2_body);
                // Where the CPU has AVX-512F and POPCNT too: its filter, AVX2's sums.
                if avx512::detected() {
                    bodies.push(Body {
                        name: "avx512",
                        write_below: |v, b, l, f, s| {
                            // SAFETY: listed only where the CPU has AVX-512F and POPCNT.
                            unsafe { avx512::write_below::<true>(v, b, l, f, s) }
                        },
                        ..avx2_body
                    });
                }
            }
        }
        bodies
    }

    #[test]
    fn totals_divided_at_every_width_give_one_division_each_added_as_a_run() {
        // Lengths either side of a vector of four and of eight; totals whose quotients are
        // NaN (0 / 0, inf / inf, a NaN sum), infinite, -0.0, +0.0, rounded, sub-normal;
        // lanes that start with sums of -0.0 (where adding -0.0 for an undefined quotient
        // and adding +0.0 differ), counts already set, and largest values of both zeros.
        let total = |i: usize| -> [f64; 2] {
            let count = [0.0, 1.0, 3.0, 7.0, 1e6, f64::INFINITY][i % 6];
            // Total 1, a NaN quotient, comes to lane 1 while its sum is -0.0.
            let sum = [
                0.1,
                f64::NAN,
                0.0,
                -0.0,
                1e300,
                5e-324,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -2.5,
            ][i % 9];
            [sum * (i % 4 + 1) as f64, count]
        };
        let start = Lanes {
            sum: [-0.0, -0.0, 1.5, -0.0, 0.0, -0.0, -0.0, -2.0],
            max: [
                f64::NEG_INFINITY,
                -0.0,
                0.0,
                3.0,
                f64::NEG_INFINITY,
                -0.0,
                1.0,
                0.0,
            ],
        };
        let bits = |values: &[f64]| -> Vec<Option<u64>> {
            values
                .iter()
                .map(|q| (!q.is_nan()).then(|| q.to_bits()))
                .collect()
        };
        let widths: Vec<Vectors> = Vectors::up_to_cpu().collect();
        assert_eq!(widths[0], Vectors::Plain);
        for len in (0..40).chain([63, 64, 65, 1000]) {
            let totals: Vec<[f64; 2]> = (0..len).map(total).collect();
            let quotients: Vec<f64> = totals.iter().map(|&[sum, count]| sum / count).collect();
            let (mut lanes, mut counts) = (start, [3; LANES]);
            let whole = len / LANES * LANES;
            portable::add_blocks_defined(
                &quotients[..whole],
                Summand::Value,
                &mut lanes,
                &mut counts,
            );
            for (lane, &v) in quotients[whole..].iter().enumerate() {
                add_one_defined(&mut lanes, &mut counts, lane, v);
            }
            for &vectors in &widths {
                let case = format!("{vectors:?}, len {len}");
                let mut means = vec![7.0; len];
                let (mut got, mut got_counts) = (start, [3; LANES]);
                let mut read = totals.clone();
                divide_totals_with(vectors, &mut read, &mut means, &mut got, &mut got_counts);
                assert_eq!(bits(&means), bits(&quotients), "{case}");
                assert!(read.iter().flatten().all(|v| v.to_bits() == 0), "{case}");
                assert_eq!(bits(&got.sum), bits(&lanes.sum), "{case}");
                assert_eq!(bits(&got.max), bits(&lanes.max), "{case}");
                assert_eq!(got_counts, counts, "{case}");
            }
        }
    }

    #[test]
    fn plain_loops_give_the_same_answers_at_every_width() {
        // The loops `with_widest_vectors` runs: marks below a bar, a largest row, means.
        let values: Vec<f64> = (0..1000)
            .map(|i| match i % 7 {
                0 => f64::NAN,
                1 => -0.0,
                k => (i * k) as f64 / 997.0,
            })
            .collect();
        let rows: Vec<u32> = (0..999).map(|i| (i * 7919) % 1009).collect();
        let loops = |vectors| {
            run_with(vectors, || {
                let marks: Vec<u8> = values.iter().map(|&v| u8::from(v < 2.5)).collect();
                let largest = rows.iter().copied().max();
                let means: Vec<u64> = values
                    .chunks(2)
                    .map(|pair| (pair[0] / pair[1]).to_bits())
                    .collect();
                (marks, largest, means)
            })
        };
        let plain = loops(Vectors::Plain);
        assert_eq!(plain.1, Some(1008));
        for vectors in Vectors::up_to_cpu() {
            assert_eq!(loops(vectors), plain, "{vectors:?}");
        }
    }

    #[test]
    fn parts_appended_in_parallel_follow_what_was_there() {
        // Parts of every length around a vector's growth, empty ones among them, after rows
        // already there: the rows there, then each part in order.
        let parts: Vec<Vec<u32>> = (0..40u32)
            .map(|p| (0..(p * 37) % 101).map(|r| 1000 * p + r).collect())
            .collect();
        let parts: Vec<&[u32]> = parts.iter().map(Vec::as_slice).collect();
        for before in [0, 1, 5] {
            let mut out: Vec<u32> = (0..before).map(|r| 9_000_000 + r).collect();
            append_in_parallel(&parts, &mut out);
            let expected: Vec<u32> = (0..before)
                .map(|r| 9_000_000 + r)
                .chain(parts.iter().flat_map(|p| p.iter().copied()))
                .collect();
            assert_eq!(out, expected, "{before} rows before");
        }
        let mut out = vec![3];
        append_in_parallel(&[], &mut out);
        assert_eq!(out, [3]);
    }

    #[test]
    fn vector_and_portable_sums_agree_bit_for_bit() {
        for body in vector_bodies() {
            for len in [0, 1, 7, 8, 9, 16, 63, 64, 100, 1000] {
                for seed in 0..20 {
                    let values = awkward(len, seed);
                    // Finite values only too, where no lane is NaN.
                    let finite: Vec<f64> = values.iter().map(|v| v.clamp(-1e3, 1e3)).collect();
                    // And none defined: every largest value stays as it was.
                    let undefined = vec![f64::NAN; len];
                    for values in [&values, &finite, &undefined] {
                        let whole = &values[..values.len() / LANES * LANES];
                        for summand in [Summand::Value, Summand::SquaredDeviation { centre: 0.125 }]
                        {
                            let case = format!("{} len {len} seed {seed}", body.name);
                            let (mut fast, mut plain) = (Lanes::EMPTY, Lanes::EMPTY);
                            (body.add_blocks)(whole, summand, &mut fast);
                            portable::add_blocks(whole, summand, &mut plain);
                            assert!(same_bits(&fast, &plain), "{case}");
                            // Leaving undefined values out, from lanes and counts already set.
                            let start = Lanes {
                                sum: [-0.0, 0.0, 1.5, -2.0, 0.0, 0.0, 1e300, 0.0],
                                max: [f64::NEG_INFINITY, 3.0, 0.0, -0.0, 1.0, 2.0, 3.0, 4.0],
                            };
                            let (mut fast, mut plain) = (start, start);
                            let (mut fast_counts, mut plain_counts) = ([3; LANES], [3; LANES]);
                            (body.add_blocks_defined)(whole, summand, &mut fast, &mut fast_counts);
                            portable::add_blocks_defined(
                                whole,
                                summand,
                                &mut plain,
                                &mut plain_counts,
                            );
                            assert!(same_bits(&fast, &plain), "{case}");
                            assert_eq!(fast_counts, plain_counts, "{case}");
                        }
                    }
                }
            }
        }
    }

    /// Checks that [`fill_rates_adding`], from lanes `from`, writes and adds the bits of
    /// the plain rates added one after the other, with and without the squares.
    fn assert_rates_added_as_plain(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        from: Lanes,
        case: &str,
    ) {
        let len = progress.len();
        let (mut slots, mut lanes, mut squares) = (vec![7.0; len], from, from);
        fill_rates_adding(
            now,
            progress,
            weights,
            start,
            &mut slots,
            &mut lanes,
            Some(&mut squares),
        );
        let (mut plain, mut plain_lanes, mut plain_squares) = (vec![7.0; len], from, from);
        plain_fill_rates(now, progress, weights, start, &mut plain);
        add_run(&plain, Summand::Value, &mut plain_lanes);
        let square = Summand::SquaredDeviation { centre: 0.0 };
        add_run(&plain, square, &mut plain_squares);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&slots), bits(&plain), "{case}");
        assert!(same_bits(&lanes, &plain_lanes), "{case}");
        assert!(same_bits(&squares, &plain_squares), "{case}");
        // Without the squares, the same rates and sums.
        let mut alone = from;
        fill_rates_adding(now, progress, weights, start, &mut slots, &mut alone, None);
        assert_eq!(bits(&slots), bits(&plain), "{case}");
        assert!(same_bits(&alone, &plain_lanes), "{case}");
    }

    #[test]
    fn rates_added_as_computed_give_the_bits_of_rates_then_sums() {
        for len in [0, 1, 7, 8, 9, 100, 1024, 1031] {
            let progress = awkward(len, 11);
            let start = awkward(len, 12);
            let weights: Vec<f64> = awkward(len, 13).iter().map(|w| w * 1e6).collect();
            for weights in [None, Some(&weights[..])] {
                for now in [0.5, 0.0, 1e300] {
                    let case = format!("len {len} now {now} weights {}", weights.is_some());
                    assert_rates_added_as_plain(
                        now,
                        &progress,
                        weights,
                        &start,
                        Lanes::EMPTY,
                        &case,
                    );
                }
            }
        }
    }

    /// The AVX2 body divides without checks first and keeps the quotients only if each is
    /// a rate: rows that all have one, then one row of each kind that has none (or lanes
    /// that are infinite already), in a block or in the last rows.
    #[test]
    fn quotients_stand_only_where_every_one_is_a_rate() {
        let (len, now) = (1031, 3000.0);
        let ramp = |scale: f64| -> Vec<f64> {
            (0..len)
                .map(|i| scale * ((i * 7919) % 1000) as f64 / 1000.0)
                .collect()
        };
        let progress = ramp(1.0);
        let start: Vec<f64> = ramp(2999.0);
        let weights: Vec<f64> = ramp(1e6).iter().map(|w| w + 1.0).collect();
        let infinite = Lanes {
            sum: [0.0, f64::INFINITY, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ..Lanes::EMPTY
        };
        // (what the row holds, its progress, its start)
        let kinds: [(&str, f64, f64); 7] = [
            ("started now", 0.5, now),
            ("started later", 0.5, now + 1.0),
            ("progress NaN", f64::NAN, 1.0),
            ("start NaN", 0.5, f64::NAN),
            ("progress infinite", f64::INFINITY, 1.0),
            ("rate that overflows", 1e300, now - 1e-300),
            ("start at minus infinity", 0.5, f64::NEG_INFINITY),
        ];
        for weights in [None, Some(&weights[..])] {
            let with = |case: &str, progress: &[f64], start: &[f64], from: Lanes| {
                let case = format!("{case}, weights {}", weights.is_some());
                assert_rates_added_as_plain(now, progress, weights, start, from, &case);
            };
            with("every row a rate", &progress, &start, Lanes::EMPTY);
            with("lanes infinite already", &progress, &start, infinite);
            for (kind, p, s) in kinds {
                for row in [0, 5, 512, 1023, 1030] {
                    let (mut progress, mut start) = (progress.clone(), start.clone());
                    (progress[row], start[row]) = (p, s);
                    with(
                        &format!("{kind} at row {row}"),
                        &progress,
                        &start,
                        Lanes::EMPTY,
                    );
                }
            }
        }
    }

    /// Checks [`fill_close_rates_adding`] against the plain rates: each rate within the
    /// bound (NaN where the plain one is), and the lanes those of its rates added one after
    /// the other; where it says no rate differs, the bits of the plain rates and sums.
    /// Returns whether it said some may differ.
    fn assert_close_rates(
        now: f64,
        progress: &[f64],
        weights: Option<&[f64]>,
        start: &[f64],
        case: &str,
    ) -> bool {
        let len = progress.len();
        let (mut slots, mut lanes, mut squares) = (vec![7.0; len], Lanes::EMPTY, Lanes::EMPTY);
        let close = fill_close_rates_adding(
            now,
            progress,
            weights,
            start,
            &mut slots,
            &mut lanes,
            Some(&mut squares),
        );
        let mut plain = vec![7.0; len];
        plain_fill_rates(now, progress, weights, start, &mut plain);
        for (row, (&c, &p)) in slots.iter().zip(&plain).enumerate() {
            let within = (c - p).abs() <= CLOSE_RELATIVE * p.abs() + CLOSE_ABSOLUTE;
            assert!(
                (c.is_nan() && p.is_nan()) || (close && within) || c.to_bits() == p.to_bits(),
                "{case}: row {row}: {c:e} for {p:e}"
            );
        }
        // The lanes are those of the rates written, added in order.
        let (mut expected, mut expected_squares) = (Lanes::EMPTY, Lanes::EMPTY);
        add_run(&slots, Summand::Value, &mut expected);
        let square = Summand::SquaredDeviation { centre: 0.0 };
        add_run(&slots, square, &mut expected_squares);
        assert!(same_bits(&lanes, &expected), "{case}");
        assert!(same_bits(&squares, &expected_squares), "{case}");
        // Without the squares, the same rates and sums.
        let (mut alone_slots, mut alone) = (vec![7.0; len], Lanes::EMPTY);
        fill_close_rates_adding(
            now,
            progress,
            weights,
            start,
            &mut alone_slots,
            &mut alone,
            None,
        );
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&alone_slots), bits(&slots), "{case}");
        assert!(same_bits(&alone, &expected), "{case}");
        close
    }

    /// Close rates from AVX-512's reciprocal estimates: within their bound over amounts and
    /// elapsed times of every size where the bound is claimed, on the edges of that range,
    /// and exact (the plain bits) outside it or where a rate is not finite.
    #[test]
    fn close_rates_are_within_their_bound() {
        let mut rng = crate::conformance::SplitMix64(5);
        let mut power = |low: i32, high: i32| {
            let exponent = low + rng.below((high - low) as u32) as i32;
            (1.0 + rng.unit()) * 2f64.powi(exponent)
        };
        let now = 1e6;
        let len = 1027;
        let mut close_cases = 0;
        for case in 0..60 {
            // Amounts from sub-normal to 2^600, and 0; elapsed times over the whole range
            // the bound is claimed on, or over one of its edges.
            let (least, most) = match case % 3 {
                0 => (-300, 300),
                1 => (-300, -299),
                _ => (299, 300),
            };
            let amounts: Vec<f64> = (0..len)
                .map(|i| match i % 11 {
                    0 => 0.0,
                    1 => power(-1074, -1000),
                    _ => power(-1000, 600),
                })
                .collect();
            let elapsed: Vec<f64> = (0..len).map(|_| power(least, most)).collect();
            // `now - start` gives back each elapsed time exactly where `now` is 0.
            let start: Vec<f64> = elapsed.iter().map(|e| -e).collect();
            let weights: Vec<f64> = (0..len).map(|_| power(-10, 10)).collect();
            for weights in [None, Some(&weights[..])] {
                let name = format!("case {case}, weights {}", weights.is_some());
                close_cases +=
                    usize::from(assert_close_rates(0.0, &amounts, weights, &start, &name));
            }
        }
        // Where the CPU has AVX-512, the rates were close (amounts up to 2^600 over 2^-300
        // overflow: those blocks' lanes are infinite, and they are done exactly).
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if avx512::detected() {
            assert!(close_cases > 0, "{close_cases}");
        }
        // Rates of a stage as the scans see them: all close.
        let progress: Vec<f64> = (0..len).map(|i| (i % 1000) as f64 / 1000.0).collect();
        let start: Vec<f64> = (0..len).map(|i| now - 1.0 - (i * 7) as f64).collect();
        let close = assert_close_rates(now, &progress, None, &start, "a stage");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        assert_eq!(close, avx512::detected());
        // One elapsed time out of the range, one row started now, one NaN progress, one
        // rate that overflows, in a block (the last rows are exact anyway): the plain bits.
        for (kind, p, s) in [
            ("elapsed 2^-301", 0.5, now - 2f64.powi(-301)),
            ("elapsed 2^301", 0.5, now - 2f64.powi(301)),
            ("started now", 0.5, now),
            ("progress NaN", f64::NAN, 1.0),
            ("rate that overflows", 1e300, now - 1e-10),
        ] {
            for row in [0, 9, 1023] {
                let (mut progress, mut start) = (progress.clone(), start.clone());
                (progress[row], start[row]) = (p, s);
                let case = format!("{kind} at row {row}");
                assert!(
                    !assert_close_rates(now, &progress, None, &start, &case),
                    "{case}"
                );
            }
        }
    }

    /// The worst distance of a close rate to the exact one, relative to the exact rate,
    /// over 2^18 random rows per range of elapsed times (its edges, around 1, the whole
    /// range) with normal amounts of every size that keeps the rates normal: within the
    /// `2^-28 + 3.1 u` that `fill_close_rates_adding`'s docs work out (`CLOSE_RELATIVE` is
    /// `2^-27`), and more than `2^-40` (the rates are those of one step, not of two).
    #[test]
    fn close_rates_are_within_the_worked_bound_of_the_exact_ones() {
        let mut rng = crate::conformance::SplitMix64(17);
        let u = f64::EPSILON / 2.0;
        let len = 1024;
        for (least, most) in [(-300, -299), (-1, 1), (299, 300), (-300, 300)] {
            let mut worst: f64 = 0.0;
            for _ in 0..256 {
                let mut power = |low: i32, high: i32| {
                    let exponent = low + rng.below((high - low) as u32) as i32;
                    (1.0 + rng.unit()) * 2f64.powi(exponent)
                };
                let elapsed: Vec<f64> = (0..len).map(|_| power(least, most)).collect();
                let amounts: Vec<f64> = (0..len).map(|_| power(-600, 600)).collect();
                let start: Vec<f64> = elapsed.iter().map(|e| -e).collect();
                let (mut slots, mut lanes) = (vec![0.0; len], Lanes::EMPTY);
                let close = fill_close_rates_adding(
                    0.0, &amounts, None, &start, &mut slots, &mut lanes, None,
                );
                // Where the CPU has AVX-512, these are close rates, not the exact ones again.
                assert_eq!(close, close_rates_differ());
                for ((&c, &a), &e) in slots.iter().zip(&amounts).zip(&elapsed) {
                    let exact = rate_or_nan(a, 0.0, -e);
                    worst = worst.max((c - exact).abs() / exact.abs());
                }
            }
            let bound = 2f64.powi(-28) + 3.1 * u;
            let case = format!("elapsed 2^{least} to 2^{most}: {worst:e}");
            assert!(worst <= bound, "{case}");
            if close_rates_differ() {
                assert!(worst > 2f64.powi(-40), "{case}");
            }
        }
    }

    /// Rows whose exact rate is just past `f64::MAX` (no rate, NaN), where a close rate may
    /// round to `f64::MAX` instead and leave its lane finite: the amount `f64::MAX` over
    /// the largest elapsed time below 1, either sign, with and without weights, in a block
    /// of ordinary rows. Each must come out NaN, as the exact rate.
    #[test]
    fn close_rates_past_f64_max_are_no_rate() {
        let below_one = f64::from_bits(1f64.to_bits() - 1);
        for (case, amount, weight, elapsed) in [
            ("MAX over 1 - 2^-53", f64::MAX, 1.0, below_one),
            ("-MAX over 1 - 2^-53", -f64::MAX, 1.0, below_one),
            (
                "MAX/2 times 2 over 1 - 2^-53",
                f64::MAX / 2.0,
                2.0,
                below_one,
            ),
            ("2^700 over 2^-300", 2f64.powi(700), 1.0, 2f64.powi(-300)),
        ] {
            // Rows of rate 0.5, the case at row 3 (of a block of eight) and at row 12.
            let len = 16;
            let (mut amounts, mut weights) = (vec![0.5; len], vec![1.0; len]);
            let mut start = vec![-1.0; len];
            for row in [3, 12] {
                (amounts[row], weights[row], start[row]) = (amount, weight, -elapsed);
            }
            for weights in [None, Some(&weights[..])] {
                let case = format!("{case}, weights {}", weights.is_some());
                assert_close_rates(0.0, &amounts, weights, &start, &case);
            }
        }
    }

    #[test]
    fn a_pair_of_runs_gives_the_bits_of_one_after_the_other() {
        for (len_a, len_b) in [(0, 0), (7, 7), (8, 8), (1024, 1024), (1027, 1027), (16, 9)] {
            for seed in 0..10 {
                let (a, b) = (awkward(len_a, seed), awkward(len_b, seed + 100));
                let finite = |v: &[f64]| v.iter().map(|x| x.clamp(-1e3, 1e3)).collect::<Vec<_>>();
                let (fa, fb) = (finite(&a), finite(&b));
                for (a, b) in [(&a, &b), (&fa, &fb)] {
                    for summand in [Summand::Value, Summand::SquaredDeviation { centre: 0.125 }] {
                        let (mut pair_a, mut pair_b) = (Lanes::EMPTY, Lanes::EMPTY);
                        add_run_pair(a, b, summand, &mut pair_a, &mut pair_b);
                        let (mut one_a, mut one_b) = (Lanes::EMPTY, Lanes::EMPTY);
                        add_run(a, summand, &mut one_a);
                        add_run(b, summand, &mut one_b);
                        let case = format!("lengths {len_a}, {len_b} seed {seed}");
                        assert!(same_bits(&pair_a, &one_a), "{case}");
                        assert!(same_bits(&pair_b, &one_b), "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_run_fills_its_lanes_in_order() {
        // Ten values: lanes 0 and 1 take two each (rows 0, 8 and 1, 9).
        let values: Vec<f64> = (0..10).map(f64::from).collect();
        let mut lanes = Lanes::EMPTY;
        add_run(&values, Summand::Value, &mut lanes);
        assert_eq!(lanes.sum, [8.0, 10.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(lanes.max, [8.0, 9.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        let mut lanes = Lanes::EMPTY;
        add_run(
            &values,
            Summand::SquaredDeviation { centre: 1.0 },
            &mut lanes,
        );
        // lane 0: (0-1)^2 + (8-1)^2 = 50; lane 1: 0 + 64.
        assert_eq!(lanes.sum[..2], [50.0, 64.0]);
        // A NaN makes its lane's sum NaN and leaves its largest value.
        let mut lanes = Lanes::EMPTY;
        add_run(&[1.0, f64::NAN, 2.0], Summand::Value, &mut lanes);
        assert!(lanes.sum[1].is_nan());
        assert_eq!((lanes.max[0], lanes.max[1]), (1.0, f64::NEG_INFINITY));
    }

    #[test]
    fn rows_below_agree_with_a_plain_filter() {
        for body in vector_bodies() {
            for len in [0, 1, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025, 3000] {
                for seed in 0..10 {
                    let values = awkward(len, seed);
                    // -0.2 keeps about one row in eleven: words of a few kept rows,
                    // written a bit at a time, and some of more, from the table.
                    let bars = [0.5, 0.0, -0.0, -0.2, f64::INFINITY, f64::NEG_INFINITY];
                    for bar in bars.into_iter().chain([f64::NAN]) {
                        // The rows below `bar` but not below `low`, counted.
                        for low in [bar, 0.25, f64::NEG_INFINITY, f64::NAN] {
                            let case = format!("{} len {len} seed {seed} bar {bar}", body.name);
                            let below = |i: u32, bar: f64| values[i as usize] < bar;
                            let expected: Vec<u32> = (0..len as u32)
                                .filter(|&i| below(i, bar))
                                .map(|i| 7 + i)
                                .collect();
                            let unsettled = (0..len as u32)
                                .filter(|&i| below(i, bar) && !below(i, low))
                                .count();
                            let (mut fast, mut plain) =
                                (vec![0; len + SPARE], vec![0; len + SPARE]);
                            let (count, fast_unsettled) =
                                (body.write_below)(&values, bar, low, 7, &mut fast);
                            let (plain_count, plain_unsettled) =
                                portable::write_below::<true>(&values, bar, low, 7, &mut plain);
                            assert_eq!(fast[..count], expected[..], "{case}");
                            assert_eq!(plain[..plain_count], fast[..count], "{case}");
                            assert_eq!((fast_unsettled, plain_unsettled), (unsettled, unsettled));
                            // Without settling: the same rows, none counted unsettled.
                            let (plain, none) =
                                write_below_settling::<false>(&values, bar, low, 7, &mut fast);
                            assert_eq!((&fast[..plain], none), (&expected[..], 0), "{case}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn words_of_every_count_agree_with_a_plain_filter() {
        // Words that keep exactly 0 to 64 rows, either side of `SPARSE_WORD`, some kept
        // rows below `low` too (settled) and some not, at lengths that end in a whole
        // word, a part of one and a few rows past one.
        for body in vector_bodies() {
            for len in [63, 64, 65, 128, 130] {
                for kept in [0, 1, 7, 8, 9, 16, 57, 64] {
                    // Row `i` of a word kept if `i * kept / 64` steps up there; every
                    // third kept row settled (below `low` = 0.25), the others between.
                    let values: Vec<f64> = (0..len)
                        .map(|i| {
                            let (i, row) = (i % 64, i);
                            let steps = |i: usize| i * kept / 64;
                            match (steps(i + 1) > steps(i), row % 3) {
                                (false, _) => 1.0,
                                (true, 0) => 0.0,
                                (true, _) => 0.3,
                            }
                        })
                        .collect();
                    let (bar, low) = (0.5, 0.25);
                    let expected: Vec<u32> = (0..len as u32)
                        .filter(|&i| values[i as usize] < bar)
                        .map(|i| 3 + i)
                        .collect();
                    let unsettled = expected
                        .iter()
                        .filter(|&&row| values[row as usize - 3] >= low)
                        .count();
                    let mut slots = vec![u32::MAX; len + SPARE];
                    let (count, fast_unsettled) =
                        (body.write_below)(&values, bar, low, 3, &mut slots);
                    let case = format!("{} len {len} kept {kept}", body.name);
                    assert_eq!(slots[..count], expected[..], "{case}");
                    assert_eq!(fast_unsettled, unsettled, "{case}");
                }
            }
        }
    }

    #[test]
    fn rows_of_marked_groups_agree_with_a_plain_filter() {
        // Flagged lists over several words of 64, against the rule and the checked body:
        // marks as long as a power of two (each lookup unchecked) and not (each checked),
        // of bytes 0 to 3; rows past the groups, and groups past the marks, which send the
        // rows to the checked body.
        let mut rng = crate::conformance::SplitMix64(17);
        let groups: Vec<u32> = (0..500).map(|_| rng.below(40)).collect();
        for marked in [0usize, 1, 2, 3, 4, 32, 37, 64] {
            let mut marks: Vec<u8> = (0..marked).map(|_| rng.below(4) as u8).collect();
            // The first and last groups marked: the groups past the marks, masked or
            // clamped to them, would be kept.
            for at in [0, marked.saturating_sub(1)] {
                if let Some(mark) = marks.get_mut(at) {
                    *mark = 1 + (marked % 2) as u8;
                }
            }
            for (len, rows) in [0, 1, 15, 16, 17, 63, 64, 65, 300]
                .into_iter()
                .zip([500, 520].into_iter().cycle())
            {
                let mut flagged: Vec<u32> = (0..len).map(|_| rng.below(rows)).collect();
                flagged.sort_unstable();
                let expected: Vec<u32> = flagged
                    .iter()
                    .copied()
                    .filter(|&row| {
                        groups
                            .get(row as usize)
                            .and_then(|&g| marks.get(g as usize))
                            .is_some_and(|&mark| mark != 0)
                    })
                    .collect();
                for vectors in Vectors::up_to_cpu() {
                    let mut slots = vec![u32::MAX; len + 1];
                    let kept = keep_marked_with(vectors, &flagged, &groups, &marks, &mut slots);
                    let case = format!("{len} flagged of {rows}, {marked} marks, {vectors:?}");
                    assert_eq!(slots[..kept], expected[..], "{case}");
                }
                let mut plain = vec![u32::MAX; len + 1];
                let plain_kept = plain_keep_marked(&flagged, &groups, &marks, &mut plain);
                assert_eq!(plain[..plain_kept], expected[..], "{len} flagged of {rows}");
            }
        }
        assert_eq!(keep_marked(&[0, 1], &[], &[1], &mut [0; 2]), 0);
        assert_eq!(keep_marked(&[0, 1], &[0, 0], &[], &mut [0; 2]), 0);
        assert_eq!(keep_marked(&[0, 1], &[0, 1], &[0, 1], &mut [0; 2]), 1);
        assert_eq!(keep_marked(&[0, 1], &[0, 1], &[3, 0], &mut [0; 2]), 1);
        // A row past the groups, whose group would be read past their end and found
        // marked: not kept.
        let groups = [0u32; 4];
        let mut slots = [u32::MAX; 3];
        assert_eq!(keep_marked(&[0, 2], &groups[..2], &[1], &mut slots), 1);
        assert_eq!(slots[0], 0);
        // A group past the marks after one inside, marks as long as a power of two: the
        // group read unchecked is masked to a marked one, and the rows filtered again.
        let mut slots = [u32::MAX; 3];
        assert_eq!(keep_marked(&[0, 1, 2], &[1, 3, 5], &[0, 1], &mut slots), 1);
        assert_eq!(slots[0], 0);
        // The same among sixteen rows and more, which AVX-512 looks up together: row 5's
        // group 6 is past the four marks, and masked to group 2, marked.
        let groups: Vec<u32> = (0..20)
            .map(|row| if row == 5 { 6 } else { row % 2 })
            .collect();
        let rows: Vec<u32> = (0..20).collect();
        let mut slots = [u32::MAX; 20];
        assert_eq!(keep_marked(&rows, &groups, &[0, 1, 1, 0], &mut slots), 9);
        assert!(slots[..9].iter().all(|&row| row % 2 == 1 && row != 5));
    }

    #[test]
    fn rows_of_groups_inside_the_marks_agree_with_a_plain_filter() {
        // Every group inside the marks, so that no row is filtered again and the answers
        // stand: of the sixteens looked up at once (AVX-512, where the CPU has it), and of
        // the rows looked up one after another (every narrower width). Marks of any byte,
        // among them each of the eight with one bit set (a mark tested on some of its bits
        // only would drop some) and 0; rows in any order, some repeated.
        let mut rng = crate::conformance::SplitMix64(29);
        for marked in [4u32, 8, 16, 64, 256] {
            let groups: Vec<u32> = (0..600).map(|_| rng.below(marked)).collect();
            let mut marks: Vec<u8> = (0..marked).map(|_| rng.below(256) as u8).collect();
            for (at, mark) in marks.iter_mut().enumerate() {
                match at % 3 {
                    0 => *mark = 0,
                    1 => *mark = 1 << (at / 3 % 8),
                    _ => {}
                }
            }
            for len in [16, 17, 31, 32, 48, 63, 64, 65, 300] {
                let flagged: Vec<u32> = (0..len).map(|_| rng.below(600)).collect();
                let expected: Vec<u32> = (flagged.iter().copied())
                    .filter(|&row| marks[groups[row as usize] as usize] != 0)
                    .collect();
                for vectors in Vectors::up_to_cpu() {
                    let mut slots = vec![u32::MAX; len];
                    let kept = keep_marked_with(vectors, &flagged, &groups, &marks, &mut slots);
                    let case = format!("{len} flagged, {marked} marks, {vectors:?}");
                    assert_eq!(slots[..kept], expected[..], "{case}");
                }
            }
        }
    }

    #[test]
    fn counts_of_keys_below_by_hand() {
        let keys = [-5, 0, 3, 3, 7];
        assert_eq!(count_below(&keys, 3, false), 2);
        assert_eq!(count_below(&keys, 3, true), 4);
        assert_eq!(count_below(&keys, i64::MIN, false), 0);
        assert_eq!(count_below(&keys, i64::MAX, true), 5);
        assert_eq!(count_below(&[], 0, true), 0);
    }

    #[test]
    fn counts_of_keys_below_agree_across_bodies() {
        // Every length up to past the vector loops' sixteen or thirty-two keys a round and
        // the longest chunk of Garraghan's sorted times (128), keys repeated and at the
        // ends of the range; every body this CPU can run against a plain filter.
        type Count = fn(&[i64], i64, bool) -> usize;
        // Added to on x86_64 only.
        #[cfg_attr(
            not(all(target_arch = "x86_64", target_feature = "sse2")),
            allow(unused_mut)
        )]
        let mut bodies: Vec<(&str, Count)> =
            vec![("plain", plain_count_below), ("chosen", count_below)];
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            if avx2::detected() {
                // SAFETY: listed only where the CPU has AVX2.
                bodies.push(("avx2", |k, key, e| unsafe { avx2::count_below(k, key, e) }));
            }
            if avx512::detected() {
                // SAFETY: listed only where the CPU has AVX-512F and POPCNT.
                bodies.push(("avx512", |k, key, e| unsafe {
                    avx512::count_below(k, key, e)
                }));
            }
        }
        let mut state = 3u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            match state >> 61 {
                0 => i64::MIN,
                1 => i64::MAX,
                _ => (state >> 40) as i64 % 9 - 4,
            }
        };
        for len in 0..=130 {
            let keys: Vec<i64> = (0..len).map(|_| next()).collect();
            for key in [i64::MIN, -4, -1, 0, 3, 5, i64::MAX] {
                let below = keys.iter().filter(|&&k| k < key).count();
                let at_most = keys.iter().filter(|&&k| k <= key).count();
                for (name, body) in &bodies {
                    assert_eq!(body(&keys, key, false), below, "{name}, {len} keys < {key}");
                    assert_eq!(
                        body(&keys, key, true),
                        at_most,
                        "{name}, {len} keys <= {key}"
                    );
                }
            }
        }
    }

    #[test]
    fn rates_with_and_without_avx2_agree_bit_for_bit() {
        for len in [0, 1, 3, 4, 5, 100, 1001] {
            let progress = awkward(len, 1);
            let start = awkward(len, 2);
            let weights: Vec<f64> = awkward(len, 3).iter().map(|w| w * 1e6).collect();
            for weights in [None, Some(&weights[..])] {
                for now in [0.5, 0.0, 1e300] {
                    let (mut dispatched, mut plain) = (vec![7.0; len], vec![7.0; len]);
                    fill_rates(now, &progress, weights, &start, &mut dispatched);
                    plain_fill_rates(now, &progress, weights, &start, &mut plain);
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&dispatched), bits(&plain), "len {len} now {now}");
                }
            }
        }
    }

    /// A snapshot's columns for `rates_by_group` at `now` 100: progress in `[0, 1]` (some
    /// `0`, `-0.0` and `1`), starts up to `now` (some at `now`: no time elapsed, no rate)
    /// and input sizes up to `10^9`, so that every rate is finite.
    fn snapshot_columns(len: usize, seed: u64) -> [Vec<f64>; 3] {
        let mut rng = crate::conformance::SplitMix64(seed);
        let mut progress = Vec::new();
        let mut start = Vec::new();
        let mut weights = Vec::new();
        for _ in 0..len {
            progress.push(match rng.below(8) {
                0 => 0.0,
                1 => -0.0,
                2 => 1.0,
                _ => rng.unit(),
            });
            start.push(match rng.below(6) {
                0 => 100.0,
                _ => 100.0 * rng.unit(),
            });
            weights.push(1e9 * rng.unit());
        }
        [progress, start, weights]
    }

    #[test]
    fn rates_by_group_agree_with_a_plain_loop() {
        // A snapshot's columns, and awkward ones (NaN, infinities, zeros of both signs,
        // sub-normals, starts after now), one group, a few and many: every row with a rate
        // adds it and one, in row order, whichever body runs; the AVX2 body's check of its
        // rates passes on the snapshot's columns, and fails where a rate is not finite.
        for len in [0, 1, 3, 4, 7, 8, 9, 16, 100, 1001] {
            let awkward_weights: Vec<f64> = awkward(len, 23).iter().map(|w| w * 1e6).collect();
            let awkward = [awkward(len, 21), awkward(len, 22), awkward_weights];
            for (kind, [progress, start, weights]) in [
                ("snapshot", snapshot_columns(len, 24)),
                ("awkward", awkward),
            ] {
                for group_count in [1, 3, 64] {
                    let groups: Vec<u32> = (0..len)
                        .map(|i| ((7 * i + i / 3) % group_count) as u32)
                        .collect();
                    for weights in [None, Some(&weights[..])] {
                        for now in [100.0, 0.5, 0.0, 1e300] {
                            let case =
                                format!("{kind}, len {len}, {group_count} groups, now {now}");
                            let mut expected = vec![[0.0; 2]; group_count];
                            // Read by the checks of the AVX2 body, on x86_64 only.
                            #[cfg_attr(
                                not(all(target_arch = "x86_64", target_feature = "sse2")),
                                allow(unused_variables)
                            )]
                            let mut finite = true;
                            for (row, &g) in groups.iter().enumerate() {
                                let amount =
                                    weights.map_or(progress[row], |w| progress[row] * w[row]);
                                let rate = rate_or_nan(amount, now, start[row]);
                                let positive = now - start[row] > 0.0;
                                finite &= !positive || rate.is_finite();
                                if !rate.is_nan() {
                                    expected[g as usize][0] += rate;
                                    expected[g as usize][1] += 1.0;
                                }
                            }
                            let mut chosen = vec![[0.0; 2]; group_count];
                            rates_by_group(now, &progress, weights, &start, &groups, &mut chosen);
                            let mut plain = vec![[0.0; 2]; group_count];
                            plain_add_rates_by_group(
                                now, &progress, weights, &start, &groups, &mut plain,
                            );
                            // A sum can be NaN (infinities of both signs added): any NaN is
                            // the same as any other.
                            let bits = |totals: &[[f64; 2]]| {
                                totals
                                    .iter()
                                    .flatten()
                                    .map(|v| (!v.is_nan()).then(|| v.to_bits()))
                                    .collect::<Vec<_>>()
                            };
                            assert_eq!(bits(&chosen), bits(&expected), "{case}");
                            assert_eq!(bits(&plain), bits(&expected), "{case}");
                            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                            if avx2::detected() {
                                let mut totals = vec![[0.0; 2]; group_count];
                                // SAFETY: the CPU has AVX2 (just detected).
                                let passed = unsafe {
                                    avx2::add_rates_by_group(
                                        now,
                                        &progress,
                                        weights,
                                        &start,
                                        &groups,
                                        &mut totals,
                                    )
                                };
                                // Only the rows of whole blocks of eight are checked.
                                let whole = len / LANES * LANES;
                                let checked_finite = (0..whole).all(|row| {
                                    let amount =
                                        weights.map_or(progress[row], |w| progress[row] * w[row]);
                                    let elapsed = now - start[row];
                                    let positive = elapsed > 0.0;
                                    !positive || (amount / elapsed).is_finite()
                                });
                                if kind == "snapshot" && now == 100.0 {
                                    assert!(passed && finite, "{case}");
                                }
                                if !checked_finite {
                                    assert!(!passed, "{case}");
                                }
                                if passed {
                                    assert_eq!(bits(&totals), bits(&expected), "{case}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rates_by_group_by_hand() {
        // now 10: rows (progress, weight, start, group) give rates 0.5 x 4 / 8 = 0.25 (group
        // 1), 1 x 2 / 4 = 0.5 (group 0), none (started at now, group 0), 0.25 x 8 / 2 = 1
        // (group 1).
        let (progress, weights) = ([0.5, 1.0, 0.3, 0.25], [4.0, 2.0, 5.0, 8.0]);
        let (start, groups) = ([2.0, 6.0, 10.0, 8.0], [1, 0, 0, 1]);
        let mut totals = [[0.0; 2]; 2];
        rates_by_group(
            10.0,
            &progress,
            Some(&weights),
            &start,
            &groups,
            &mut totals,
        );
        assert_eq!(totals, [[0.5, 1.0], [1.25, 2.0]]);
    }

    #[test]
    fn set_bit_tables_by_hand() {
        assert_eq!(SET_BITS[0b1010_0101][..4], [0, 2, 5, 7]);
        assert_eq!(BIT_COUNT[0b1010_0101], 4);
        let mut slots = [0; 8];
        assert_eq!(write_set_bits(0b1000_0001, 16, &mut slots), 2);
        assert_eq!(slots[..2], [16, 23]);
    }
}
