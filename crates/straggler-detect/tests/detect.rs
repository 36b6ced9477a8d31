//! The integration tests of straggler-detect: the three detectors of the seed paper's
//! Section 5.5 on cases worked by hand, degenerate snapshots, parameter checks, the blanket
//! impls, the conformance kit (on our detectors and on deliberately broken ones), and
//! property tests that parallel scans flag exactly the rows sequential scans flag.
//!
//! Cases are data: a snapshot is written as compact `(stage, node, start_secs, progress,
//! input_bytes)` tuples and [`check`] compares the rows a detector flags with the expected
//! ones. Values are chosen so that the arithmetic in the comments is exact in binary64
//! (powers of two) or far from the threshold, except where a case is about the threshold.

use proptest::prelude::*;
use straggler_detect::conformance::{
    Conformance, FlagAll, Row, SplitMix64, build_snapshot, check_detector,
};
use straggler_detect::{
    DefaultDetector, DefaultParams, DetectError, Detector, Findings, Hierarchical,
    HierarchicalParams, LateDetector, LateParams, Parallelism,
};
use straggler_model::{
    AttemptId, AttemptRole, NodeId, Observation, ProgressReport, Snapshot, SnapshotRow, StageId,
    TaskId,
};

/// A snapshot at `now` with as many stages and nodes as the rows use.
fn snapshot(now: f64, rows: &[Row]) -> Snapshot {
    let stage_count = rows.iter().map(|r| r.0 + 1).max().unwrap_or(0);
    let node_count = rows.iter().map(|r| r.1 + 1).max().unwrap_or(0);
    sized_snapshot(now, stage_count, node_count, rows)
}

/// A snapshot at `now` of `stage_count` stages (stage 0 the maps of job 0, stage 1 its
/// reduces, stage 2 the maps of job 1...) on `node_count` nodes.
fn sized_snapshot(now: f64, stage_count: u32, node_count: u32, rows: &[Row]) -> Snapshot {
    build_snapshot(now, node_count, stage_count, rows.iter().copied()).expect("valid rows")
}

fn scan(detector: &mut impl Detector, snapshot: &Snapshot) -> Findings {
    let mut findings = Findings::default();
    detector.scan(snapshot, &mut findings);
    findings
}

/// Scans the snapshot of `rows` at `now` and compares the flagged rows with `expected`.
#[track_caller]
fn check(mut detector: impl Detector, now: f64, rows: &[Row], expected: &[u32]) {
    let findings = scan(&mut detector, &snapshot(now, rows));
    assert_eq!(
        findings.rows(),
        expected,
        "detector {} at now = {now}",
        detector.name()
    );
}

fn default_at(parallelism: Parallelism, gap: f64) -> DefaultDetector {
    DefaultDetector::new(DefaultParams { gap, parallelism }.check().expect("gap"))
}

fn late_at(parallelism: Parallelism, alpha: f64) -> LateDetector {
    LateDetector::new(LateParams { alpha, parallelism }.check().expect("alpha"))
}

fn hierarchical_at<D: Detector>(
    parallelism: Parallelism,
    inner: D,
    node_threshold: f64,
) -> Hierarchical<D> {
    let params = HierarchicalParams {
        node_threshold,
        parallelism,
    };
    Hierarchical::new(inner, params.check().expect("node_threshold"))
}

fn default_with(gap: f64) -> DefaultDetector {
    default_at(Parallelism::default(), gap)
}

fn late_with(alpha: f64) -> LateDetector {
    late_at(Parallelism::default(), alpha)
}

fn hierarchical_with<D: Detector>(inner: D, node_threshold: f64) -> Hierarchical<D> {
    hierarchical_at(Parallelism::default(), inner, node_threshold)
}

/// The three detectors with the paper's parameters, behind `Box<dyn Detector>`.
fn paper_detectors() -> Vec<Box<dyn Detector>> {
    vec![
        Box::new(DefaultDetector::default()),
        Box::new(LateDetector::default()),
        Box::new(hierarchical_with(DefaultDetector::default(), 0.9)),
    ]
}

/// The same three at the edge of their parameters: gap 0, alpha 0, node threshold 1 (so
/// that a detection needs only "strictly below the mean").
fn edge_detectors() -> Vec<Box<dyn Detector>> {
    vec![
        Box::new(default_with(0.0)),
        Box::new(late_with(0.0)),
        Box::new(hierarchical_with(default_with(0.0), 1.0)),
    ]
}

// ---------------------------------------------------------------------------------------
// Default (Eq. 6): PS_j < mean(PS of the running attempts of the stage) - gap.

#[test]
fn default_uses_a_separate_mean_per_stage() {
    // Maps (rows 0, 2, 4, 6): 0.75 + 0.5 + 0.5 + 0.25 = 2.0, mean 0.5, threshold 0.3:
    // row 6 (0.25) is flagged.
    // Reduces (rows 1, 3, 5): 0.125 + 0.0625 + 0 = 0.1875, mean 0.0625, threshold -0.1375:
    // nothing. One pooled mean would be 2.1875 / 7 = 0.3125, threshold 0.1125, and would
    // flag the reduces at 0.0625 and 0 (rows 3, 5) instead of row 6.
    let rows = [
        (0, 0, 0.0, 0.75, 64e6),
        (1, 1, 0.0, 0.125, 64e6),
        (0, 1, 0.0, 0.5, 64e6),
        (1, 2, 0.0, 0.0625, 64e6),
        (0, 2, 0.0, 0.5, 64e6),
        (1, 0, 0.0, 0.0, 64e6),
        (0, 3, 0.0, 0.25, 64e6),
    ];
    check(DefaultDetector::default(), 100.0, &rows, &[6]);
}

