//! Tests of the production-rule detectors: Spark's `checkSpeculatableTasks`
//! ([`SparkDetector`]) and LATE as Zaharia et al. published it, on cases worked by hand,
//! degenerate inputs, parameter checks and the conformance kit.
//!
//! A second test binary beside `detect.rs`: these detectors need rows with explicit task
//! ids and roles, and observations of ended attempts, which the compact rows of `detect.rs`
//! do not carry. A row here is `(task, stage, node, role, start_secs, progress,
//! input_bytes)`. Values are chosen so that the arithmetic in the comments is exact in
//! binary64 or far from the threshold, except where a case is about the threshold.

use straggler_detect::conformance::{Conformance, SplitMix64};
use straggler_detect::{
    DetectError, Detector, Findings, Parallelism, SparkDetector, SparkParams, ZahariaLate,
    ZahariaLateParams,
};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, Observation, ProgressReport,
    Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

const O: AttemptRole = AttemptRole::Original;
const S: AttemptRole = AttemptRole::Speculative;
const MB: f64 = 1e6;

/// `(task, stage, node, role, start_secs, progress, input_bytes)`.
type Row = (u32, u32, u32, AttemptRole, f64, f64, f64);

/// A snapshot at `now` of `stage_count` stages on `node_count` nodes; attempt ids are the
/// row indices.
fn snapshot(now: f64, stage_count: u32, node_count: u32, rows: &[Row]) -> Snapshot {
    let stages = (0..stage_count)
        .map(|s| Stage {
            job: JobId(0),
            kind: if s == 0 {
                TaskKind::Map
            } else {
                TaskKind::Reduce
            },
        })
        .collect();
    let mut snapshot = Snapshot::new(now, node_count, stages).expect("valid snapshot");
    for (i, &(task, stage, node, role, start_secs, progress, input_bytes)) in
        rows.iter().enumerate()
    {
        snapshot
            .push(SnapshotRow {
                attempt: AttemptId(i as u32),
                task: TaskId(task),
                stage: StageId(stage),
                node: NodeId(node),
                role,
                start_secs,
                progress,
                input_bytes,
            })
            .expect("valid row");
    }
    snapshot
}

fn scan(detector: &mut impl Detector, snapshot: &Snapshot) -> Findings {
    let mut findings = Findings::default();
    detector.scan(snapshot, &mut findings);
    findings
}

/// Scans `rows` at `now` (one stage per distinct stage index, 8 nodes) and compares the
/// flagged rows with `expected`.
#[track_caller]
fn check(detector: &mut impl Detector, now: f64, rows: &[Row], expected: &[u32]) {
    let stage_count = rows.iter().map(|r| r.1 + 1).max().unwrap_or(1);
    let findings = scan(detector, &snapshot(now, stage_count, 8, rows));
    assert_eq!(
        findings.rows(),
        expected,
        "detector {} at now = {now}",
        detector.name()
    );
}

/// The end of an attempt of `task` in `stage`.
fn ended(
    task: u32,
    stage: u32,
    status: AttemptStatus,
    start_secs: f64,
    end_secs: f64,
    input_bytes: u64,
) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(1_000_000 + task),
        task: TaskId(task),
        stage: StageId(stage),
        node: NodeId(0),
        role: AttemptRole::Original,
        start_secs,
        end_secs,
        status,
        input_bytes,
    })
}

/// A success of `task` in `stage` that ran `[start_secs, end_secs]` on 64 MB.
fn success(task: u32, stage: u32, start_secs: f64, end_secs: f64) -> Observation {
    ended(
        task,
        stage,
        AttemptStatus::Succeeded,
        start_secs,
        end_secs,
        64_000_000,
    )
}

fn progress_report(task: u32, stage: u32) -> Observation {
    Observation::Progress(ProgressReport {
        attempt: AttemptId(2_000_000 + task),
        task: TaskId(task),
        stage: StageId(stage),
        node: NodeId(0),
        time_secs: 1.0,
        progress: 0.1,
    })
}

fn spark(params: SparkParams) -> SparkDetector {
    SparkDetector::new(params.check().expect("valid spark parameters"))
}

/// A detector that has seen tasks `0..successes` of stage 0 succeed in 10 s on 64 MB.
fn spark_after(params: SparkParams, successes: u32) -> SparkDetector {
    let mut detector = spark(params);
    for task in 0..successes {
        detector.observe(&success(task, 0, 0.0, 10.0));
    }
    detector
}

// ---------------------------------------------------------------------------------------
// Spark

