//! Integration tests of the metrics crate, each metric against a case worked by hand.

use approx::{assert_abs_diff_eq, assert_relative_eq};
use proptest::prelude::*;
use straggler_metrics::{
    DetectionMetrics, EfficiencyMetrics, MetricsError, Summary, TaskRecord, detection_metrics,
    efficiency_metrics, is_fake, summarize, task_records_of_run,
};
use straggler_model::{
    Attempt, AttemptId, AttemptRole, AttemptStatus, Detection, JobId, ModelError, NodeId, Run,
    StageId, Task, TaskId, TaskKey, TaskKind,
};

// ---------------------------------------------------------------------------------------
// Detection metrics
// ---------------------------------------------------------------------------------------

/// A run as a scheduler records it, four maps of usual time 10 s (factor 1.2):
///
/// ```text
/// task 0: [0, 10) succeeded, detected at 4            exec 10: not a straggler, FP
/// task 1: [0, 15) killed at progress 0.5, its copy
///         [5, 15) won; detected at 5                  exec 15 / 0.5 = 30: TP, latency 0.5,
///                                                     remaining 25 >= 10: not fake
/// task 2: [0, 3) failed, re-run [4, 24); detected
///         (the re-run) at 20                          exec 20: TP, latency 16 / 10 = 1.6,
///                                                     remaining 4 < 10: fake
/// task 3: [0, 11) succeeded                           exec 11: TN
/// ```
///
/// `precision_raw = 2/3`, `fake_positive = 1/3`, `precision = 1/3`, `recall = 1`,
/// `detection_latency = (0.5 + 1.6) / 2 = 1.05`, no false negative.
fn scheduler_run() -> Run {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Failed, Killed, Succeeded};
    let attempts = [
        (0, Original, 0.0, 10.0, Succeeded, 1.0),
        (1, Original, 0.0, 15.0, Killed, 0.5),
        (2, Original, 0.0, 3.0, Failed, 0.2),
        (3, Original, 0.0, 11.0, Succeeded, 1.0),
        (2, Original, 4.0, 24.0, Succeeded, 1.0),
        (1, Speculative, 5.0, 15.0, Succeeded, 1.0),
    ];
    let detection = |task, attempt, time_secs| Detection {
        task: TaskId(task),
        attempt: AttemptId(attempt),
        time_secs,
    };
    Run {
        tasks: (0..4).map(map_task).collect(),
        attempts: attempts
            .iter()
            .enumerate()
            .map(|(i, &(task, role, start, end, status, progress))| {
                Attempt::started(AttemptId(i as u32), TaskId(task), NodeId(0), role, start)
                    .ended(end, status, progress)
            })
            .collect(),
        detections: vec![
            detection(0, 0, 4.0),
            detection(1, 1, 5.0),
            detection(2, 4, 20.0),
        ],
        end_secs: 24.0,
        ..Run::default()
    }
}

fn map_task(index: u32) -> Task {
    Task {
        id: TaskId(index),
        key: TaskKey {
            job: JobId(0),
            kind: TaskKind::Map,
            index,
        },
        stage: StageId(0),
        input_bytes: 64,
    }
}

#[test]
fn records_of_a_scheduler_run_by_hand() {
    let run = scheduler_run();
    let rule = |exec: f64, usual: f64| exec > 1.2 * usual;
    let records = task_records_of_run(&run, &[10.0; 4], rule).unwrap();
    assert_eq!(
        records,
        [
            record(0.0, 10.0, 10.0, false, Some(4.0)),
            record(0.0, 30.0, 10.0, true, Some(5.0)),
            record(4.0, 20.0, 10.0, true, Some(20.0)),
            record(0.0, 11.0, 10.0, false, None),
        ]
    );
    let m = detection_metrics(&records).unwrap();
    assert_eq!(
        (
            m.true_positives,
            m.false_positives,
            m.false_negatives,
            m.fake_positives
        ),
        (2, 1, 0, 1)
    );
    assert_relative_eq!(m.precision_raw.unwrap(), 2.0 / 3.0);
    assert_relative_eq!(m.precision.unwrap(), 1.0 / 3.0);
    assert_relative_eq!(m.fake_positive.unwrap(), 1.0 / 3.0);
    assert_eq!(m.recall, Some(1.0));
    assert_relative_eq!(m.detection_latency.unwrap(), 1.05, max_relative = 1e-15);
    assert_eq!(m.undetected_time, None);

    // A detection of task 2's failed original at 2, before its re-run started at 4, is
    // its first detection and counts at 4: latency 0, remaining 20 >= 10, not fake. Built
    // by hand without moving it, the record was refused (detected before its start).
    let mut early = run.clone();
    early.detections.insert(
        0,
        Detection {
            task: TaskId(2),
            attempt: AttemptId(2),
            time_secs: 2.0,
        },
    );
    let records = task_records_of_run(&early, &[10.0; 4], rule).unwrap();
    assert_eq!(records[2].first_detection_secs, Some(4.0));
    let m = detection_metrics(&records).unwrap();
    assert_eq!(m.fake_positives, 0);
    assert_relative_eq!(m.detection_latency.unwrap(), 0.25);
    let unmoved = TaskRecord {
        first_detection_secs: Some(2.0),
        ..records[2]
    };
    assert!(matches!(
        detection_metrics(&[unmoved]),
        Err(MetricsError::BadRecord {
            index: 0,
            field: "first_detection_secs",
            ..
        })
    ));
}