#[test]
fn default_does_not_flag_a_row_exactly_at_the_threshold() {
    // Stage 0: 0.8 + 0.8 = 1.6, + 0.5 = 2.1, / 3 = 0.7000000000000001, - 0.2 = 0.5 exactly
    // in binary64: row 2 sits at the threshold and `<` is strict.
    // Stage 1: (0.8 + 0.8 + 0.49) / 3 - 0.2 = 0.49666666666666665 > 0.49: row 5 is flagged.
    let rows = [
        (0, 0, 0.0, 0.8, 64e6),
        (0, 1, 0.0, 0.8, 64e6),
        (0, 2, 0.0, 0.5, 64e6),
        (1, 0, 0.0, 0.8, 64e6),
        (1, 1, 0.0, 0.8, 64e6),
        (1, 2, 0.0, 0.49, 64e6),
    ];
    check(DefaultDetector::default(), 100.0, &rows, &[5]);
}

#[test]
fn default_with_gap_zero_flags_strictly_below_the_mean() {
    // 0.75 + 0.5 + 0.25 + 0.5 = 2.0, mean 0.5: only row 2 (0.25) is below; rows 1 and 3
    // sit at the mean.
    let rows = [
        (0, 0, 0.0, 0.75, 64e6),
        (0, 1, 0.0, 0.5, 64e6),
        (0, 2, 0.0, 0.25, 64e6),
        (0, 3, 0.0, 0.5, 64e6),
    ];
    check(default_with(0.0), 100.0, &rows, &[2]);
    // 0.1 + 0.1 + 0.1 = 0.30000000000000004 and / 3 = 0.10000000000000002 > 0.1: the
    // rounded mean lies above three identical tasks, which must still not be flagged.
    let identical = [
        (0, 0, 0.0, 0.1, 64e6),
        (0, 1, 0.0, 0.1, 64e6),
        (0, 2, 0.0, 0.1, 64e6),
    ];
    check(default_with(0.0), 100.0, &identical, &[]);
}

#[test]
fn default_with_gap_one_flags_nothing() {
    // mean 2 / 3, threshold -1 / 3: no progress score is negative.
    let rows = [
        (0, 0, 0.0, 1.0, 64e6),
        (0, 1, 0.0, 1.0, 64e6),
        (0, 2, 0.0, 0.0, 64e6),
    ];
    check(default_with(1.0), 100.0, &rows, &[]);
}

// ---------------------------------------------------------------------------------------
// LATE (Eqs. 7-9, with the erratum): PR = PS / (now - start), PR_j < mean - alpha * SD,
// SD the population standard deviation.

/// Four attempts at now = 100 with rates 6, 3, 2, 1 (units of 1/128 per second):
/// 0.75 / 16, 0.75 / 32, 0.5 / 32, 0.5 / 64.
const RATES_6_3_2_1: [Row; 4] = [
    (0, 0, 84.0, 0.75, 64e6),
    (0, 1, 68.0, 0.75, 64e6),
    (0, 2, 68.0, 0.5, 64e6),
    (0, 3, 36.0, 0.5, 64e6),
];

#[test]
fn late_flags_rates_below_mean_minus_one_population_sd() {
    // mean (6 + 3 + 2 + 1) / 4 = 3; deviations 3, 0, -1, -2, squares 9 + 0 + 1 + 4 = 14;
    // population variance 14 / 4 = 3.5, SD 1.871, threshold 1.129: rate 1 (row 3) is
    // flagged. The sample SD sqrt(14 / 3) = 2.160 would give 0.840 and flag nothing.
    // Default sees progress 0.75, 0.75, 0.5, 0.5 (threshold 0.425) and flags nothing.
    check(LateDetector::default(), 100.0, &RATES_6_3_2_1, &[3]);
    check(DefaultDetector::default(), 100.0, &RATES_6_3_2_1, &[]);
    // alpha 2: threshold 3 - 3.742 < 0.
    check(late_with(2.0), 100.0, &RATES_6_3_2_1, &[]);
}

/// The snapshot of `originals` at `now` with `copies` after them, as speculative copies
/// (of the first tasks: a copy's task is the original's of the same index).
fn with_copies(now: f64, originals: &[Row], copies: &[Row]) -> Snapshot {
    let mut snapshot = snapshot(now, originals);
    for (i, &(stage, node, start_secs, progress, input_bytes)) in copies.iter().enumerate() {
        let row = SnapshotRow {
            attempt: AttemptId((originals.len() + i) as u32),
            task: TaskId(i as u32),
            stage: StageId(stage),
            node: NodeId(node),
            role: AttemptRole::Speculative,
            start_secs,
            progress,
            input_bytes,
        };
        snapshot.push(row).expect("a valid copy");
    }
    snapshot
}

#[test]
fn default_and_late_count_each_task_once_not_its_copies() {
    // Default: ten originals at 0.625 and one at 0.375 (row 10): mean 6.625 / 11 = 0.602,
    // threshold 0.402, row 10 flagged. Four young copies at 0.0625 (rows 11 to 14) are not
    // tasks: counted, they would make the mean 6.875 / 15 = 0.458 and the threshold 0.258,
    // and row 10 would not be flagged (the copies would be).
    let mut originals = vec![(0, 0, 0.0, 0.625, 64e6); 10];
    originals.push((0, 1, 0.0, 0.375, 64e6));
    let copies = [(0, 1, 90.0, 0.0625, 64e6); 4];
    let flagged = |detector: &mut dyn Detector, snapshot: &Snapshot| {
        let mut findings = Findings::default();
        detector.scan(snapshot, &mut findings);
        findings.rows().to_vec()
    };
    let default = with_copies(100.0, &originals, &copies);
    assert_eq!(flagged(&mut DefaultDetector::default(), &default), [10]);
    // LATE: rates 6, 3, 2, 1 (units of 1/128 per second), threshold 1.129: row 3 flagged.
    // Two copies at rate 1 (rows 4, 5), counted, would give rates 6, 3, 2, 1, 1, 1: mean
    // 2.333, population SD 1.795, threshold 0.538, and nothing flagged.
    let late = with_copies(100.0, &RATES_6_3_2_1, &[(0, 3, 36.0, 0.5, 64e6); 2]);
    assert_eq!(flagged(&mut LateDetector::default(), &late), [3]);
    // Both on one thread and on rayon's pool.
    for parallelism in [Parallelism::Sequential, Parallelism::Parallel] {
        assert_eq!(flagged(&mut default_at(parallelism, 0.2), &default), [10]);
        assert_eq!(flagged(&mut late_at(parallelism, 1.0), &late), [3]);
    }
}