#[test]
fn spark_threshold_and_efficiency_check() {
    // Tasks 0..9 succeeded in 10 s on 64 MB; task 9 runs: numTasks = 10, gate =
    // max(floor(0.9 * 10), 1) = 9 successes, reached. median = 10 s, threshold =
    // max(3 * 10, 0.1) = 30 s, long run = 2 * 30 = 60 s. Stage rate = (9 * 64e6) / (9 * 10)
    // = 6.4e6 B/s, efficiency bar = 0.75 * 6.4e6 = 4.8e6 B/s.
    let mut detector = spark_after(SparkParams::spark4(), 9);
    // runtime 30 is not > 30.
    check(
        &mut detector,
        30.0,
        &[(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)],
        &[],
    );
    // runtime 31 > 30, rate 0.5 * 64e6 / 31 = 1.03e6 < 4.8e6: slow and inefficient.
    check(
        &mut detector,
        31.0,
        &[(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)],
        &[0],
    );
    // On 640 MB: rate 0.5 * 640e6 / 31 = 10.3e6 >= 4.8e6, and 31 <= 60: efficient.
    check(
        &mut detector,
        31.0,
        &[(9, 0, 0, O, 0.0, 0.5, 640.0 * MB)],
        &[],
    );
    // runtime 40 on 384 MB: rate 0.5 * 384e6 / 40 = 4.8e6, exactly the bar, so not below
    // it (`<`), and 40 <= 60: efficient.
    check(
        &mut detector,
        40.0,
        &[(9, 0, 0, O, 0.0, 0.5, 384.0 * MB)],
        &[],
    );
    // runtime 60: rate 320e6 / 60 = 5.3e6 >= 4.8e6, and 60 is not > 60.
    check(
        &mut detector,
        60.0,
        &[(9, 0, 0, O, 0.0, 0.5, 640.0 * MB)],
        &[],
    );
    // runtime 61 > 60 = 2 * threshold: flagged whatever its rate.
    check(
        &mut detector,
        61.0,
        &[(9, 0, 0, O, 0.0, 0.5, 640.0 * MB)],
        &[0],
    );
    // Efficiency check off: runtime 31 > 30 is enough.
    let mut plain = spark_after(
        SparkParams {
            efficiency_enabled: false,
            ..SparkParams::spark4()
        },
        9,
    );
    check(
        &mut plain,
        31.0,
        &[(9, 0, 0, O, 0.0, 0.5, 640.0 * MB)],
        &[0],
    );
}

#[test]
fn spark_waits_for_its_quantile_of_successes() {
    // 8 successes; task 8 seen in a progress report, task 9 running: numTasks = 10.
    let observe = |mut detector: SparkDetector| {
        detector.observe(&progress_report(8, 0));
        detector
    };
    let row = [(9, 0, 0, O, 0.0, 0.5, 640.0 * MB)];
    // Spark 4: gate floor(0.9 * 10) = 9 > 8 successes: nothing, however long it runs.
    let mut spark4 = observe(spark_after(SparkParams::spark4(), 8));
    check(&mut spark4, 1e6, &row, &[]);
    // Legacy: gate floor(0.75 * 10) = 7 <= 8. threshold = max(1.5 * 10, 0.1) = 15 s,
    // long run 30 s; runtime 31 > 30.
    let mut legacy = observe(spark_after(SparkParams::legacy(), 8));
    check(&mut legacy, 31.0, &row, &[0]);
    // runtime 29: rate 320e6 / 29 = 11e6 >= 0.75 * 6.4e6, and 29 <= 30: efficient.
    check(&mut legacy, 29.0, &row, &[]);
    // Quantile 0: the gate is max(0, 1) = 1 success.
    let mut eager = spark(SparkParams {
        quantile: 0.0,
        ..SparkParams::spark4()
    });
    check(&mut eager, 1e6, &row, &[]);
    eager.observe(&success(0, 0, 0.0, 10.0));
    check(&mut eager, 1e6, &row, &[0]);
}

#[test]
fn spark_median_of_an_even_and_an_odd_count() {
    let params = SparkParams {
        efficiency_enabled: false,
        ..SparkParams::spark4()
    };
    let two_durations = |params: SparkParams| {
        let mut detector = spark(params);
        detector.observe(&success(0, 0, 0.0, 4.0));
        detector.observe(&success(1, 0, 0.0, 8.0));
        detector
    };
    // Durations 4 and 8 s, task 2 running: numTasks 3, gate floor(2.7) = 2. Spark 4
    // (PercentileHeap): median sorted[2 / 2] = 8, threshold 3 * 8 = 24 s.
    let mut detector = two_durations(params);
    let row = [(2, 0, 0, O, 0.0, 0.5, 64.0 * MB)];
    check(&mut detector, 24.0, &row, &[]);
    check(&mut detector, 24.5, &row, &[0]);
    // The averaged median (MedianHeap): (4 + 8) / 2 = 6, threshold 3 * 6 = 18 s.
    let mut averaged = two_durations(SparkParams {
        median_averages_middle_pair: true,
        ..params
    });
    check(&mut averaged, 18.0, &row, &[]);
    check(&mut averaged, 18.5, &row, &[0]);
    // The legacy preset averages: gate floor(0.75 * 3) = 2, threshold 1.5 * 6 = 9 s.
    let mut legacy = two_durations(SparkParams {
        efficiency_enabled: false,
        ..SparkParams::legacy()
    });
    check(&mut legacy, 9.0, &row, &[]);
    check(&mut legacy, 9.5, &row, &[0]);
    // A third duration, 100 s (task 3): sorted 4, 8, 100, median 8 both ways, threshold
    // 24 s. numTasks 4, gate floor(3.6) = 3.
    for detector in [&mut detector, &mut averaged] {
        detector.observe(&success(3, 0, 50.0, 150.0));
        check(detector, 24.0, &row, &[]);
        check(detector, 24.5, &row, &[0]);
    }
}