#[test]
fn a_task_detected_twice_counts_once_at_its_earliest_detection() {
    // Task 1 detected again at 12 and task 0 again at 8, both listed before their first
    // detections (5 and 4): each task counts once (TP 2, FP 1), at its earliest
    // detection, so the latencies stay (5 - 0) / 10 and (20 - 4) / 10: DL 1.05, and task
    // 1's remaining time is 30 - 5 = 25, not fake (30 - 12 = 18 would not be either, but
    // its latency would be 1.2 and DL 1.4).
    let mut twice = scheduler_run();
    let again = |task, attempt, time_secs| Detection {
        task: TaskId(task),
        attempt: AttemptId(attempt),
        time_secs,
    };
    twice.detections.insert(0, again(1, 1, 12.0));
    twice.detections.insert(0, again(0, 0, 8.0));
    let rule = |exec: f64, usual: f64| exec > 1.2 * usual;
    let records = task_records_of_run(&twice, &[10.0; 4], rule).unwrap();
    assert_eq!(records[0].first_detection_secs, Some(4.0));
    assert_eq!(records[1].first_detection_secs, Some(5.0));
    let m = detection_metrics(&records).unwrap();
    assert_eq!(
        (m.true_positives, m.false_positives, m.fake_positives),
        (2, 1, 1)
    );
    assert_relative_eq!(m.detection_latency.unwrap(), 1.05, max_relative = 1e-15);
}

#[test]
fn records_of_a_run_refuse_what_cannot_be_labelled() {
    let run = scheduler_run();
    let rule = |exec: f64, usual: f64| exec > 1.2 * usual;
    let err = task_records_of_run(&run, &[10.0; 3], rule).unwrap_err();
    assert_eq!(
        err.to_string(),
        "usual_secs has 3 elements, expected 4 (one per task of the run)"
    );
    let mut running = run.clone();
    running.attempts[3] = Attempt::started(
        AttemptId(3),
        TaskId(3),
        NodeId(0),
        AttemptRole::Original,
        0.0,
    );
    assert_eq!(
        task_records_of_run(&running, &[10.0; 4], rule),
        Err(MetricsError::OriginalNotEnded { task: TaskId(3) })
    );
    let mut swapped = run.clone();
    swapped.tasks.swap(0, 1);
    let err = task_records_of_run(&swapped, &[10.0; 4], rule).unwrap_err();
    assert!(matches!(
        err,
        MetricsError::Run(ModelError::IdNotIndex { list: "tasks", .. })
    ));
    assert_eq!(
        err.to_string(),
        "run: tasks[0].id = 1, but a run's tasks[i].id must be i (its index in the list)"
    );
}

fn record(start: f64, exec: f64, usual: f64, straggler: bool, detected: Option<f64>) -> TaskRecord {
    TaskRecord {
        start_secs: start,
        exec_secs: exec,
        usual_secs: usual,
        straggler,
        first_detection_secs: detected,
    }
}

fn assert_option_eq(got: Option<f64>, want: Option<f64>, what: &str) {
    match (got, want) {
        (Some(g), Some(w)) => assert_relative_eq!(g, w, max_relative = 1e-12),
        (g, w) => assert_eq!(g, w, "{what}"),
    }
}

/// Checks every ratio of `metrics`: [precision, precision_raw, recall, DL, UT, fake].
fn check_ratios(metrics: &DetectionMetrics, expected: [Option<f64>; 6]) {
    let got = [
        metrics.precision,
        metrics.precision_raw,
        metrics.recall,
        metrics.detection_latency,
        metrics.undetected_time,
        metrics.fake_positive,
    ];
    let names = [
        "precision",
        "precision_raw",
        "recall",
        "detection_latency",
        "undetected_time",
        "fake_positive",
    ];
    for ((g, w), name) in got.into_iter().zip(expected).zip(names) {
        assert_option_eq(g, w, name);
    }
}

#[test]
fn detection_metrics_by_hand() {
    let records = [
        // TP: detected 5 s after start, usual 10: latency 0.5; remaining 0 + 30 - 5 = 25 >= 10.
        record(0.0, 30.0, 10.0, true, Some(5.0)),
        // TP, fake: latency (25 - 10) / 10 = 1.5; remaining 10 + 20 - 25 = 5 < 10.
        record(10.0, 20.0, 10.0, true, Some(25.0)),
        // FN: exec / usual = 25 / 10 = 2.5.
        record(0.0, 25.0, 10.0, true, None),
        // FP.
        record(0.0, 10.0, 10.0, false, Some(4.0)),
        // TN.
        record(0.0, 10.0, 10.0, false, None),
    ];
    let metrics = detection_metrics(&records).expect("valid records");
    assert_eq!(
        (
            metrics.tasks,
            metrics.true_positives,
            metrics.false_positives
        ),
        (5, 2, 1)
    );
    assert_eq!((metrics.false_negatives, metrics.fake_positives), (1, 1));
    // precision = (2 - 1) / 3, raw = 2 / 3, recall = 2 / 3, DL = (0.5 + 1.5) / 2 = 1,
    // UT = 2.5, fake = 1 / 3.
    check_ratios(
        &metrics,
        [
            Some(1.0 / 3.0),
            Some(2.0 / 3.0),
            Some(2.0 / 3.0),
            Some(1.0),
            Some(2.5),
            Some(1.0 / 3.0),
        ],
    );
}

#[test]
fn latency_and_undetected_time_are_means_of_each_tasks_ratio() {
    // Eqs. 3-4 divide each task's time by its own usual time, then average over the tasks:
    // DL = (5 / 10 + 15 / 20) / 2 = 0.625, not (5 + 15) / (10 + 20) = 0.667 pooled;
    // UT = (25 / 10 + 60 / 40) / 2 = 2, not (25 + 60) / (10 + 40) = 1.7 pooled.
    let records = [
        record(0.0, 30.0, 10.0, true, Some(5.0)),
        record(0.0, 60.0, 20.0, true, Some(15.0)),
        record(0.0, 25.0, 10.0, true, None),
        record(0.0, 60.0, 40.0, true, None),
    ];
    let metrics = detection_metrics(&records).expect("valid records");
    assert_option_eq(metrics.detection_latency, Some(0.625), "detection_latency");
    assert_option_eq(metrics.undetected_time, Some(2.0), "undetected_time");
}