#[test]
fn late_with_alpha_zero_flags_strictly_below_the_mean() {
    // threshold = mean = 3: rates 2 and 1 (rows 2, 3); rate 3 (row 1) sits at the mean.
    check(late_with(0.0), 100.0, &RATES_6_3_2_1, &[2, 3]);
}

#[test]
fn late_does_not_flag_a_rate_exactly_at_the_threshold() {
    // Rates 0.5 / 16 = 8/256, 8/256, 0.5 / 32 = 4/256, 4/256: mean 6/256, deviations
    // +-2/256, population SD exactly 2/256, threshold exactly 4/256: nothing below it.
    let rows = [
        (0, 0, 84.0, 0.5, 64e6),
        (0, 1, 84.0, 0.5, 64e6),
        (0, 2, 68.0, 0.5, 64e6),
        (0, 3, 68.0, 0.5, 64e6),
    ];
    check(LateDetector::default(), 100.0, &rows, &[]);
    // alpha 0.5: threshold 6/256 - 1/256 = 5/256 flags both rates of 4/256.
    check(late_with(0.5), 100.0, &rows, &[2, 3]);
}

#[test]
fn late_leaves_attempts_started_now_out_of_the_statistics() {
    // Rows 4 and 5 started at now: no rate. Counted as rate 0 they would move the mean to
    // 2.0 and the threshold with it; counted at all, row 5 (progress 0.9 in 0 s) would be
    // infinitely fast. Neither is flagged and rows 0-3 are judged as above.
    let mut rows = RATES_6_3_2_1.to_vec();
    rows.extend([(0, 4, 100.0, 0.0, 64e6), (0, 5, 100.0, 0.9, 64e6)]);
    check(LateDetector::default(), 100.0, &rows, &[3]);
    check(late_with(0.0), 100.0, &rows, &[2, 3]);
}

#[test]
fn late_uses_separate_rate_statistics_per_stage() {
    // Stage 0: rates 6, 3, 2, 1 / 128 = 48, 24, 16, 8 / 1024, row 3 flagged as above.
    // Stage 1 (slow reduces): 0.5 / 64 = 8/1024 twice, 0.25 / 64 = 4/1024 twice: mean
    // 6/1024, SD 2/1024, threshold exactly 4/1024, nothing flagged.
    // Pooled, the mean would be 120/8 = 15/1024, squares 1089 + 81 + 1 + 49 + 49 + 49 + 121
    // + 121 = 1560, variance 195, SD 13.96, threshold 1.04/1024: nothing flagged at all.
    let mut rows = RATES_6_3_2_1.to_vec();
    rows.extend([
        (1, 0, 36.0, 0.5, 64e6),
        (1, 1, 36.0, 0.5, 64e6),
        (1, 2, 36.0, 0.25, 64e6),
        (1, 3, 36.0, 0.25, 64e6),
    ]);
    check(LateDetector::default(), 100.0, &rows, &[3]);
}

// ---------------------------------------------------------------------------------------
// Hierarchical: Speed = PS * input / (now - start), node perf = mean speed of its rows,
// keep the wrapped detector's detections on nodes with perf < node_threshold * average.

/// now = 100. Speeds: row 0: 0.25 * 64 / 4 = 4; rows 1, 2, 4: 0.75 * 400 / 100 = 3;
/// row 3: 0.25 * 400 / 100 = 1. Node perfs: node 0 (4 + 3) / 2 = 3.5, node 1 3, node 2
/// (1 + 3) / 2 = 2; average 8.5 / 3 = 2.833. Default: mean progress 2.75 / 5 = 0.55,
/// threshold 0.35, flags rows 0 (fast node 0) and 3 (slow node 2).
const THREE_NODES: [Row; 5] = [
    (0, 0, 96.0, 0.25, 64.0),
    (0, 0, 0.0, 0.75, 400.0),
    (0, 1, 0.0, 0.75, 400.0),
    (0, 2, 0.0, 0.25, 400.0),
    (0, 2, 0.0, 0.75, 400.0),
];

#[test]
fn hierarchical_keeps_detections_on_slow_nodes_only() {
    check(DefaultDetector::default(), 100.0, &THREE_NODES, &[0, 3]);
    // 0.9 * 2.833 = 2.55: only node 2 (2) is below.
    check(
        hierarchical_with(DefaultDetector::default(), 0.9),
        100.0,
        &THREE_NODES,
        &[3],
    );
    // 1.25 * 2.833 = 3.542: every node is below, both detections stay.
    check(
        hierarchical_with(DefaultDetector::default(), 1.25),
        100.0,
        &THREE_NODES,
        &[0, 3],
    );
    // 0.5 * 2.833 = 1.417: no node is below.
    check(
        hierarchical_with(DefaultDetector::default(), 0.5),
        100.0,
        &THREE_NODES,
        &[],
    );
}