#[test]
fn spark_stage_rate_is_a_ratio_of_totals() {
    // Successes of 10, 10 and 90 s on 64 MB each; task 3 runs on 640 MB: numTasks 4, gate
    // floor(0.9 * 4) = 3. median 10 s, threshold 30 s, long run 60 s. Stage rate =
    // 192e6 / 110 = 1.745e6 B/s, bar 0.75 * 1.745e6 = 1.309e6 B/s (the mean of the rates,
    // (6.4e6 + 6.4e6 + 0.711e6) / 3 = 4.504e6, would give 3.378e6).
    let mut detector = spark(SparkParams::spark4());
    detector.observe(&success(0, 0, 0.0, 10.0));
    detector.observe(&success(1, 0, 0.0, 10.0));
    detector.observe(&success(2, 0, 0.0, 90.0));
    let row = [(3, 0, 0, O, 0.0, 0.1, 640.0 * MB)];
    // runtime 31: rate 64e6 / 31 = 2.06e6 >= 1.309e6, and 31 <= 60: efficient.
    check(&mut detector, 31.0, &row, &[]);
    // runtime 48: 64e6 / 48 = 1.333e6 >= 1.309e6; runtime 49: 1.306e6 < 1.309e6.
    check(&mut detector, 48.0, &row, &[]);
    check(&mut detector, 49.0, &row, &[0]);
}

#[test]
fn spark_threshold_never_below_min_task_runtime() {
    // One success of 0.01 s, task 1 running: gate max(floor(1.8), 1) = 1. threshold =
    // max(3 * 0.01, 0.1) = 0.1 s, long run 0.2 s; stage rate 64e6 / 0.01 = 6.4e9 B/s.
    let mut detector = spark(SparkParams::spark4());
    detector.observe(&success(0, 0, 0.0, 0.01));
    let row = [(1, 0, 0, O, 0.0, 1.0, 64.0 * MB)];
    check(&mut detector, 0.09, &row, &[]);
    // runtime 0.15 > 0.1, rate 64e6 / 0.15 = 4.3e8 < 0.75 * 6.4e9.
    check(&mut detector, 0.15, &row, &[0]);
}

#[test]
fn spark_degenerate_successes() {
    // A success of zero duration: median 0, threshold max(0, 0.1) = 0.1 s. Total run time
    // 0, so the stage rate is f64::MAX (Spark's Double.MaxValue) and the bar 0.75 * f64::MAX:
    // any finite rate is below it, and the task is speculated once past the threshold.
    let mut detector = spark(SparkParams::spark4());
    detector.observe(&success(0, 0, 5.0, 5.0));
    let row = [(1, 0, 0, O, 0.0, 0.0, 0.0)];
    check(&mut detector, 0.1, &row, &[]);
    check(&mut detector, 0.15, &row, &[0]);
    check(
        &mut detector,
        0.15,
        &[(1, 0, 0, O, 0.0, 1.0, 640.0 * MB)],
        &[0],
    );
    // A success with a NaN or negative duration adds no duration and does not count
    // towards the gate: Spark counts `successfulTaskDurations.size()` (SPARK-27590), the
    // successes with a duration. Quantile 0.5; two such and one of 10 s, four tasks seen:
    // the gate max(floor(0.5 * 4), 1) = 2 is not reached by one duration (counting every
    // success, 3 >= 2 would flag the task, running far past 2 x 30 s). A second success
    // of 10 s, five tasks seen: gate floor(2.5) = 2 reached, median 10 s: flagged.
    let mut broken = spark(SparkParams {
        quantile: 0.5,
        ..SparkParams::spark4()
    });
    broken.observe(&success(0, 0, 5.0, f64::NAN));
    broken.observe(&success(2, 0, 5.0, 4.0));
    check(&mut broken, 1e6, &row, &[]);
    broken.observe(&success(3, 0, 0.0, 10.0));
    check(&mut broken, 1e6, &row, &[]);
    broken.observe(&success(4, 0, 0.0, 10.0));
    check(&mut broken, 1e6, &row, &[0]);
    // Zero input everywhere: total input 0, stage rate f64::MAX; threshold 30 s, long run
    // 60 s. The running rate 0.5 * 0 / 31 = 0 < 0.75 * f64::MAX: speculated at 31 s.
    let zero_input = |params: SparkParams| {
        let mut detector = spark(params);
        detector.observe(&ended(0, 0, AttemptStatus::Succeeded, 0.0, 10.0, 0));
        detector
    };
    let mut empty_inputs = zero_input(SparkParams::spark4());
    let row = [(1, 0, 0, O, 0.0, 0.5, 0.0)];
    check(&mut empty_inputs, 30.0, &row, &[]);
    check(&mut empty_inputs, 31.0, &row, &[0]);
    // Multiplier 0: the bar is 0 * f64::MAX = 0, and 0 is not < 0: only the long-run clause.
    let mut no_rate_bar = zero_input(SparkParams {
        process_rate_multiplier: 0.0,
        ..SparkParams::spark4()
    });
    check(&mut no_rate_bar, 31.0, &row, &[]);
    check(&mut no_rate_bar, 60.0, &row, &[]);
    check(&mut no_rate_bar, 61.0, &row, &[0]);
    // No observation at all: nothing, even on an empty snapshot.
    let mut fresh = spark(SparkParams::spark4());
    check(&mut fresh, 1e6, &row, &[]);
    check(&mut fresh, 1e6, &[], &[]);
}