#[test]
fn fakes_lower_precision_as_in_section_6_2() {
    // 100 detections: 50 stragglers (14 detected too late) and 50 non-stragglers.
    // precision_raw = 50 / 100 = 0.5, fake = 14 / 100 = 0.14, precision = 36 / 100 = 0.36.
    let mut records = Vec::new();
    for i in 0..50 {
        // Detected at 95 s of a 100 s task of usual time 50: remaining 5 < 50 for the
        // first 14; detected at 10 s (remaining 90) for the others.
        let detected = if i < 14 { 95.0 } else { 10.0 };
        records.push(record(0.0, 100.0, 50.0, true, Some(detected)));
        records.push(record(0.0, 50.0, 50.0, false, Some(10.0)));
    }
    let metrics = detection_metrics(&records).expect("valid");
    assert_relative_eq!(metrics.precision_raw.expect("defined"), 0.5);
    assert_relative_eq!(metrics.fake_positive.expect("defined"), 0.14);
    assert_relative_eq!(
        metrics.precision.expect("defined"),
        0.36,
        max_relative = 1e-12
    );
    // Fakes stay true positives for recall: 50 / 50.
    assert_eq!(metrics.recall, Some(1.0));
}

#[test]
fn remaining_time_equal_to_usual_is_not_fake() {
    // Start 0, exec 30, detected at 20: remaining 10 = usual, not fake (strictly smaller).
    let metrics = detection_metrics(&[record(0.0, 30.0, 10.0, true, Some(20.0))]).expect("valid");
    assert_eq!(metrics.fake_positives, 0);
    // The same where the difference rounds: start 0.3, exec 0.6, detected at 0.6, usual
    // 0.3 (0.3 + 0.6 - 0.6 = 0.29999999999999993 in binary64); a hair earlier end is fake.
    let rounded = detection_metrics(&[record(0.3, 0.6, 0.3, true, Some(0.6))]).expect("valid");
    assert_eq!(rounded.fake_positives, 0);
    let earlier = detection_metrics(&[record(0.3, 0.599, 0.3, true, Some(0.6))]).expect("valid");
    assert_eq!(earlier.fake_positives, 1);
    // One task: DL = 20 / 10 = 2, precision = recall = 1, no FN so UT undefined.
    check_ratios(
        &metrics,
        [Some(1.0), Some(1.0), Some(1.0), Some(2.0), None, Some(0.0)],
    );
}

#[test]
fn detections_at_the_start_and_after_the_end_are_taken_as_they_are() {
    let metrics = detection_metrics(&[
        // Straggler 0-30 (usual 10) detected at 40, after its end: TP, latency 40 / 10 = 4
        // (above exec / usual = 3, not clamped to the end), remaining -10 < 10: fake.
        record(0.0, 30.0, 10.0, true, Some(40.0)),
        // Straggler 10-40 detected at its start: latency 0, remaining 30: not fake.
        record(10.0, 30.0, 10.0, true, Some(10.0)),
        // Non-straggler 0-10 detected at 12, after its end: a false positive, not a fake
        // (fakes are true positives).
        record(0.0, 10.0, 10.0, false, Some(12.0)),
    ])
    .expect("valid records");
    assert_eq!(
        (
            metrics.true_positives,
            metrics.false_positives,
            metrics.fake_positives
        ),
        (2, 1, 1)
    );
    // precision (2 - 1) / 3, raw 2 / 3, recall 1, DL (4 + 0) / 2 = 2, no FN, fake 1 / 3.
    check_ratios(
        &metrics,
        [
            Some(1.0 / 3.0),
            Some(2.0 / 3.0),
            Some(1.0),
            Some(2.0),
            None,
            Some(1.0 / 3.0),
        ],
    );
}

#[test]
fn fake_test_of_times_whose_sums_overflow() {
    let max = f64::MAX;
    // End 0.6 MAX + 0.5 MAX = 1.1 MAX, detected at 0.6 MAX: remaining 0.5 MAX < usual
    // 0.9 MAX, fake, though both sums (1.1 MAX and 1.5 MAX) overflow to infinity.
    let fake = record(0.6 * max, 0.5 * max, 0.9 * max, true, Some(0.6 * max));
    assert!(is_fake(&fake, 0.6 * max));
    // Remaining 0.5 MAX >= usual 0.4 MAX: not fake (sums 1.1 MAX and 1.0 MAX).
    let honest = record(0.6 * max, 0.5 * max, 0.4 * max, true, Some(0.6 * max));
    assert!(!is_fake(&honest, 0.6 * max));
    // Only the end overflows: remaining above MAX - det, not fake.
    let long = record(max, max, 1.0, true, Some(max));
    assert!(!is_fake(&long, max));
    let metrics = detection_metrics(&[fake, honest]).expect("finite latencies");
    assert_eq!((metrics.true_positives, metrics.fake_positives), (2, 1));
}

#[test]
fn detection_metrics_of_degenerate_inputs() {
    // No task: everything undefined.
    let empty = detection_metrics(&[]).expect("valid");
    assert_eq!(empty.tasks, 0);
    check_ratios(&empty, [None; 6]);
    // All tasks identical, no straggler, no detection: everything undefined.
    let calm = detection_metrics(&[record(0.0, 10.0, 10.0, false, None); 4]).expect("valid");
    check_ratios(&calm, [None; 6]);
    // One straggler, never detected: recall 0, UT = 30 / 10 = 3, precision undefined.
    let missed = detection_metrics(&[record(0.0, 30.0, 10.0, true, None)]).expect("valid");
    check_ratios(&missed, [None, None, Some(0.0), None, Some(3.0), None]);
    // Only false positives: precision 0, recall undefined.
    let noisy = detection_metrics(&[record(0.0, 10.0, 10.0, false, Some(3.0)); 3]).expect("valid");
    check_ratios(&noisy, [Some(0.0), Some(0.0), None, None, None, Some(0.0)]);
}