#[test]
fn hierarchical_judges_nodes_on_all_stages() {
    // Row 5, a reduce on node 2 started at 96 with progress 1.0: speed 1.0 * 400 / 4 = 100,
    // node 2 at (1 + 3 + 100) / 3 = 34.67, average (3.5 + 3 + 34.67) / 3 = 13.72, bar
    // 12.35: nodes 0 and 1 are slow, node 2 is not. Default flags maps 0 and 3 as before
    // (the lone reduce is its stage's mean), so row 0 stays and row 3 goes; with the maps
    // alone it would be the other way round.
    let mut rows = THREE_NODES.to_vec();
    rows.push((1, 2, 96.0, 1.0, 400.0));
    check(
        hierarchical_with(DefaultDetector::default(), 0.9),
        100.0,
        &rows,
        &[0],
    );
}

#[test]
fn hierarchical_over_late() {
    // Rates 6, 3, 2, 1 / 128 on nodes 0-3 with equal inputs: node perfs in the same ratio,
    // average 3, bar 2.7: nodes 2 and 3 are slow, and LATE's detection (row 3) stays.
    let detector = hierarchical_with(LateDetector::default(), 0.9);
    assert_eq!(detector.name(), "hierarchical(late)");
    check(detector, 100.0, &RATES_6_3_2_1, &[3]);
}

#[test]
fn hierarchical_does_not_slow_nodes_of_identical_speeds() {
    // Every speed 0.1 (progress 0.1, input 1, one second): nodes 0 and 2 run three attempts,
    // node 1 one. (0.1 + 0.1 + 0.1) / 3 rounds to 0.10000000000000002, above every speed;
    // kept at or below the node's largest speed, every Perf_N is 0.1, the average too, and
    // at a node threshold of 1 no node is below it.
    let rows: Vec<Row> = [0, 0, 0, 1, 2, 2, 2]
        .into_iter()
        .map(|node| (0, node, 0.0, 0.1, 1.0))
        .collect();
    check(hierarchical_with(FlagAll, 1.0), 1.0, &rows, &[]);
}

#[test]
fn hierarchical_names() {
    assert_eq!(
        hierarchical_with(DefaultDetector::default(), 0.9).name(),
        "hierarchical"
    );
    let boxed: Box<dyn Detector> = Box::new(DefaultDetector::default());
    assert_eq!(hierarchical_with(boxed, 0.9).name(), "hierarchical");
    let boxed: Box<dyn Detector> = Box::new(LateDetector::default());
    assert_eq!(hierarchical_with(boxed, 0.9).name(), "hierarchical(late)");
    assert_eq!(DefaultDetector::default().name(), "default");
    assert_eq!(LateDetector::default().name(), "late");
}

// ---------------------------------------------------------------------------------------
// Degenerate snapshots, for the three detectors.

#[test]
fn empty_snapshot_flags_nothing() {
    for detector in paper_detectors().into_iter().chain(edge_detectors()) {
        check(detector, 100.0, &[], &[]);
    }
    // No stages, no nodes, at time 0.
    for mut detector in paper_detectors() {
        let empty = Snapshot::new(0.0, 0, Vec::new()).expect("finite now");
        assert_eq!(scan(&mut detector, &empty), Findings::default());
    }
}

#[test]
fn one_task_is_never_a_straggler() {
    // The only task is its stage's mean: below it by neither 0.2 nor 0 standard deviations.
    for detector in paper_detectors().into_iter().chain(edge_detectors()) {
        check(detector, 100.0, &[(0, 0, 50.0, 0.3, 64e6)], &[]);
    }
}

#[test]
fn identical_tasks_are_not_stragglers() {
    // Progress 0.1, start 40, input 64 MB on five rows over two nodes: the rounded mean of
    // 0.1 is 0.10000000000000002 for three of them, and must not flag the others.
    let rows: Vec<Row> = (0..5).map(|i| (0, i % 2, 40.0, 0.1, 64e6)).collect();
    for detector in paper_detectors().into_iter().chain(edge_detectors()) {
        check(detector, 100.0, &rows[..3], &[]);
    }
    for detector in paper_detectors().into_iter().chain(edge_detectors()) {
        check(detector, 100.0, &rows, &[]);
    }
}

#[test]
fn zero_progress_everywhere_flags_nothing() {
    // Default: mean 0, threshold -0.2. LATE: every rate 0, SD 0. Hierarchical: nothing to
    // keep. Start times and inputs differ, which none of the three may read as slowness.
    let rows: Vec<Row> = (0..6)
        .map(|i| {
            (
                i % 2,
                i % 3,
                f64::from(i) * 10.0,
                0.0,
                1e6 * f64::from(i + 1),
            )
        })
        .collect();
    for detector in paper_detectors().into_iter().chain(edge_detectors()) {
        check(detector, 100.0, &rows, &[]);
    }
}

#[test]
fn attempts_started_now() {
    // Progress 0.9, 0.9, 0.1, all started at now = 100. Default does not read start times:
    // mean 1.9 / 3 = 0.633, threshold 0.433, flags row 2. LATE has no rate for any row.
    // Hierarchical has no speed for any node, so no slow node, and drops Default's row.
    let rows = [
        (0, 0, 100.0, 0.9, 64e6),
        (0, 1, 100.0, 0.9, 64e6),
        (0, 2, 100.0, 0.1, 64e6),
    ];
    let expected: [&[u32]; 3] = [&[2], &[], &[]];
    for (detector, expected) in paper_detectors().into_iter().zip(expected) {
        check(detector, 100.0, &rows, expected);
    }
}

// ---------------------------------------------------------------------------------------
// Parameters are checked once.