#[test]
fn spark_counts_each_task_once_and_only_successes() {
    let params = SparkParams {
        quantile: 0.0,
        efficiency_enabled: false,
        ..SparkParams::spark4()
    };
    let history = [
        success(0, 0, 0.0, 10.0),
        // A second success of task 0 (its copy): ignored, else median 505.
        success(0, 0, 0.0, 1000.0),
        ended(1, 0, AttemptStatus::Killed, 0.0, 1000.0, 64_000_000),
        ended(2, 0, AttemptStatus::Failed, 0.0, 1000.0, 64_000_000),
    ];
    let mut detector = spark(params);
    history.iter().for_each(|o| detector.observe(o));
    // durations [10]: threshold 30 s.
    let row = [(3, 0, 0, O, 0.0, 0.5, 64.0 * MB)];
    check(&mut detector, 31.0, &row, &[0]);
    // Killed and failed tasks are seen: numTasks = 4 (tasks 0..3), so quantile 1 needs
    // floor(1.0 * 4) = 4 successes, not 1.
    let mut strict = spark(SparkParams {
        quantile: 1.0,
        ..params
    });
    history.iter().for_each(|o| strict.observe(o));
    check(&mut strict, 31.0, &row, &[]);
}

#[test]
fn spark_flags_only_lone_originals_of_unfinished_tasks() {
    // 40 successes in 10 s; running tasks 40..43 and task 3 again: numTasks 44, gate
    // floor(0.9 * 44) = 39 <= 40. threshold 30 s, long run 60 s; at now = 100 every
    // runtime of 100 s passes on duration alone.
    let mut detector = spark_after(SparkParams::spark4(), 40);
    let rows = [
        (40, 0, 0, O, 0.0, 0.5, 64.0 * MB),   // 0: flagged
        (41, 0, 1, O, 0.0, 0.5, 64.0 * MB),   // 1: its copy runs
        (41, 0, 2, S, 50.0, 0.5, 64.0 * MB),  // 2: a copy
        (42, 0, 3, S, 0.0, 0.5, 64.0 * MB),   // 3: a copy whose original ended
        (3, 0, 4, O, 0.0, 0.5, 64.0 * MB),    // 4: task 3 already succeeded
        (43, 0, 5, O, 99.95, 0.0, 64.0 * MB), // 5: runtime 0.05 s
    ];
    check(&mut detector, 100.0, &rows, &[0]);
}

#[test]
fn spark_keeps_stages_apart() {
    // Stage 0 has its successes (threshold 30 s); stage 1 none: its rows are never flagged.
    let mut detector = spark_after(SparkParams::spark4(), 9);
    let rows = [
        (100, 1, 0, O, 0.0, 0.1, 64.0 * MB),
        (9, 0, 1, O, 0.0, 0.1, 64.0 * MB),
        (101, 1, 2, O, 0.0, 0.1, 64.0 * MB),
    ];
    check(&mut detector, 1000.0, &rows, &[1]);
    // A success in stage 1 of 1000 s: numTasks 3 (tasks 100..102), gate floor(2.7) = 2 > 1.
    detector.observe(&success(102, 1, 0.0, 1000.0));
    check(&mut detector, 4000.0, &rows, &[1]);
    // Eight more of 100 s (tasks 103..110): 9 successes, numTasks 11, gate floor(9.9) = 9.
    // Sorted durations: eight of 100, then 1000; median (the 5th) 100, threshold 300 s,
    // long run 600 s: rows 0 and 2 run 4000 s.
    for task in 103..111 {
        detector.observe(&success(task, 1, 0.0, 100.0));
    }
    check(&mut detector, 4000.0, &rows, &[0, 1, 2]);
    // At now = 250 s the rows of stage 1 run 250 s <= 300 s; row 1 (stage 0) still runs
    // longer than its 60 s.
    check(&mut detector, 250.0, &rows, &[1]);
}

#[test]
fn spark_reset_forgets_history() {
    let mut detector = spark_after(SparkParams::spark4(), 9);
    let row = [(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)];
    check(&mut detector, 100.0, &row, &[0]);
    detector.reset();
    check(&mut detector, 100.0, &row, &[]);
}

#[test]
fn spark_names_and_presets() {
    assert_eq!(spark(SparkParams::default()).name(), "spark");
    assert_eq!(SparkParams::default(), SparkParams::spark4());
    assert_eq!(spark(SparkParams::legacy()).name(), "spark-legacy");
    let legacy = SparkParams::legacy();
    assert_eq!((legacy.quantile, legacy.multiplier), (0.75, 1.5));
    // Spark 4 takes the upper middle of an even count, the legacy preset the mean.
    assert!(!SparkParams::spark4().median_averages_middle_pair);
    assert!(legacy.median_averages_middle_pair);
    let custom = SparkParams {
        multiplier: 2.0,
        ..SparkParams::legacy()
    };
    assert_eq!(spark(custom).name(), "spark");
    // Spark 3.5: the legacy gate and multiplier with the upper middle.
    let spark35 = SparkParams {
        median_averages_middle_pair: false,
        ..SparkParams::legacy()
    };
    assert_eq!(spark(spark35).name(), "spark");
}