#[test]
fn detection_metrics_reject_bad_records() {
    let good = record(0.0, 10.0, 10.0, false, None);
    let cases = [
        (record(f64::NAN, 10.0, 10.0, false, None), "start_secs"),
        (record(0.0, -1.0, 10.0, false, None), "exec_secs"),
        (record(0.0, 10.0, 0.0, false, None), "usual_secs"),
        (
            record(5.0, 10.0, 10.0, true, Some(4.0)),
            "first_detection_secs",
        ),
        (
            record(0.0, 10.0, 10.0, true, Some(f64::INFINITY)),
            "first_detection_secs",
        ),
    ];
    for (bad, field) in cases {
        match detection_metrics(&[good, bad]) {
            Err(MetricsError::BadRecord {
                index: 1,
                field: got,
                ..
            }) => assert_eq!(got, field),
            other => panic!("expected records[1].{field} to be rejected, got {other:?}"),
        }
    }
    let message = detection_metrics(&[record(0.0, 10.0, 0.0, false, None)])
        .expect_err("usual 0")
        .to_string();
    assert_eq!(
        message,
        "records[0].usual_secs must be finite and > 0, got 0"
    );
}

#[test]
fn detection_terms_that_overflow_are_rejected() {
    // Usual time 5e-324 (the smallest subnormal): a latency of 1 s / 5e-324 and an
    // undetected time of 10 s / 5e-324 are above f64::MAX. Both name records[1].usual_secs.
    let good = record(0.0, 10.0, 10.0, true, Some(1.0));
    for tiny in [
        record(0.0, 10.0, 5e-324, true, Some(1.0)),
        record(0.0, 10.0, 5e-324, true, None),
    ] {
        match detection_metrics(&[good, tiny]) {
            Err(MetricsError::BadRecord {
                index: 1,
                field: "usual_secs",
                value,
                ..
            }) => assert_eq!(value, 5e-324),
            other => panic!("expected records[1].usual_secs to be rejected, got {other:?}"),
        }
    }
    // The message (1e300 / 1e-10 overflows too; Display writes 5e-324 with 323 zeros).
    let message = detection_metrics(&[record(0.0, 1e300, 1e-10, true, None)])
        .expect_err("1e300 / 1e-10 overflows")
        .to_string();
    assert_eq!(
        message,
        "records[0].usual_secs must be large enough that exec_secs / usual_secs is finite, \
         got 0.0000000001"
    );
    // A usual time that small is fine for a record whose term is not computed (a true
    // negative) and for one whose term is finite (0 s / 5e-324 = 0).
    let quiet = detection_metrics(&[
        record(0.0, 10.0, 5e-324, false, None),
        record(0.0, 10.0, 5e-324, true, Some(0.0)),
    ])
    .expect("finite terms");
    assert_eq!(quiet.detection_latency, Some(0.0));
}

#[test]
fn detection_means_of_huge_terms_do_not_overflow() {
    let max = f64::MAX;
    // Two true positives detected at f64::MAX with usual 1: latencies MAX and MAX, whose
    // sum overflows; their mean is MAX.
    let late = detection_metrics(&[record(0.0, max, 1.0, true, Some(max)); 2]).expect("valid");
    assert_eq!(late.detection_latency, Some(max));
    // Two false negatives of exec MAX and MAX / 2, usual 1: mean 0.75 MAX.
    let missed = detection_metrics(&[
        record(0.0, max, 1.0, true, None),
        record(0.0, max / 2.0, 1.0, true, None),
    ])
    .expect("valid");
    assert_eq!(missed.undetected_time, Some(0.75 * max));
}

#[test]
fn detection_metrics_serialise_undefined_as_null() {
    let json = serde_json::to_value(detection_metrics(&[]).expect("valid")).expect("serialisable");
    assert_eq!(json["precision"], serde_json::Value::Null);
    assert_eq!(json["fake_positive"], serde_json::Value::Null);
    assert_eq!(json["tasks"], 0);
}

// ---------------------------------------------------------------------------------------
// Efficiency metrics (Table 2)
// ---------------------------------------------------------------------------------------

fn attempt(
    id: u32,
    task: u32,
    role: AttemptRole,
    start: f64,
    end: Option<f64>,
    status: AttemptStatus,
) -> Attempt {
    let progress = if status == AttemptStatus::Succeeded {
        1.0
    } else {
        0.5
    };
    let started = Attempt::started(AttemptId(id), TaskId(task), NodeId(0), role, start);
    match end {
        Some(end) => started.ended(end, status, progress),
        None => started,
    }
}

fn run(tasks: u32, attempts: Vec<Attempt>, end_secs: f64) -> Run {
    let task = |i: u32| Task {
        id: TaskId(i),
        key: TaskKey {
            job: JobId(0),
            kind: TaskKind::Map,
            index: i,
        },
        stage: StageId(0),
        input_bytes: 1,
    };
    Run {
        tasks: (0..tasks).map(task).collect(),
        attempts,
        end_secs,
        ..Run::default()
    }
}