#[test]
fn invalid_parameters_name_the_parameter() {
    let default = |gap| {
        DefaultParams {
            gap,
            ..DefaultParams::default()
        }
        .check()
        .map(|_| ())
    };
    let late = |alpha| {
        LateParams {
            alpha,
            ..LateParams::default()
        }
        .check()
        .map(|_| ())
    };
    let hierarchical = |node_threshold| {
        HierarchicalParams {
            node_threshold,
            ..HierarchicalParams::default()
        }
        .check()
        .map(|_| ())
    };
    let cases: [(Result<(), DetectError>, &str); 13] = [
        (default(f64::NAN), "gap"),
        (default(-0.1), "gap"),
        (default(f64::INFINITY), "gap"),
        (default(1.5), "gap"),
        (late(f64::NAN), "alpha"),
        (late(-1.0), "alpha"),
        (late(f64::INFINITY), "alpha"),
        (late(f64::NEG_INFINITY), "alpha"),
        (hierarchical(0.0), "node_threshold"),
        (hierarchical(-0.9), "node_threshold"),
        (hierarchical(f64::NAN), "node_threshold"),
        (hierarchical(f64::INFINITY), "node_threshold"),
        (hierarchical(-0.0), "node_threshold"),
    ];
    for (i, (result, expected)) in cases.into_iter().enumerate() {
        match result {
            Err(DetectError::InvalidParam { param, .. }) => {
                assert_eq!(param, expected, "case {i}");
            }
            other => panic!("case {i}: expected an invalid {expected}, got {other:?}"),
        }
    }
    let message = default(1.5).expect_err("gap 1.5").to_string();
    assert!(
        message.contains("gap") && message.contains("1.5"),
        "{message}"
    );
    // The edges of the ranges are valid.
    for ok in [
        default(0.0),
        default(1.0),
        late(0.0),
        late(1e6),
        hierarchical(1e-9),
        hierarchical(5.0),
    ] {
        assert_eq!(ok, Ok(()));
    }
}

// ---------------------------------------------------------------------------------------
// Blanket impls: `&mut D` and `Box<dyn Detector>` forward everything to D.

/// Counts what it is told; flags row 0 once it has observed anything.
#[derive(Debug, Default)]
struct Recorder {
    observed: usize,
    resets: usize,
}

impl Detector for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        if self.observed > 0 && !snapshot.is_empty() {
            findings.push_row(0);
        }
    }
    fn observe(&mut self, _observation: &Observation) {
        self.observed += 1;
    }
    fn reset(&mut self) {
        self.observed = 0;
        self.resets += 1;
    }
}

fn report() -> Observation {
    Observation::Progress(ProgressReport {
        attempt: AttemptId(0),
        task: TaskId(0),
        stage: StageId(0),
        node: NodeId(0),
        time_secs: 10.0,
        progress: 0.1,
    })
}

#[test]
fn mut_ref_and_box_behave_like_the_detector() {
    let snapshot = snapshot(100.0, &THREE_NODES);
    let mut default = DefaultDetector::default();
    let mut late = LateDetector::default();
    let mut hierarchical = hierarchical_with(DefaultDetector::default(), 0.9);
    // On D itself (`scan` is generic: `impl Detector` is D here).
    let direct = [
        (default.name().to_owned(), scan(&mut default, &snapshot)),
        (late.name().to_owned(), scan(&mut late, &snapshot)),
        (
            hierarchical.name().to_owned(),
            scan(&mut hierarchical, &snapshot),
        ),
    ];
    // Through `&mut D` (`impl Detector` is `&mut D`).
    let by_ref = [
        (
            Detector::name(&&mut default).to_owned(),
            scan(&mut &mut default, &snapshot),
        ),
        (
            Detector::name(&&mut late).to_owned(),
            scan(&mut &mut late, &snapshot),
        ),
        (
            Detector::name(&&mut hierarchical).to_owned(),
            scan(&mut &mut hierarchical, &snapshot),
        ),
    ];
    // Through `Box<dyn Detector>`.
    let boxed: Vec<(String, Findings)> = paper_detectors()
        .into_iter()
        .map(|mut detector| (detector.name().to_owned(), scan(&mut detector, &snapshot)))
        .collect();
    assert_eq!(by_ref, direct);
    assert_eq!(boxed, direct.to_vec());
    // Not vacuous: Default flags rows 0 and 3, Hierarchical keeps row 3.
    assert_eq!(direct[0].1.rows(), &[0, 3]);
    assert_eq!(direct[2].1.rows(), &[3]);

    // observe and reset are forwarded too (and through Hierarchical to its inner detector).
    let mut recorder = Recorder::default();
    {
        let mut by_ref = &mut recorder;
        Detector::observe(&mut by_ref, &report());
        assert_eq!(scan(&mut by_ref, &snapshot).rows(), &[0]);
        Detector::reset(&mut by_ref);
    }
    assert_eq!((recorder.observed, recorder.resets), (0, 1));
    let mut boxed: Box<dyn Detector> = Box::new(Recorder::default());
    boxed.observe(&report());
    assert_eq!(scan(&mut boxed, &snapshot).rows(), &[0]);
    boxed.reset();
    assert_eq!(scan(&mut boxed, &snapshot).rows(), &[] as &[u32]);
    let mut wrapped = hierarchical_with(Recorder::default(), 0.9);
    wrapped.observe(&report());
    assert_eq!(wrapped.inner().observed, 1);
    // Row 0 is on node 0 (perf 3.5, not slow): Hierarchical drops the recorder's flag.
    assert_eq!(scan(&mut wrapped, &snapshot).rows(), &[] as &[u32]);
    wrapped.reset();
    assert_eq!((wrapped.inner().observed, wrapped.inner().resets), (0, 1));
}