#[test]
fn spark_legacy_json_saved_without_the_median_key_is_not_named_legacy() {
    // The legacy preset as saved before `median_averages_middle_pair` existed.
    let old = r#"{
        "quantile": 0.75,
        "multiplier": 1.5,
        "min_task_runtime_secs": 0.1,
        "efficiency_enabled": false,
        "long_run_task_factor": 2.0,
        "process_rate_multiplier": 0.75,
        "parallelism": "sequential"
    }"#;
    let loaded: SparkParams = serde_json::from_str(old).expect("an old legacy value loads");
    // The missing key is `false`: Spark 3.5's upper middle, so the name is not the
    // legacy preset's.
    assert!(!loaded.median_averages_middle_pair);
    assert_eq!((loaded.quantile, loaded.multiplier), (0.75, 1.5));
    let mut detector = spark(loaded);
    assert_eq!(detector.name(), "spark");
    // And it behaves as named: durations 4 and 8 s, task 2 running (gate floor(0.75 * 3)
    // = 2): median sorted[2 / 2] = 8, threshold 1.5 * 8 = 12 s (the legacy preset's
    // averaged median, 6, would give 9 s).
    detector.observe(&success(0, 0, 0.0, 4.0));
    detector.observe(&success(1, 0, 0.0, 8.0));
    let row = [(2, 0, 0, O, 0.0, 0.5, 64.0 * MB)];
    check(&mut detector, 9.5, &row, &[]);
    check(&mut detector, 12.0, &row, &[]);
    check(&mut detector, 12.5, &row, &[0]);
    // With the key, the legacy preset and its name; a saved preset round-trips.
    let with_key = old.replacen('{', r#"{ "median_averages_middle_pair": true,"#, 1);
    let loaded: SparkParams = serde_json::from_str(&with_key).expect("loads");
    assert_eq!(
        loaded,
        SparkParams {
            efficiency_enabled: false,
            parallelism: Parallelism::Sequential,
            ..SparkParams::legacy()
        }
    );
    assert_eq!(spark(loaded).name(), "spark-legacy");
    let saved = serde_json::to_string(&SparkParams::legacy()).expect("serializes");
    let reloaded: SparkParams = serde_json::from_str(&saved).expect("loads");
    assert_eq!(spark(reloaded).name(), "spark-legacy");
}

#[test]
fn spark_invalid_parameters_name_the_parameter() {
    let cases: [(&str, SparkParams); 6] = [
        (
            "quantile",
            SparkParams {
                quantile: 1.5,
                ..SparkParams::spark4()
            },
        ),
        (
            "quantile",
            SparkParams {
                quantile: f64::NAN,
                ..SparkParams::spark4()
            },
        ),
        (
            "multiplier",
            SparkParams {
                multiplier: -1.0,
                ..SparkParams::spark4()
            },
        ),
        (
            "min_task_runtime_secs",
            SparkParams {
                min_task_runtime_secs: f64::INFINITY,
                ..SparkParams::spark4()
            },
        ),
        (
            "long_run_task_factor",
            SparkParams {
                long_run_task_factor: -0.5,
                ..SparkParams::spark4()
            },
        ),
        (
            "process_rate_multiplier",
            SparkParams {
                process_rate_multiplier: f64::NEG_INFINITY,
                ..SparkParams::spark4()
            },
        ),
    ];
    for (name, params) in cases {
        match params.check() {
            Err(DetectError::InvalidParam { param, .. }) => assert_eq!(param, name),
            other => panic!("{name}: expected an invalid parameter, got {other:?}"),
        }
    }
}

#[test]
fn spark_passes_the_conformance_kit() {
    for preset in [SparkParams::spark4(), SparkParams::legacy()] {
        Conformance::new(|parallelism| {
            spark(SparkParams {
                parallelism,
                ..preset
            })
        })
        .forgets_finished_stages()
        .run()
        .expect("spark conformance");
    }
}

/// 20 000 rows over 4 stages with a history of successes, some copies and some finished
/// tasks still running: the parallel filter flags exactly the sequential one's rows (the
/// kit's histories hold 24 finished tasks per stage that has started: enough for Spark's
/// quantile only in its scenarios of a few rows).
#[test]
fn spark_parallel_equals_sequential_with_history() {
    let mut rng = SplitMix64(0x5a1c_0ffe);
    let now = 3600.0;
    let mut history = Vec::new();
    for stage in 0..4u32 {
        for i in 0..30_000u32 {
            let start = rng.unit() * 1000.0;
            let input = (1 + rng.below(256)) as u64 * 1_000_000;
            history.push(ended(
                stage * 100_000 + i,
                stage,
                AttemptStatus::Succeeded,
                start,
                start + 10.0 + rng.unit() * 600.0,
                input,
            ));
        }
    }
    let rows: Vec<Row> = (0..20_000u32)
        .map(|i| {
            let stage = rng.below(4);
            let task = match rng.below(20) {
                0 => stage * 100_000 + rng.below(30_000), // already succeeded
                1 => stage * 100_000 + 50_000 + i / 2,    // shares its task with a neighbour
                _ => stage * 100_000 + 50_000 + 20_000 + i,
            };
            let role = if rng.below(10) == 0 { S } else { O };
            let start = if rng.below(10) == 0 {
                now
            } else {
                rng.unit() * now
            };
            (
                task,
                stage,
                rng.below(50),
                role,
                start,
                rng.unit(),
                rng.unit() * 256.0 * MB,
            )
        })
        .collect();
    let snapshot = snapshot(now, 4, 50, &rows);
    // Legacy preset: per stage about 30 000 successes of 35 000 tasks seen, gate
    // floor(0.75 * 35 000) = 26 250.
    let run = |parallelism| {
        let mut detector = spark(SparkParams {
            parallelism,
            ..SparkParams::legacy()
        });
        history.iter().for_each(|o| detector.observe(o));
        scan(&mut detector, &snapshot)
    };
    let sequential = run(Parallelism::Sequential);
    assert!(!sequential.rows().is_empty());
    assert!(sequential.rows().len() < rows.len());
    assert_eq!(sequential, run(Parallelism::Parallel));
}

// ---------------------------------------------------------------------------------------
// LATE as Zaharia et al. published it