#[test]
fn efficiency_metrics_by_hand() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Failed, Killed, Running, Succeeded};
    let run = run(
        5,
        vec![
            // Task 0: original 0-10 succeeds; a copy 5-8 fails.       task time 10
            attempt(0, 0, Original, 0.0, Some(10.0), Succeeded),
            attempt(1, 0, Speculative, 5.0, Some(8.0), Failed),
            // Task 1: original 0-30 killed, its copy 12-30 wins.      task time 30
            attempt(2, 1, Original, 0.0, Some(30.0), Killed),
            attempt(3, 1, Speculative, 12.0, Some(30.0), Succeeded),
            // Task 2: original 5-25 wins, its copy 15-25 is killed.   task time 20
            attempt(4, 2, Original, 5.0, Some(25.0), Succeeded),
            attempt(5, 2, Speculative, 15.0, Some(25.0), Killed),
            // Task 3: original 0-4 fails, re-run 4-14 succeeds.       task time 14 - 0 = 14
            attempt(6, 3, Original, 0.0, Some(4.0), Failed),
            attempt(7, 3, Original, 4.0, Some(14.0), Succeeded),
            // Task 4: still running at the end (30), started at 20: incomplete.
            attempt(8, 4, Original, 20.0, None, Running),
        ],
        30.0,
    );
    // container = 10 + 3 + 30 + 18 + 20 + 10 + 4 + 10 + 10 = 115;
    // wasted = 3 (failed copy) + 10 (killed copy) = 13;
    // heavy tail = 30 / ((10 + 30 + 20 + 14) / 4) = 30 / 18.5.
    let metrics = efficiency_metrics(&run).expect("valid run");
    assert_eq!(
        metrics,
        EfficiencyMetrics {
            execution_time_secs: 30.0,
            heavy_tail_ratio: Some(30.0 / 18.5),
            container_secs: 115.0,
            wasted_container_secs: 13.0,
            speculative_copies: 3,
            successful_copies: 1,
            unsuccessful_copies: 2,
            incomplete_tasks: 1,
        }
    );
}

#[test]
fn efficiency_metrics_of_degenerate_runs() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::Succeeded;
    // Empty run: nothing, heavy-tail undefined.
    let empty = efficiency_metrics(&Run::default()).expect("valid");
    assert_eq!(empty.heavy_tail_ratio, None);
    assert_eq!(
        (
            empty.container_secs,
            empty.speculative_copies,
            empty.incomplete_tasks
        ),
        (0.0, 0, 0)
    );
    // One task of 8 s: ratio 8 / 8 = 1, no copies, nothing wasted.
    let one = efficiency_metrics(&run(
        1,
        vec![attempt(0, 0, Original, 2.0, Some(10.0), Succeeded)],
        10.0,
    ))
    .expect("valid");
    assert_eq!(one.heavy_tail_ratio, Some(1.0));
    assert_eq!((one.container_secs, one.wasted_container_secs), (8.0, 0.0));
    // Three identical tasks: ratio 1.
    let same = run(
        3,
        (0..3)
            .map(|i| attempt(i, i, Original, 0.0, Some(5.0), Succeeded))
            .collect(),
        5.0,
    );
    let same = efficiency_metrics(&same).expect("valid");
    assert_abs_diff_eq!(
        same.heavy_tail_ratio.expect("defined"),
        1.0,
        epsilon = 1e-12
    );
    // Zero-length tasks: mean 0, ratio undefined rather than NaN.
    let instant = efficiency_metrics(&run(
        1,
        vec![attempt(0, 0, Original, 3.0, Some(3.0), Succeeded)],
        3.0,
    ))
    .expect("valid");
    assert_eq!(instant.heavy_tail_ratio, None);
    // A task whose only attempt is a copy (no original): incomplete, no task time.
    let copy_only = efficiency_metrics(&run(
        1,
        vec![attempt(0, 0, Speculative, 0.0, Some(4.0), Succeeded)],
        4.0,
    ))
    .expect("valid");
    assert_eq!(
        (
            copy_only.incomplete_tasks,
            copy_only.heavy_tail_ratio,
            copy_only.successful_copies
        ),
        (1, None, 1)
    );
}

#[test]
fn task_time_ends_at_the_first_success_and_the_ratio_holds_below_a_second() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::Succeeded;
    // Task 0: its original 0-20 and its copy 5-12 both report success (a trace where the
    // original's kill came too late): the task ended at the first success, 12, so its
    // time is 12 - 0 = 12, not 20. Task 1: original 0-4. Heavy tail 12 / ((12 + 4) / 2)
    // = 1.5.
    let both = efficiency_metrics(&run(
        2,
        vec![
            attempt(0, 0, Original, 0.0, Some(20.0), Succeeded),
            attempt(1, 0, Speculative, 5.0, Some(12.0), Succeeded),
            attempt(2, 1, Original, 0.0, Some(4.0), Succeeded),
        ],
        20.0,
    ))
    .expect("valid");
    assert_relative_eq!(both.heavy_tail_ratio.expect("defined"), 1.5);
    // Tasks of 0.2 s and 0.6 s: mean 0.4 s, heavy tail 0.6 / 0.4 = 1.5 (a ratio of times,
    // the same in any unit).
    let short = efficiency_metrics(&run(
        2,
        vec![
            attempt(0, 0, Original, 0.0, Some(0.2), Succeeded),
            attempt(1, 1, Original, 0.0, Some(0.6), Succeeded),
        ],
        0.6,
    ))
    .expect("valid");
    assert_relative_eq!(
        short.heavy_tail_ratio.expect("defined"),
        1.5,
        max_relative = 1e-12
    );
}