// ---------------------------------------------------------------------------------------
// The conformance kit, on our detectors and on broken ones.

/// Builds a detector for the parallelism given.
type Make = fn(Parallelism) -> Box<dyn Detector>;

#[test]
fn conformance_of_the_three_detectors() {
    let peer_relative: [(&str, Make); 7] = [
        ("default", |p| Box::new(default_at(p, 0.2))),
        ("default, gap 0", |p| Box::new(default_at(p, 0.0))),
        ("late", |p| Box::new(late_at(p, 1.0))),
        ("late, alpha 0", |p| Box::new(late_at(p, 0.0))),
        ("hierarchical", |p| {
            Box::new(hierarchical_at(p, default_at(p, 0.2), 0.9))
        }),
        ("hierarchical, threshold 1", |p| {
            Box::new(hierarchical_at(p, default_at(p, 0.0), 1.0))
        }),
        ("hierarchical(late)", |p| {
            Box::new(hierarchical_at(p, late_at(p, 1.0), 0.9))
        }),
    ];
    for (what, make) in peer_relative {
        if let Err(failure) = Conformance::new(make).peer_relative().run() {
            panic!("{what}: {failure}");
        }
    }
    // The universal checks, on a detector used by value.
    check_detector(|p| late_at(p, 1.0)).expect("late by value");
}

/// A detector broken in one way, to see that the kit notices.
#[derive(Debug)]
enum Broken {
    /// Flags rows 1 and 0, in that order.
    Unordered,
    /// Flags the row past the end.
    PastTheEnd,
    /// Flags row 0 on every other scan.
    Flaky(u32),
    /// Flags row 0 only when parallel.
    ThreadDependent(Parallelism),
    /// Flags every row (a legitimate absolute rule, but not peer-relative).
    Everything,
    /// Panics on an empty snapshot.
    PanicsWhenEmpty,
    /// Has an upper-case name.
    Shouting,
}

impl Detector for Broken {
    fn name(&self) -> &str {
        match self {
            Broken::Shouting => "BROKEN",
            _ => "broken",
        }
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let len = snapshot.len() as u32;
        match self {
            Broken::Unordered if len >= 2 => findings.rows_mut().extend([1, 0]),
            Broken::PastTheEnd => findings.rows_mut().push(len),
            Broken::Flaky(scans) => {
                *scans += 1;
                if *scans % 2 == 0 && len > 0 {
                    findings.push_row(0);
                }
            }
            Broken::ThreadDependent(Parallelism::Parallel) if len > 0 => findings.push_row(0),
            Broken::Everything => findings.rows_mut().extend(0..len),
            Broken::PanicsWhenEmpty => assert!(len > 0, "empty snapshot"),
            _ => {}
        }
    }
}

/// A broken detector's constructor, whether the kit runs with `peer_relative`, and the
/// check and scenario the kit must report.
type BrokenCase = (fn(Parallelism) -> Broken, bool, &'static str, &'static str);

#[test]
fn conformance_catches_broken_detectors() {
    let failure = |make: fn(Parallelism) -> Broken, peer_relative: bool| {
        let kit = Conformance::new(make);
        let kit = if peer_relative {
            kit.peer_relative()
        } else {
            kit
        };
        kit.run()
            .expect_err("the kit must reject a broken detector")
    };
    let range = "rows strictly increasing and in range, slow nodes in range";
    let cases: [BrokenCase; 7] = [
        // One row cannot be out of order: the first scans with two are amid the history of
        // the second scenario, whose own snapshot has no rows.
        (
            |_| Broken::Unordered,
            false,
            range,
            "stages and nodes, no rows",
        ),
        (
            |_| Broken::PastTheEnd,
            false,
            range,
            "empty snapshot without stages or nodes",
        ),
        (
            |_| Broken::Flaky(0),
            false,
            "a second scan gives the same findings",
            "one task",
        ),
        // The scans amid the second scenario's history are the first with rows.
        (
            Broken::ThreadDependent,
            false,
            "after the same observations, a parallel scan gives the findings of a sequential \
             one",
            "stages and nodes, no rows",
        ),
        (
            |_| Broken::Everything,
            true,
            "attempts identical to all their peers are not flagged",
            "one task",
        ),
        (
            |_| Broken::PanicsWhenEmpty,
            false,
            "the scan does not panic",
            "empty snapshot without stages or nodes",
        ),
        (
            |_| Broken::Shouting,
            false,
            "the name is non-empty, lower case and without whitespace",
            "name",
        ),
    ];
    for (make, peer_relative, check, scenario) in cases {
        let failure = failure(make, peer_relative);
        assert_eq!(
            (failure.check, failure.scenario),
            (check, scenario),
            "{failure}"
        );
    }
    // Each message names the two scans it compares, and when amid a history, which scan.
    let parallel = failure(Broken::ThreadDependent, false).detail;
    assert_eq!(
        parallel,
        "at the scan at 25 s amid the history (the scenario's snapshot is at 100 s): the \
         detector built with Parallelism::Sequential flagged rows [] and nodes [], the one \
         built with Parallelism::Parallel rows [0] and nodes []"
    );
    let flaky = failure(|_| Broken::Flaky(0), false).detail;
    assert!(
        flaky.starts_with("the first scan flagged rows []"),
        "{flaky}"
    );
    assert!(flaky.contains(", the second rows [0]"), "{flaky}");
    // Flagging everything is fine for a detector that does not claim to be peer-relative.
    check_detector(|_| Broken::Everything).expect("universal checks only");
}

/// A detector that never hears a stage finish: what it learnt of a finished stage stays
/// with the stage's index.
struct KeepsFinishedStages<D>(D);