fn zaharia(params: ZahariaLateParams) -> ZahariaLate {
    ZahariaLate::new(params.check().expect("valid late-zaharia parameters"))
}

fn zaharia_cap(speculative_cap: f64) -> ZahariaLate {
    zaharia(ZahariaLateParams {
        speculative_cap,
        ..ZahariaLateParams::default()
    })
}

/// Eight originals of stage 0 started at 0, two per node on nodes 0..3, at now = 64: six at
/// progress 0.75, then 0.25 (row 6) and 0.5 (row 7), both on node 3. Rates `p / 64`.
fn eight_rows() -> Vec<Row> {
    let progress = [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.25, 0.5];
    (0..8u32)
        .map(|i| (i, 0, i / 2, O, 0.0, progress[i as usize], 64.0 * MB))
        .collect()
}

#[test]
fn zaharia_flags_the_longest_time_left_below_the_percentile() {
    // Rates in units of 1/64: sorted 0.25, 0.5, 0.75 x 6. 25th percentile: h = 7 * 0.25 =
    // 1.75, 0.5 + 0.75 * (0.75 - 0.5) = 0.6875: rows 6 and 7 are slow. Time left: row 6
    // (1 - 0.25) / (0.25 / 64) = 192 s, row 7 (1 - 0.5) / (0.5 / 64) = 64 s. Cap
    // max(floor(0.1 * 8), 1) = 1: row 6 only.
    let mut detector = zaharia(ZahariaLateParams::default());
    let findings = scan(&mut detector, &snapshot(64.0, 1, 4, &eight_rows()));
    assert_eq!(findings.rows(), &[6]);
    // Node scores: stage mean (6 * 0.75 + 0.25 + 0.5) / 8 = 0.65625 (units); nodes 0..2
    // 0.75 / 0.65625 = 1.143, node 3 (0.25 + 0.5) / 2 / 0.65625 = 0.571. 25th percentile
    // of (0.571, 1.143, 1.143, 1.143): h = 0.75, 0.571 + 0.75 * 0.571 = 1.0: node 3.
    assert_eq!(findings.slow_nodes(), &[NodeId(3)]);
    // Cap 0.25: floor(0.25 * 8) = 2 copies: rows 6 and 7, reported in row order.
    check(&mut zaharia_cap(0.25), 64.0, &eight_rows(), &[6, 7]);
    // Cap 1: still only the two slow rows.
    check(&mut zaharia_cap(1.0), 64.0, &eight_rows(), &[6, 7]);
}

#[test]
fn zaharia_judges_an_attempt_however_young() {
    // The eight rows of `zaharia_flags_the_longest_time_left_below_the_percentile` 2 s
    // after their start: rates in units of 1/2 s, sorted 0.25, 0.5, 0.75 x 6, the same
    // 25th percentile 0.6875 units; time left row 6 (1 - 0.25) / (0.25 / 2) = 6 s, row 7
    // (1 - 0.5) / (0.5 / 2) = 2 s; cap 1: row 6, though it has run 2 s, not Hadoop's
    // minute. An attempt started at the scan's instant has no rate and is not judged.
    check(
        &mut zaharia(ZahariaLateParams::default()),
        2.0,
        &eight_rows(),
        &[6],
    );
    let mut rows = eight_rows();
    rows[6].4 = 2.0;
    // Row 6 has no rate now: the others sorted 0.5, 0.75 x 6, h = 6 x 0.25 = 1.5,
    // threshold x[1] + 0.5 (x[2] - x[1]) = 0.75: row 7 (0.5) is the one slow attempt.
    check(&mut zaharia(ZahariaLateParams::default()), 2.0, &rows, &[7]);
}

#[test]
fn zaharia_counts_running_copies_against_the_cap() {
    // Row 8: a copy of task 0 on node 1, started at 32 at progress 0.5: rate 0.5 / 32 =
    // 1.0 unit. Sorted units 0.25, 0.5, 0.75 x 6, 1.0: h = 8 * 0.25 = 2, threshold 0.75:
    // rows 6 and 7 still slow (row 0 has a copy, and 0.75 is not < 0.75).
    let mut rows = eight_rows();
    rows.push((0, 0, 1, S, 32.0, 0.5, 64.0 * MB));
    // Default cap: max(floor(0.1 * 9), 1) = 1, one copy running: no room.
    check(&mut zaharia(ZahariaLateParams::default()), 64.0, &rows, &[]);
    // Cap 0.25: floor(2.25) = 2, one running: room for one, row 6 (192 s left).
    check(&mut zaharia_cap(0.25), 64.0, &rows, &[6]);
    // Cap 0.5: floor(4.5) = 4, room 3; candidates rows 6 and 7 only.
    check(&mut zaharia_cap(0.5), 64.0, &rows, &[6, 7]);
    // A task with a running copy is never a candidate: copy task 6 instead of task 0.
    rows[8].0 = 6;
    check(&mut zaharia_cap(0.5), 64.0, &rows, &[7]);
}