#[test]
fn efficiency_metrics_reject_bad_runs() {
    use AttemptRole::Original;
    use AttemptStatus::Succeeded;
    let backwards = run(
        1,
        vec![attempt(0, 0, Original, 5.0, Some(3.0), Succeeded)],
        5.0,
    );
    assert_eq!(
        efficiency_metrics(&backwards),
        Err(MetricsError::BadAttempt {
            attempt: AttemptId(0),
            field: "end_secs",
            value: 3.0,
            range: "finite and >= start_secs",
        })
    );
    let nan_start = run(
        1,
        vec![attempt(0, 0, Original, f64::NAN, Some(3.0), Succeeded)],
        5.0,
    );
    assert!(matches!(
        efficiency_metrics(&nan_start),
        Err(MetricsError::BadAttempt {
            field: "start_secs",
            ..
        })
    ));
    let orphan = run(
        1,
        vec![attempt(0, 7, Original, 0.0, Some(3.0), Succeeded)],
        5.0,
    );
    assert_eq!(
        efficiency_metrics(&orphan),
        Err(MetricsError::UnknownTask {
            attempt: AttemptId(0),
            task: TaskId(7),
            tasks: 1
        })
    );
    assert!(matches!(
        efficiency_metrics(&run(0, vec![], f64::NAN)),
        Err(MetricsError::BadRun {
            field: "end_secs",
            ..
        })
    ));
}

#[test]
fn efficiency_metrics_of_huge_runs() {
    use AttemptRole::Original;
    use AttemptStatus::Succeeded;
    let max = f64::MAX;
    // Two tasks of f64::MAX seconds each, one attempt each: the container-seconds, 2 MAX,
    // are above f64::MAX, an error naming the attempt that overflows them (it was
    // `container_secs: inf` with Ok, and a heavy-tail ratio of MAX / inf = 0).
    let huge = run(
        2,
        vec![
            attempt(0, 0, Original, 0.0, Some(max), Succeeded),
            attempt(1, 1, Original, 0.0, Some(max), Succeeded),
        ],
        max,
    );
    assert_eq!(
        efficiency_metrics(&huge),
        Err(MetricsError::TotalOverflow {
            total: "container_secs",
            attempt: AttemptId(1),
        })
    );
    assert_eq!(
        efficiency_metrics(&huge)
            .expect_err("2 MAX container-seconds")
            .to_string(),
        "container_secs overflows: above f64::MAX once attempt 1 is added"
    );
    // The same tasks of MAX / 2 and MAX / 4: container-seconds 0.75 MAX fit, the mean
    // task time 0.375 MAX too, ratio 0.5 / 0.375 = 4 / 3.
    let half = run(
        2,
        vec![
            attempt(0, 0, Original, 0.0, Some(max / 2.0), Succeeded),
            attempt(1, 1, Original, 0.0, Some(max / 4.0), Succeeded),
        ],
        max / 2.0,
    );
    let metrics = efficiency_metrics(&half).expect("valid");
    assert_eq!(metrics.container_secs, 0.75 * max);
    assert_relative_eq!(
        metrics.heavy_tail_ratio.expect("defined"),
        4.0 / 3.0,
        max_relative = 1e-15
    );
}

#[test]
fn heavy_tail_ratio_of_two_tasks_of_max_seconds_is_one() {
    // Two tasks of f64::MAX seconds whose attempts take little container time: each
    // original runs 0-1 and is killed, its copy runs from MAX - MAX / 1024 to MAX and
    // wins. Task times MAX and MAX: their sum overflows, their mean is MAX, the ratio
    // MAX / MAX = 1 (it was MAX / inf = 0).
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Killed, Succeeded};
    let max = f64::MAX;
    let late = max - max / 1024.0;
    let huge = run(
        2,
        vec![
            attempt(0, 0, Original, 0.0, Some(1.0), Killed),
            attempt(1, 0, Speculative, late, Some(max), Succeeded),
            attempt(2, 1, Original, 0.0, Some(1.0), Killed),
            attempt(3, 1, Speculative, late, Some(max), Succeeded),
        ],
        max,
    );
    let metrics = efficiency_metrics(&huge).expect("container-seconds fit");
    assert_eq!(metrics.heavy_tail_ratio, Some(1.0));
    assert_eq!(metrics.incomplete_tasks, 0);
}

#[test]
fn efficiency_metrics_reject_attempts_outside_the_run() {
    use AttemptRole::Original;
    use AttemptStatus::{Running, Succeeded};
    // Ends at 100 in a run that ends at 10: not counted as 100 container-seconds.
    let late_end = run(
        1,
        vec![attempt(0, 0, Original, 0.0, Some(100.0), Succeeded)],
        10.0,
    );
    assert_eq!(
        efficiency_metrics(&late_end),
        Err(MetricsError::BadAttempt {
            attempt: AttemptId(0),
            field: "end_secs",
            value: 100.0,
            range: "<= run.end_secs",
        })
    );
    // Still running but launched after the run's end.
    let late_start = run(1, vec![attempt(0, 0, Original, 20.0, None, Running)], 10.0);
    assert!(matches!(
        efficiency_metrics(&late_start),
        Err(MetricsError::BadAttempt {
            field: "start_secs",
            ..
        })
    ));
    // Succeeded without an end: an error, not an incomplete task.
    let mut endless = attempt(0, 0, Original, 0.0, None, Running);
    endless.status = Succeeded;
    let error = efficiency_metrics(&run(1, vec![endless], 10.0)).expect_err("no end");
    assert_eq!(
        error,
        MetricsError::MissingEnd {
            attempt: AttemptId(0),
            status: Succeeded,
        }
    );
    assert_eq!(
        error.to_string(),
        "attempt 0: end_secs must be set for an attempt that is Succeeded, got None"
    );
    // An attempt ending exactly at the run's end is valid.
    efficiency_metrics(&run(
        1,
        vec![attempt(0, 0, Original, 0.0, Some(10.0), Succeeded)],
        10.0,
    ))
    .expect("ends at the run's end");
}

// ---------------------------------------------------------------------------------------
// Summary over repetitions
// ---------------------------------------------------------------------------------------