impl<D: Detector> Detector for KeepsFinishedStages<D> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        self.0.scan(snapshot, findings);
    }
    fn observe(&mut self, observation: &Observation) {
        if !matches!(observation, Observation::StageFinished { .. }) {
            self.0.observe(observation);
        }
    }
    fn reset(&mut self) {
        self.0.reset();
    }
}

#[test]
fn the_kit_catches_a_detector_that_keeps_a_finished_stage() {
    use straggler_detect::{
        DosIndex, DosIndexParams, GarraghanDetector, GarraghanMode, GarraghanParams, Hadoop1,
        HadoopSpeculator, SparkDetector, SparkParams,
    };
    fn rejects<D: Detector>(make: impl Fn() -> D) {
        let kit = Conformance::new(|_| KeepsFinishedStages(make()));
        let name = make().name().to_owned();
        let failure = kit.forgets_finished_stages().run().err();
        let failure = failure.unwrap_or_else(|| panic!("{name}: not rejected"));
        assert_eq!(
            failure.check, "after StageFinished the index flags what a new detector flags",
            "{failure}"
        );
        // And the detector itself passes.
        let kit = Conformance::new(|_| make());
        kit.forgets_finished_stages()
            .run()
            .expect("the detector forgets");
    }
    let spark = |params: SparkParams| SparkDetector::new(params.check().expect("valid"));
    rejects(|| spark(SparkParams::spark4()));
    rejects(|| spark(SparkParams::legacy()));
    rejects(Hadoop1::default);
    rejects(HadoopSpeculator::legacy);
    rejects(HadoopSpeculator::exp_smoothed);
    rejects(HadoopSpeculator::simple_exp);
    for threshold in [2.5, 10.0] {
        let params = DosIndexParams {
            threshold,
            ..DosIndexParams::default()
        };
        rejects(|| DosIndex::new(params.check().expect("valid")));
    }
    for mode in [GarraghanMode::Offline, GarraghanMode::Combined] {
        let params = GarraghanParams {
            mode,
            ..GarraghanParams::default()
        };
        rejects(|| GarraghanDetector::new(params.check().expect("valid")));
    }
}

// ---------------------------------------------------------------------------------------
// Parallel scans equal sequential ones; scans are deterministic.

/// How progress scores are drawn.
#[derive(Debug, Clone, Copy)]
enum ProgressMix {
    /// Uniform in `[0, 1)`.
    Uniform,
    /// From a few repeated values, most of them not exact in binary (0.1, 0.7, 1/3).
    Repeated,
    /// `c - 0.2, c + 0.2` in turn within each stage: the stage mean is `c` and the
    /// population SD 0.2 up to rounding, so half the rows sit at Default's threshold (gap
    /// 0.2) and, with equal start times, at LATE's (alpha 1).
    TwoLevels,
    /// `c - 0.2, c, c + 0.2` in turn: a third of the rows at Default's threshold (gap 0.2),
    /// a third at the mean (gap 0; alpha 0 with equal start times).
    ThreeLevels,
    /// A row-by-row mixture of the above and a few slow rows.
    Mixed,
}

/// How start times are drawn.
#[derive(Debug, Clone, Copy)]
enum Starts {
    /// Uniform in `[0, now)`.
    Uniform,
    /// All at `now / 2`: rates are progress scores over one elapsed time.
    Same,
    /// `now - 100 k` for k in 0..6: repeated rates, and some rows started at now.
    Quantised,
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    rows: usize,
    stages: u32,
    nodes: u32,
    progress: ProgressMix,
    starts: Starts,
    seed: u64,
}

fn shapes() -> impl Strategy<Value = Shape> {
    (
        prop_oneof![0usize..50, 50usize..4_096, 4_096usize..=20_000],
        1u32..=5,
        1u32..=50,
        prop_oneof![
            Just(ProgressMix::Uniform),
            Just(ProgressMix::Repeated),
            Just(ProgressMix::TwoLevels),
            Just(ProgressMix::ThreeLevels),
            Just(ProgressMix::Mixed),
        ],
        prop_oneof![
            Just(Starts::Uniform),
            Just(Starts::Same),
            Just(Starts::Quantised)
        ],
        any::<u64>(),
    )
        .prop_map(|(rows, stages, nodes, progress, starts, seed)| Shape {
            rows,
            stages,
            nodes,
            progress,
            starts,
            seed,
        })
}

fn generate(shape: Shape) -> Snapshot {
    const NOW: f64 = 1000.0;
    const REPEATED: [f64; 9] = [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0 / 3.0, 1.0];
    const CENTRES: [f64; 5] = [0.5, 0.3, 0.7, 0.45, 0.6];
    let mut rng = SplitMix64(shape.seed);
    let mut turns = [0usize; 5];
    let rows: Vec<Row> = (0..shape.rows)
        .map(|_| {
            let stage = rng.below(shape.stages);
            let node = rng.below(shape.nodes);
            let mix = match shape.progress {
                ProgressMix::Mixed => rng.below(5),
                ProgressMix::Uniform => 0,
                ProgressMix::Repeated => 1,
                ProgressMix::TwoLevels => 2,
                ProgressMix::ThreeLevels => 3,
            };
            let progress = match mix {
                0 => rng.unit(),
                1 => REPEATED[rng.below(REPEATED.len() as u32) as usize],
                2 | 3 => {
                    let levels = if mix == 2 { 2 } else { 3 };
                    let turn = &mut turns[stage as usize];
                    *turn = (*turn + 1) % levels;
                    let centre = CENTRES[stage as usize];
                    // 2 levels: c - 0.2, c + 0.2; 3 levels: c - 0.2, c + 0.2, c.
                    [centre - 0.2, centre + 0.2, centre][*turn]
                }
                _ => rng.unit() * 0.05,
            };
            let start = match shape.starts {
                Starts::Uniform => rng.unit() * NOW,
                Starts::Same => NOW / 2.0,
                Starts::Quantised => NOW - 100.0 * f64::from(rng.below(6)),
            };
            let input = if rng.below(2) == 0 {
                64e6
            } else {
                1e6 + rng.unit() * 255e6
            };
            (stage, node, start, progress, input)
        })
        .collect();
    // Every stage and node of the shape, whether or not a row uses it.
    sized_snapshot(NOW, shape.stages, shape.nodes, &rows)
}