#[test]
fn zaharia_cap_is_the_fraction_of_the_attempts_not_its_rounded_product() {
    // 90 originals at now = 64: row 0 at progress 0.75, rows 1..=89 at 0.25. At the 100th
    // percentile the threshold is the fastest rate, 0.75 / 64: rows 1..=89 are slow, all
    // with 192 s left (ties by row). Cap 0.7 of 90 attempts is 63 copies (63 / 90 rounds
    // to 0.7), rows 1..=63; binary64's 0.7 x 90 = 62.99999999999999 floors to 62.
    let rows: Vec<Row> = (0..90u32)
        .map(|i| {
            let progress = if i == 0 { 0.75 } else { 0.25 };
            (i, 0, i % 4, O, 0.0, progress, 64.0 * MB)
        })
        .collect();
    let params = ZahariaLateParams {
        slow_task_percentile: 100.0,
        speculative_cap: 0.7,
        ..ZahariaLateParams::default()
    };
    let expected: Vec<u32> = (1..=63).collect();
    check(&mut zaharia(params), 64.0, &rows, &expected);
    // 0.1 of 90 is 9 (0.1 x 90 = 9 exactly in binary64): rows 1..=9.
    let tenth = ZahariaLateParams {
        speculative_cap: 0.1,
        ..params
    };
    let expected: Vec<u32> = (1..=9).collect();
    check(&mut zaharia(tenth), 64.0, &rows, &expected);
}

#[test]
fn zaharia_ranks_across_stages_and_thresholds_per_stage() {
    // Stage 1: four originals at 0.5, 0.5, 0.5, 0.125 on nodes 4..7 (rows 8..11). Units
    // sorted 0.125, 0.5, 0.5, 0.5: h = 0.75, 0.125 + 0.75 * 0.375 = 0.40625: row 11 slow,
    // time left (1 - 0.125) / (0.125 / 64) = 448 s > row 6's 192 s. Cap
    // max(floor(0.1 * 12), 1) = 1: row 11.
    let mut rows = eight_rows();
    for (i, p) in [0.5, 0.5, 0.5, 0.125].into_iter().enumerate() {
        rows.push((100 + i as u32, 1, 4 + i as u32, O, 0.0, p, 64.0 * MB));
    }
    check(
        &mut zaharia(ZahariaLateParams::default()),
        64.0,
        &rows,
        &[11],
    );
    // Cap 0.25: floor(3) = 3: rows 6, 7 and 11.
    check(&mut zaharia_cap(0.25), 64.0, &rows, &[6, 7, 11]);
    // Stage 1 identical at 0.25 (slower than all of stage 0 but like its peers): only
    // stage 0's rows.
    for row in &mut rows[8..] {
        row.5 = 0.25;
    }
    check(&mut zaharia_cap(0.5), 64.0, &rows, &[6, 7]);
}

#[test]
fn zaharia_zero_rate_first_and_started_now_left_out() {
    // Row 6 at progress 0: rate 0, time left infinite, ranked first. Rates sorted 0, 0.125,
    // 0.75 x 6: threshold 0.59375.
    let mut rows = eight_rows();
    rows[6].5 = 0.0;
    rows[7].5 = 0.125; // time left (0.875) / (0.125 / 64) = 448 s, finite
    // Row 8 started now: no rate, out of the statistics, never flagged; cap
    // max(floor(0.9), 1) = 1.
    rows.push((8, 0, 0, O, 64.0, 0.0, 64.0 * MB));
    check(
        &mut zaharia(ZahariaLateParams::default()),
        64.0,
        &rows,
        &[6],
    );
    check(&mut zaharia_cap(1.0), 64.0, &rows, &[6, 7]);
}

#[test]
fn zaharia_percentile_extremes() {
    // Percentile 0: the threshold is the slowest rate, and nothing is strictly below it.
    let lowest = ZahariaLateParams {
        slow_task_percentile: 0.0,
        speculative_cap: 1.0,
        ..ZahariaLateParams::default()
    };
    check(&mut zaharia(lowest), 64.0, &eight_rows(), &[]);
    // Percentile 100: the threshold is the fastest rate (0.75 units): rows 6 and 7.
    let highest = ZahariaLateParams {
        slow_task_percentile: 100.0,
        ..lowest
    };
    check(&mut zaharia(highest), 64.0, &eight_rows(), &[6, 7]);
    // Slow-node percentile 0: no node is below the lowest score.
    let mut no_slow_nodes = zaharia(ZahariaLateParams {
        slow_node_percentile: 0.0,
        ..ZahariaLateParams::default()
    });
    let findings = scan(&mut no_slow_nodes, &snapshot(64.0, 1, 4, &eight_rows()));
    assert_eq!(findings.slow_nodes(), &[] as &[NodeId]);
}

#[test]
fn zaharia_degenerate_snapshots() {
    let mut detector = zaharia(ZahariaLateParams::default());
    // Empty, one task, identical tasks, zero progress everywhere, all started now.
    check(&mut detector, 64.0, &[], &[]);
    check(&mut detector, 64.0, &[(0, 0, 0, O, 0.0, 0.1, MB)], &[]);
    let identical: Vec<Row> = (0..10).map(|i| (i, 0, i % 3, O, 3.0, 0.1, MB)).collect();
    let findings = scan(&mut detector, &snapshot(64.0, 1, 3, &identical));
    assert_eq!(findings, Findings::default());
    let zero: Vec<Row> = (0..10)
        .map(|i| (i, 0, i % 3, O, f64::from(i), 0.0, MB))
        .collect();
    let findings = scan(&mut detector, &snapshot(64.0, 1, 3, &zero));
    assert_eq!(findings, Findings::default());
    let now: Vec<Row> = (0..10)
        .map(|i| (i, 0, i % 3, O, 64.0, f64::from(i) / 10.0, MB))
        .collect();
    check(&mut detector, 64.0, &now, &[]);
    // A cap of 1% of eight attempts (floor 0.08 = 0) still allows one copy; only copies:
    // nothing to flag.
    check(&mut zaharia_cap(0.01), 64.0, &eight_rows(), &[6]);
    let copies: Vec<Row> = eight_rows()
        .into_iter()
        .map(|r| (r.0, r.1, r.2, S, r.4, r.5, r.6))
        .collect();
    check(&mut zaharia_cap(1.0), 64.0, &copies, &[]);
}