/// A metric over repetitions is the mean of each run's value (the framework spec: "every
/// figure is a mean over seeds"), not the ratio of the counts pooled over the runs.
#[test]
fn repetitions_average_each_runs_ratio_not_pooled_counts() {
    // Run A: one TP, no FP: precision 1, DL 5 / 10 = 0.5.
    // Run B: one TP, three FP: precision 1/4, DL 30 / 10 = 3.
    let run_a = detection_metrics(&[record(0.0, 30.0, 10.0, true, Some(5.0))]).unwrap();
    let mut records_b = vec![record(0.0, 60.0, 10.0, true, Some(30.0))];
    records_b.extend([record(0.0, 10.0, 10.0, false, Some(4.0)); 3]);
    let run_b = detection_metrics(&records_b).unwrap();
    // Mean of the precisions (1 + 0.25) / 2 = 0.625, not pooled 2 / 5 = 0.4.
    let precision = summarize(&[run_a.precision, run_b.precision]).unwrap();
    assert_relative_eq!(precision.mean.expect("defined"), 0.625);
    // DL: (0.5 + 3) / 2 = 1.75 (here one TP a run, as pooled).
    let latency = summarize(&[run_a.detection_latency, run_b.detection_latency]).unwrap();
    assert_relative_eq!(latency.mean.expect("defined"), 1.75);
    // A run where the metric is undefined is left out: run C has no detection.
    let run_c = detection_metrics(&[record(0.0, 30.0, 10.0, true, None)]).unwrap();
    let precision = summarize(&[run_a.precision, run_b.precision, run_c.precision]).unwrap();
    assert_eq!(precision.n, 2);
    assert_relative_eq!(precision.mean.expect("defined"), 0.625);
}

#[test]
fn summary_by_hand() {
    // [1, 2, 3]: mean 2, s = sqrt((1 + 0 + 1) / 2) = 1, t_{0.975, 2} = 4.30265272974946
    // (exactly 0.95 / sqrt(2 x 0.975 x 0.025) for 2 degrees of freedom),
    // ci = 4.30265272974946 * 1 / sqrt(3) = 2.48413771175033...
    let summary = summarize(&[Some(1.0), None, Some(2.0), Some(3.0)]).unwrap();
    assert_eq!(summary.n, 3);
    assert_relative_eq!(summary.mean.expect("defined"), 2.0);
    let expected = 4.302_652_729_749_464 / 3f64.sqrt();
    assert_relative_eq!(
        summary.ci95.expect("defined"),
        expected,
        max_relative = 1e-14
    );
    assert_relative_eq!(
        summary.ci95.expect("defined"),
        2.484_137_711_750_33,
        max_relative = 1e-14
    );
    // [2, 4]: mean 3, s = sqrt(2), t_{0.975, 1} = tan(0.475 pi) = 12.706204736174705,
    // ci = 12.706204736174705 * sqrt(2) / sqrt(2) = 12.706204736174705.
    let summary = summarize(&[Some(2.0), Some(4.0)]).unwrap();
    assert_relative_eq!(
        summary.ci95.expect("defined"),
        12.706_204_736_174_705,
        max_relative = 1e-14
    );
    // A Precision of 1, 1 and 0.9 (docs/formulas.md, Repetitions): mean 0.96667, s =
    // sqrt((2 x 0.0333^2 + 0.0667^2) / 2) = 0.057735, ci = 4.30265 x 0.057735 / sqrt(3) =
    // 0.14342: the interval passes 1, and is not clipped.
    let summary = summarize(&[Some(1.0), Some(1.0), Some(0.9)]).unwrap();
    let (mean, ci) = (
        summary.mean.expect("defined"),
        summary.ci95.expect("defined"),
    );
    assert_relative_eq!(mean, 2.9 / 3.0, max_relative = 1e-14);
    assert_relative_eq!(ci, 4.302_652_729_749_464 * 0.1 / 3.0, max_relative = 1e-12);
    assert_eq!(
        (format!("{mean:.3}"), format!("{ci:.3}")),
        ("0.967".into(), "0.143".into())
    );
    assert!(mean + ci > 1.0);
}

/// A million repetitions: `t_{0.975, 999 999} = z + g1 / v + g2 / v^2 = 1.95996636`, where
/// `statrs`'s inverse CDF gave 1.959848 (and did not return at `3 x 10^7`).
#[test]
fn summary_of_a_million_values_takes_t_from_the_expansion() {
    let n = 1_000_000usize;
    let values: Vec<Option<f64>> = (0..n).map(|i| Some((i % 2) as f64)).collect();
    let summary = summarize(&values).expect("finite values");
    assert_eq!((summary.mean, summary.n), (Some(0.5), n));
    // s = sqrt((n / 4) / (n - 1)); ci95 = t s / sqrt(n) = 0.000979983668.
    assert_relative_eq!(
        summary.ci95.expect("n >= 2"),
        0.000_979_983_668_4,
        max_relative = 1e-9
    );
}

#[test]
fn summary_of_finite_values_whose_sums_overflow() {
    let max = f64::MAX;
    // [MAX, MAX / 2]: the sum overflows; mean 0.75 MAX. The half-width,
    // t_{0.975, 1} x (MAX / 2) / 2 = 3.18 MAX, is above MAX: None.
    let huge = summarize(&[Some(max), Some(max / 2.0)]).unwrap();
    assert_eq!(
        huge,
        Summary {
            mean: Some(0.75 * max),
            ci95: None,
            n: 2
        }
    );
    // [1e200, -1e200]: mean 0, the squares 1e400 overflow; s = sqrt(2) 1e200,
    // ci = t_{0.975, 1} x sqrt(2) 1e200 / sqrt(2) = 12.706204736174705e200.
    let wide = summarize(&[Some(1e200), Some(-1e200)]).unwrap();
    assert_eq!(wide.mean, Some(0.0));
    assert_relative_eq!(
        wide.ci95.expect("representable"),
        12.706_204_736_174_705e200,
        max_relative = 1e-14
    );
    // [1e-200, 3e-200]: the squares 1e-400 underflow to 0; mean 2e-200, s = sqrt(2) 1e-200,
    // ci = 12.706204736174705e-200 (not 0: the values differ).
    let tiny = summarize(&[Some(1e-200), Some(3e-200)]).unwrap();
    assert_relative_eq!(tiny.mean.expect("defined"), 2e-200, max_relative = 1e-15);
    assert_relative_eq!(
        tiny.ci95.expect("representable"),
        12.706_204_736_174_705e-200,
        max_relative = 1e-14
    );
    // Three values near MAX: mean (MAX + MAX / 2 + MAX / 4) / 3 = 0.583... MAX.
    let three = summarize(&[Some(max), Some(max / 2.0), Some(max / 4.0)]).unwrap();
    assert_relative_eq!(
        three.mean.expect("finite"),
        1.75 / 3.0 * max,
        max_relative = 1e-15
    );
}