/// Every detector configuration the properties run, built for a given parallelism.
fn configurations(p: Parallelism) -> Vec<Box<dyn Detector>> {
    vec![
        Box::new(default_at(p, 0.2)),
        Box::new(default_at(p, 0.0)),
        Box::new(late_at(p, 1.0)),
        Box::new(late_at(p, 0.0)),
        Box::new(hierarchical_at(p, default_at(p, 0.2), 0.9)),
        Box::new(hierarchical_at(p, default_at(p, 0.0), 1.0)),
        Box::new(hierarchical_at(p, late_at(p, 1.0), 0.9)),
    ]
}

proptest! {
    // 64 cases of up to 20 000 rows, 7 configurations, 2 scans each: a fraction of a second
    // at the test profile's opt-level 1.
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn parallel_scans_equal_sequential_scans(shape in shapes()) {
        let snapshot = generate(shape);
        let sequential = configurations(Parallelism::Sequential);
        let parallel = configurations(Parallelism::Parallel);
        for (mut sequential, mut parallel) in sequential.into_iter().zip(parallel) {
            let expected = scan(&mut sequential, &snapshot);
            let got = scan(&mut parallel, &snapshot);
            prop_assert_eq!(&got, &expected, "{}", sequential.name());
        }
    }

    #[test]
    fn scans_are_deterministic_and_rows_increasing(shape in shapes()) {
        let snapshot = generate(shape);
        for mut detector in configurations(Parallelism::Auto { min_rows: 4096 }) {
            let first = scan(&mut detector, &snapshot);
            let second = scan(&mut detector, &snapshot);
            prop_assert_eq!(&first, &second, "{}", detector.name());
            let rows = first.rows();
            prop_assert!(rows.windows(2).all(|w| w[0] < w[1]), "{}: {:?}", detector.name(), rows);
            prop_assert!(rows.iter().all(|&r| (r as usize) < snapshot.len()));
        }
    }
}

#[test]
fn the_straggling_stage_has_its_documented_shape() {
    use straggler_detect::conformance::{STAGE_NOW_SECS, straggling_stage};
    let snapshot = straggling_stage(20_000, 100, 7).expect("valid rows");
    assert_eq!(snapshot.len(), 20_000);
    assert_eq!(snapshot.now_secs(), STAGE_NOW_SECS);
    let same = straggling_stage(20_000, 100, 7).expect("valid rows");
    assert_eq!(
        snapshot.progress(),
        same.progress(),
        "the same seed, the same rows"
    );
    // Rows started more than 600 s ago are stragglers only: on the 5 nodes in 100 with
    // n % 20 == 0 (5% of rows) plus 1% of the rest, three quarters of them that old.
    let old = snapshot
        .start_secs()
        .iter()
        .filter(|&&s| STAGE_NOW_SECS - s > 600.0)
        .count();
    let expected = 20_000.0 * (0.05 + 0.95 * 0.01) * 0.75;
    assert!(
        (old as f64 - expected).abs() < 0.15 * expected,
        "{old} vs {expected}"
    );
    assert!(
        snapshot
            .progress()
            .iter()
            .all(|&p| (0.0..=0.999).contains(&p))
    );
}

/// `Parallelism::on_pool` runs a parallel scan on a thread of rayon's pool and a
/// sequential one on the caller's; Hierarchical over Default (whose scans both enter the
/// pool) flags the same rows from the test's thread, from inside pools of one to three
/// threads, nested in a `rayon::join`, and from four threads scanning at once.
#[test]
fn scans_entering_the_pool_flag_the_same_rows_from_any_thread() {
    let on_a_worker = || rayon::current_thread_index().is_some();
    assert!(Parallelism::Parallel.on_pool(1, on_a_worker));
    assert!(!Parallelism::Sequential.on_pool(1, on_a_worker));
    let snapshot =
        straggler_detect::conformance::straggling_stage(100_000, 1000, 3).expect("valid rows");
    let rows = |parallelism| {
        let inner = DefaultParams {
            parallelism,
            ..DefaultParams::default()
        };
        let params = HierarchicalParams {
            parallelism,
            ..HierarchicalParams::default()
        };
        let inner = DefaultDetector::new(inner.check().expect("valid"));
        let mut detector = Hierarchical::new(inner, params.check().expect("valid"));
        scan(&mut detector, &snapshot).rows().to_vec()
    };
    let expected = rows(Parallelism::Sequential);
    assert!(!expected.is_empty());
    assert_eq!(rows(Parallelism::Parallel), expected);
    for threads in 1..=3 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let found = pool.install(|| rows(Parallelism::Parallel));
        assert_eq!(found, expected, "{threads} threads");
    }
    let both = rayon::join(
        || rows(Parallelism::Parallel),
        || rows(Parallelism::Parallel),
    );
    assert_eq!(both, (expected.clone(), expected.clone()));
    std::thread::scope(|s| {
        let scans: Vec<_> = (0..4)
            .map(|_| s.spawn(|| rows(Parallelism::Parallel)))
            .collect();
        for scan in scans {
            assert_eq!(scan.join().expect("no panic"), expected);
        }
    });
}