#[test]
fn zaharia_name_defaults_and_invalid_parameters() {
    let detector = zaharia(ZahariaLateParams::default());
    assert_eq!(detector.name(), "late-zaharia");
    assert_eq!(
        *detector.params(),
        ZahariaLateParams {
            slow_task_percentile: 25.0,
            speculative_cap: 0.1,
            slow_node_percentile: 25.0,
        }
    );
    let base = ZahariaLateParams::default();
    let cases = [
        (
            "slow_task_percentile",
            ZahariaLateParams {
                slow_task_percentile: 101.0,
                ..base
            },
        ),
        (
            "slow_task_percentile",
            ZahariaLateParams {
                slow_task_percentile: f64::NAN,
                ..base
            },
        ),
        (
            "speculative_cap",
            ZahariaLateParams {
                speculative_cap: -0.1,
                ..base
            },
        ),
        // Zero would still allow one copy (the cap is at least one): refused.
        (
            "speculative_cap",
            ZahariaLateParams {
                speculative_cap: 0.0,
                ..base
            },
        ),
        (
            "slow_node_percentile",
            ZahariaLateParams {
                slow_node_percentile: f64::INFINITY,
                ..base
            },
        ),
    ];
    for (name, params) in cases {
        match params.check() {
            Err(DetectError::InvalidParam { param, .. }) => assert_eq!(param, name),
            other => panic!("{name}: expected an invalid parameter, got {other:?}"),
        }
    }
}

#[test]
fn zaharia_passes_the_conformance_kit() {
    // Sequential whatever the parallelism: the constructor ignores it.
    for params in [
        ZahariaLateParams::default(),
        ZahariaLateParams {
            slow_task_percentile: 100.0,
            speculative_cap: 1.0,
            slow_node_percentile: 100.0,
        },
    ] {
        Conformance::new(|_parallelism| zaharia(params))
            .peer_relative()
            .run()
            .expect("late-zaharia conformance");
    }
}

#[test]
fn spark_counts_tasks_waiting_for_a_container() {
    // Nine successes, task 9 running at 31 s (slow and inefficient, flagged above when the
    // stage has ten tasks). With ten more tasks of the stage waiting for a container,
    // numTasks = 10 + 10 = 20 and the gate is floor(0.9 * 20) = 18 successes: not reached.
    let mut detector = spark_after(SparkParams::spark4(), 9);
    let mut waiting = snapshot(31.0, 1, 8, &[(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)]);
    waiting.set_pending(StageId(0), 10).unwrap();
    assert_eq!(scan(&mut detector, &waiting).rows(), &[] as &[u32]);
    // Once none waits, the same attempt is flagged.
    check(
        &mut detector,
        31.0,
        &[(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)],
        &[0],
    );
}

#[test]
fn spark_counts_a_task_waiting_to_run_again_once() {
    // Nine successes of 10 s (tasks 0..8), task 9 running at 31 s, and task 10 whose
    // attempt failed: it waits to run again, and the snapshot counts it as pending. Tasks
    // seen 0..10 = 11, plus 1 pending, less the 1 of them waiting again: numTasks 11, gate
    // max(floor(0.9 * 11), 1) = 9 successes, reached; threshold 30 s, task 9 slow and
    // inefficient (0.5 * 64e6 / 31 = 1.03e6 < 4.8e6). Counted twice, numTasks 12 and the
    // gate floor(10.8) = 10 would not be reached.
    let mut detector = spark_after(SparkParams::spark4(), 9);
    detector.observe(&ended(10, 0, AttemptStatus::Failed, 0.0, 5.0, 64_000_000));
    let row = [(9, 0, 0, O, 0.0, 0.5, 64.0 * MB)];
    let mut waiting = snapshot(31.0, 1, 8, &row);
    waiting.set_pending(StageId(0), 1).unwrap();
    assert_eq!(scan(&mut detector, &waiting).rows(), &[0]);
    // One more task never launched waits too: numTasks 12, gate 10: nothing.
    waiting.set_pending(StageId(0), 2).unwrap();
    assert_eq!(scan(&mut detector, &waiting).rows(), &[] as &[u32]);
    // Task 10 runs again (a row), one task pending: it is no longer waiting again, so
    // numTasks = 11 + 1 = 12 and the gate 10 is not reached.
    let rows = [row[0], (10, 0, 1, O, 30.0, 0.1, 64.0 * MB)];
    let mut again = snapshot(31.0, 1, 8, &rows);
    again.set_pending(StageId(0), 1).unwrap();
    assert_eq!(scan(&mut detector, &again).rows(), &[] as &[u32]);
    // No pending count (an engine counting only tasks never launched): the subtraction
    // stops at 0, numTasks 11 = the tasks seen.
    let mut alone = spark_after(SparkParams::spark4(), 9);
    alone.observe(&ended(10, 0, AttemptStatus::Failed, 0.0, 5.0, 64_000_000));
    check(&mut alone, 31.0, &row, &[0]);
}