#[test]
fn summarize_rejects_non_finite_values() {
    // None is undefined (left out of n); NaN and infinities are errors naming the value.
    let values = [Some(1.0), None, Some(f64::INFINITY), Some(f64::NAN)];
    let error = summarize(&values).expect_err("inf");
    assert_eq!(
        error,
        MetricsError::BadValue {
            index: 2,
            value: f64::INFINITY
        }
    );
    assert_eq!(
        error.to_string(),
        "values[2] must be finite or None (undefined), got inf"
    );
    assert!(matches!(
        summarize(&[Some(f64::NAN)]),
        Err(MetricsError::BadValue { index: 0, value }) if value.is_nan()
    ));
    assert!(matches!(
        summarize(&[None, Some(f64::NEG_INFINITY)]),
        Err(MetricsError::BadValue { index: 1, .. })
    ));
    // None is left out: 3 values given, n = 2.
    assert_eq!(summarize(&[Some(2.0), None, Some(4.0)]).unwrap().n, 2);
}

#[test]
fn summary_of_degenerate_inputs() {
    assert_eq!(
        summarize(&[]).unwrap(),
        Summary {
            mean: None,
            ci95: None,
            n: 0
        }
    );
    assert_eq!(
        summarize(&[None, None]).unwrap(),
        Summary {
            mean: None,
            ci95: None,
            n: 0
        }
    );
    assert_eq!(
        summarize(&[Some(5.0)]).unwrap(),
        Summary {
            mean: Some(5.0),
            ci95: None,
            n: 1
        }
    );
    // All equal: exactly the value, ci 0 (0.1 * 3 / 3 would not be exactly 0.1).
    assert_eq!(
        summarize(&[Some(0.1); 3]).unwrap(),
        Summary {
            mean: Some(0.1),
            ci95: Some(0.0),
            n: 3
        }
    );
}

#[test]
fn summary_serialises_as_mean_ci95_n() {
    let json = serde_json::to_string(&summarize(&[Some(5.0)]).unwrap()).expect("serialisable");
    assert_eq!(json, r#"{"mean":5.0,"ci95":null,"n":1}"#);
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

fn any_record() -> impl Strategy<Value = TaskRecord> {
    (
        0.0..100.0f64,
        0.0..100.0f64,
        0.1..50.0f64,
        any::<bool>(),
        proptest::option::of(0.0..150.0f64),
    )
        .prop_map(|(start, exec, usual, straggler, after)| {
            record(start, exec, usual, straggler, after.map(|a| start + a))
        })
}

proptest! {
    #[test]
    fn ratios_are_bounded_and_precision_is_raw_minus_fake(
        records in proptest::collection::vec(any_record(), 0..40),
    ) {
        let m = detection_metrics(&records).expect("valid");
        for r in [m.precision, m.precision_raw, m.recall, m.fake_positive].into_iter().flatten() {
            prop_assert!((0.0..=1.0).contains(&r));
        }
        if let (Some(p), Some(raw), Some(fake)) = (m.precision, m.precision_raw, m.fake_positive) {
            prop_assert!((p - (raw - fake)).abs() < 1e-12);
        }
        prop_assert_eq!(m.tasks, records.len());
    }

    #[test]
    fn summary_mean_lies_within_the_values(values in proptest::collection::vec(-1e6..1e6f64, 1..20)) {
        let s = summarize(&values.iter().map(|&v| Some(v)).collect::<Vec<_>>()).unwrap();
        let mean = s.mean.expect("defined");
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(mean >= lo - 1e-6 && mean <= hi + 1e-6);
        prop_assert_eq!(s.ci95.is_some(), values.len() > 1);
        prop_assert!(s.ci95.is_none_or(|ci| ci >= 0.0));
    }

    #[test]
    fn summary_of_finite_values_of_any_magnitude_is_finite(
        values in proptest::collection::vec(
            prop_oneof![
                // Any finite value (exponents uniform), and values near f64::MAX, whose
                // sums and squares overflow.
                proptest::num::f64::POSITIVE
                    | proptest::num::f64::NEGATIVE
                    | proptest::num::f64::NORMAL
                    | proptest::num::f64::SUBNORMAL
                    | proptest::num::f64::ZERO,
                (-1.0..=1.0f64).prop_map(|x| x * f64::MAX),
            ],
            1..20,
        ),
    ) {
        let s = summarize(&values.iter().map(|&v| Some(v)).collect::<Vec<_>>()).unwrap();
        prop_assert_eq!(s.n, values.len());
        let mean = s.mean.expect("defined");
        prop_assert!(mean.is_finite());
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let slack = 1e-12 * lo.abs().max(hi.abs());
        prop_assert!(mean >= lo - slack && mean <= hi + slack);
        prop_assert!(s.ci95.is_none_or(|ci| ci.is_finite() && ci >= 0.0));
    }
}
