//! The tests of the `hadoop` module: Hadoop MapReduce v2's speculator over its three
//! runtime estimators and Hadoop 1's rule, on cases worked by hand (arithmetic in the
//! comments), degenerate inputs, parameter checks and the conformance kit.
//!
//! A snapshot is written as `(task, stage, role, start_secs, progress)` tuples; row `i`
//! is attempt `i`. Finished attempts are observed with ids from 1000 on.

use straggler_detect::conformance::Conformance;
use straggler_detect::hadoop::{
    DataStatistics, ExpSmoothedParams, ExponentiallySmoothed, Legacy, RuntimeEstimator,
    SimpleExpParams, SimpleExponential,
};
use straggler_detect::{
    DetectError, Detector, Findings, Hadoop1, Hadoop1Params, HadoopParams, HadoopSpeculator,
    Parallelism,
};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, Observation, ProgressReport,
    Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

const O: AttemptRole = AttemptRole::Original;
const S: AttemptRole = AttemptRole::Speculative;

type Row = (u32, u32, AttemptRole, f64, f64);

fn snapshot(now: f64, stage_count: u32, rows: &[Row]) -> Snapshot {
    let stages = (0..stage_count)
        .map(|s| Stage {
            job: JobId(0),
            kind: if s % 2 == 0 {
                TaskKind::Map
            } else {
                TaskKind::Reduce
            },
        })
        .collect();
    let mut snapshot = Snapshot::new(now, 1, stages).expect("valid snapshot");
    for (i, &(task, stage, role, start_secs, progress)) in rows.iter().enumerate() {
        snapshot
            .push(SnapshotRow {
                attempt: AttemptId(i as u32),
                task: TaskId(task),
                stage: StageId(stage),
                node: NodeId(0),
                role,
                start_secs,
                progress,
                input_bytes: 64e6,
            })
            .expect("valid row");
    }
    snapshot
}

fn scan(detector: &mut impl Detector, snapshot: &Snapshot) -> Vec<u32> {
    let mut findings = Findings::default();
    detector.scan(snapshot, &mut findings);
    findings.rows().to_vec()
}

fn ended(attempt: u32, stage: u32, start: f64, end: f64, status: AttemptStatus) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(attempt),
        task: TaskId(attempt),
        stage: StageId(stage),
        node: NodeId(0),
        role: O,
        start_secs: start,
        end_secs: end,
        status,
        input_bytes: 64_000_000,
    })
}

fn succeeded(attempt: u32, stage: u32, start: f64, end: f64) -> Observation {
    ended(attempt, stage, start, end, AttemptStatus::Succeeded)
}

fn report(attempt: u32, time_secs: f64, progress: f64) -> ProgressReport {
    ProgressReport {
        attempt: AttemptId(attempt),
        task: TaskId(attempt),
        stage: StageId(0),
        node: NodeId(0),
        time_secs,
        progress,
    }
}

fn legacy_with(params: HadoopParams) -> HadoopSpeculator<Legacy> {
    HadoopSpeculator::new(Legacy, params.check().expect("valid"))
}

// ---------------------------------------------------------------------------------------
// HadoopSpeculator over Legacy: est = (now - start) / max(progress, 1e-4).

/// One finished map of 100 s (mean 100, so replEnd = now + 100 = 300) and four running.
fn legacy_rows() -> Vec<Row> {
    vec![
        // est = 100 / 0.5 = 200, estEnd = 300 = replEnd: skipped (replEnd >= estEnd).
        (0, 0, O, 100.0, 0.5),
        // est = 100 / 0.25 = 400, estEnd = 500, value 200.
        (1, 0, O, 100.0, 0.25),
        // est = 50 / 0.125 = 400, estEnd = 550, value 250: the largest.
        (2, 0, O, 150.0, 0.125),
        // est = 200 / 0.8 = 250, estEnd = 250 < replEnd: skipped.
        (3, 0, O, 0.0, 0.8),
    ]
}

#[test]
fn legacy_flags_the_largest_value_of_the_stage() {
    let mut detector = HadoopSpeculator::legacy();
    assert_eq!(detector.name(), "hadoop-legacy");
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    // Gate: 1 finished of 1 + 4 = 5 tasks, 1 >= 0.05 * 5.
    assert_eq!(
        scan(&mut detector, &snapshot(200.0, 1, &legacy_rows())),
        [2]
    );
}

#[test]
fn a_task_with_a_running_copy_is_not_flagged() {
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    let mut rows = legacy_rows();
    // A copy of task 2 (its row is never a candidate either): row 1 (value 200) wins.
    rows.push((2, 0, S, 190.0, 0.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [1]);
}

#[test]
fn nothing_before_a_finished_task_and_only_succeeded_attempts_count() {
    let mut detector = HadoopSpeculator::legacy();
    let snapshot = snapshot(200.0, 1, &legacy_rows());
    assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0]);
    detector.observe(&ended(1000, 0, 0.0, 100.0, AttemptStatus::Killed));
    detector.observe(&ended(1001, 0, 0.0, 100.0, AttemptStatus::Failed));
    assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0]);
    assert_eq!(detector.finished(0).count(), 0);
    detector.observe(&succeeded(1002, 0, 0.0, 100.0));
    assert_eq!(scan(&mut detector, &snapshot), [2]);
    // reset forgets the finished tasks.
    detector.reset();
    assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0]);
}

#[test]
fn a_task_succeeding_twice_counts_once() {
    // Hadoop's StartEndTimesBase counts a task's first success only: the same success
    // reported twice, then a copy of the task succeeding (300 s), leave one duration,
    // 100 s.
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(2000),
        task: TaskId(1000),
        stage: StageId(0),
        node: NodeId(1),
        role: S,
        start_secs: 50.0,
        end_secs: 350.0,
        status: AttemptStatus::Succeeded,
        input_bytes: 64_000_000,
    }));
    let finished = detector.finished(0);
    assert_eq!((finished.count(), finished.mean()), (1, Some(100.0)));
    // A task of another stage with the same id is another task.
    detector.observe(&succeeded(1000, 1, 0.0, 40.0));
    assert_eq!(detector.finished(1).count(), 1);
    detector.reset();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    assert_eq!(detector.finished(0).count(), 1);
}

#[test]
fn a_success_without_a_valid_duration_counts_as_finished() {
    // Hadoop's gate counts the completed tasks (`job.getCompletedMaps()`), while
    // `StartEndTimesBase` adds a duration only when `start <= finish`. Task 1001 succeeded
    // with its end before its start (a broken trace): finished, without a duration. Two
    // finished, durations [100] (mean 100, replEnd 200 + 100 = 300); 21 running: row 0 at
    // 0.125 (est = 100 / 0.125 = 800, estEnd 900, value 600), rows 1..20 at 0.5 (estEnd
    // 300 = replEnd, skipped). Gate: 2 >= 0.05 x (2 + 21) = 1.15, open: row 0 flagged.
    // Counting only the durations, 1 < 0.05 x (1 + 21) = 1.1 would keep it closed.
    let mut rows: Vec<Row> = (1..21).map(|t| (t, 0, O, 100.0, 0.5)).collect();
    rows.insert(0, (0, 0, O, 100.0, 0.125));
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&succeeded(1001, 0, 10.0, 5.0));
    assert_eq!(detector.finished(0).count(), 1);
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [0]);
    // Its task is finished: a row of it still listed is neither judged nor running.
    rows.push((1001, 0, O, 0.0, 0.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [0]);
    // reset and the stage's end forget it with the durations.
    detector.reset();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    assert_eq!(
        scan(&mut detector, &snapshot(200.0, 1, &rows)),
        [] as [u32; 0]
    );
}

#[test]
fn the_five_percent_gate_counts_running_tasks() {
    // 1 finished + 19 running = 20 tasks: 1 >= 0.05 * 20 = 1.0, the gate opens; the
    // slowest, row 0 (est = 100 / 0.125 = 800, estEnd 900, replEnd 300), is flagged.
    let mut rows: Vec<Row> = (1..19).map(|t| (t, 0, O, 100.0, 0.5)).collect();
    rows.insert(0, (0, 0, O, 100.0, 0.125));
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [0]);
    // 21 tasks: 1 < 0.05 * 21 = 1.05, closed.
    rows.push((20, 0, O, 100.0, 0.5));
    assert_eq!(
        scan(&mut detector, &snapshot(200.0, 1, &rows)),
        [] as [u32; 0]
    );
    // Tasks waiting for a container would count too, but a stage with any is skipped
    // (`a_stage_with_tasks_waiting_for_a_container_is_skipped`).
}

#[test]
fn a_stage_with_tasks_waiting_for_a_container_is_skipped() {
    // Hadoop's `maybeScheduleASpeculation` skips a job's task kind while containers of
    // that kind wait for allocation. Five maps finished in 50 s (replEnd = 100 + 50 = 150);
    // at 100 s, 15 run from 0 s: row 0 at 0.25 (est = 100 / 0.25 = 400, estEnd 400, value
    // 250), the others at 0.8 (est = 125, estEnd 125 < 150, skipped). Gate: 5 finished of
    // 5 + 15 + 5 waiting = 25 tasks, 5 >= 0.05 * 25; cap 10, no copy running. Without the
    // rule row 0 would be flagged; Hadoop flags nothing while 5 maps wait.
    let mut rows: Vec<Row> = (1..15).map(|t| (t, 0, O, 0.0, 0.8)).collect();
    rows.insert(0, (0, 0, O, 0.0, 0.25));
    let mut detector = HadoopSpeculator::legacy();
    for attempt in 1000..1005 {
        detector.observe(&succeeded(attempt, 0, 0.0, 50.0));
    }
    let mut waiting = snapshot(100.0, 2, &rows);
    waiting.set_pending(StageId(0), 5).expect("stage 0");
    assert_eq!(scan(&mut detector, &waiting), [] as [u32; 0]);
    // One task waiting is enough. The stage still learns meanwhile: a sixth map of 50 s.
    waiting.set_pending(StageId(0), 1).expect("stage 0");
    detector.observe(&succeeded(1005, 0, 0.0, 50.0));
    assert_eq!(scan(&mut detector, &waiting), [] as [u32; 0]);
    assert_eq!(detector.finished(0).count(), 6);
    // Nothing waiting: row 0 is flagged.
    waiting.set_pending(StageId(0), 0).expect("stage 0");
    assert_eq!(scan(&mut detector, &waiting), [0]);
    // The rule is per stage: reduces waiting do not stop the maps.
    waiting.set_pending(StageId(1), 3).expect("stage 1");
    assert_eq!(scan(&mut detector, &waiting), [0]);
}

#[test]
fn the_cap_on_running_copies() {
    // Stage 0: task 0 has a copy (1 copy running), rows 2 and 3 are candidates;
    // row 2: est = 100 / 0.25 = 400, estEnd 500, value 200.
    let rows = [
        (0, 0, O, 100.0, 0.5),
        (0, 0, S, 150.0, 0.5),
        (1, 0, O, 100.0, 0.25),
        (2, 0, O, 100.0, 0.5),
    ];
    let snapshot = snapshot(200.0, 1, &rows);
    let cap = |min_allowed_copies: f64| {
        let mut detector = legacy_with(HadoopParams {
            min_allowed_copies,
            ..HadoopParams::default()
        });
        detector.observe(&succeeded(1000, 0, 0.0, 100.0));
        scan(&mut detector, &snapshot)
    };
    // allowed = floor(max(m, 0.01 * (1 + 3) = 0.04, 0.1 * 3 = 0.3)); flag while 1 copy <
    // allowed: m = 10 or 2 allow 10 or 2, m = 1 allows 1, m = 0 allows floor(0.3) = 0.
    assert_eq!(cap(10.0), [2]);
    assert_eq!(cap(2.0), [2]);
    assert_eq!(cap(1.0), [] as [u32; 0]);
    assert_eq!(cap(0.0), [] as [u32; 0]);
    // Without the minimum, the running term decides: three finished maps of 100 s (the 5%
    // gate needs 0.05 x (3 + 43) = 2.3 of them) and 40 more originals running (rows 3..42,
    // progress 0.5, not candidates: estEnd 300 = replEnd) allow floor(0.1 x 43 = 4.3) = 4
    // copies (0.01 x 46 = 0.46 from the total), so with 1 copy running row 2 is flagged.
    let mut many = rows.to_vec();
    many.extend((3..43).map(|task| (task, 0, O, 100.0, 0.5)));
    let mut detector = legacy_with(HadoopParams {
        min_allowed_copies: 0.0,
        ..HadoopParams::default()
    });
    for attempt in 1000..1003 {
        detector.observe(&succeeded(attempt, 0, 0.0, 100.0));
    }
    assert_eq!(scan(&mut detector, &crate::snapshot(200.0, 1, &many)), [2]);
}

#[test]
fn a_succeeded_task_still_listed_is_neither_judged_nor_counted() {
    // A trace replay: task 5's copy ran from 0 to 90 s and succeeded, and its original,
    // killed a moment later, is still listed at 200 s (row 4). Finished: 100 s and 90 s,
    // mean 95, replEnd 295; row 0: estEnd 300, value 5; row 1: 500, 205; row 2: 550, 255;
    // row 3: 250 < 295, skipped. Row 4 (est = 200 / 0.1 = 2000, value 1705) would win if
    // it were judged; Hadoop's attempt is no longer running by then.
    let mut rows = legacy_rows();
    rows.push((5, 0, O, 0.0, 0.1));
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&task_ended(1001, 5, S, AttemptStatus::Succeeded));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [2]);
    // Nor is it running: with a 30% gate, 2 finished >= 0.3 x (2 + 4 running) = 1.8,
    // where counting task 5 again would ask for 0.3 x 7 = 2.1. Here task 5's original
    // succeeded and its copy is still listed (row 4).
    let mut rows = legacy_rows();
    rows.push((5, 0, S, 150.0, 0.5));
    let mut detector = legacy_with(HadoopParams {
        min_finished_fraction: 0.3,
        ..HadoopParams::default()
    });
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&task_ended(1001, 5, O, AttemptStatus::Succeeded));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [2]);
}

#[test]
fn a_succeeded_tasks_row_makes_no_other_row_of_its_id_speculating() {
    // Task id 5 in two stages (a snapshot from elsewhere may reuse ids): stage 0's task 5
    // succeeded and its row is left over (row 4); stage 1's task 5 runs alone (row 5):
    // est = 100 / 0.1 = 1000, estEnd 1100, replEnd 200 + 100 = 300, value 800. It is
    // judged, not taken for a second attempt of the succeeded task.
    let mut rows = legacy_rows();
    rows.push((5, 0, O, 0.0, 0.1));
    rows.push((5, 1, O, 100.0, 0.1));
    let mut detector = legacy_with(HadoopParams {
        min_allowed_copies: 1.0,
        ..HadoopParams::default()
    });
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&task_ended(1001, 5, S, AttemptStatus::Succeeded));
    detector.observe(&succeeded(1002, 1, 0.0, 100.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 2, &rows)), [2, 5]);
}

#[test]
fn the_cap_counts_the_tasks_speculating() {
    // Hadoop counts a task with more than one running attempt as speculating
    // (`ALREADY_SPECULATING`), once however many copies it runs. Two finished tasks (mean
    // 100, replEnd 300) and four running: allowed = floor(max(m, 0.01 x 6, 0.1 x 4)) = m.
    let finished = |detector: &mut HadoopSpeculator<Legacy>| {
        detector.observe(&succeeded(1000, 0, 0.0, 100.0));
        detector.observe(&succeeded(1001, 0, 0.0, 100.0));
    };
    let cap = |min_allowed_copies: f64, extra: &[Row]| {
        let mut detector = legacy_with(HadoopParams {
            min_allowed_copies,
            ..HadoopParams::default()
        });
        finished(&mut detector);
        let mut rows = legacy_rows();
        rows.extend_from_slice(extra);
        scan(&mut detector, &snapshot(200.0, 1, &rows))
    };
    // Task 0 runs two copies: one task speculating, below 2 allowed; row 2 is flagged.
    let two_copies = [(0, 0, S, 150.0, 0.5), (0, 0, S, 160.0, 0.5)];
    assert_eq!(cap(2.0, &two_copies), [2]);
    assert_eq!(cap(1.0, &two_copies), [] as [u32; 0]);
    // A copy of task 1001, which succeeded, still listed: no task is speculating.
    assert_eq!(cap(1.0, &[(1001, 0, S, 150.0, 0.5)]), [2]);
}

#[test]
fn the_cap_is_a_whole_number_of_copies() {
    // Hadoop's `(int) Math.max(10, 0.01 * tasks)` then `(int) Math.max(that, 0.1 *
    // running)`. Seven finished maps of 100 s (the 5% gate: 7 >= 0.05 x 122 = 6.1) and 115
    // running tasks (122 in all): allowed = floor(max(10, 1.22, 11.5)) = 11, not 11.5.
    // Tasks 0..copies have a copy; task 114 (progress 0.25: est = 100 / 0.25 = 400, estEnd
    // 500 > replEnd 300) is the only candidate, the others are at 0.5 (estEnd 300 = replEnd).
    let rows = |copies: u32| -> Vec<Row> {
        let mut rows: Vec<Row> = (0..114).map(|task| (task, 0, O, 100.0, 0.5)).collect();
        rows.push((114, 0, O, 100.0, 0.25));
        rows.extend((0..copies).map(|task| (task, 0, S, 150.0, 0.0)));
        rows
    };
    let mut detector = HadoopSpeculator::legacy();
    for attempt in 1000..1007 {
        detector.observe(&succeeded(attempt, 0, 0.0, 100.0));
    }
    // 10 copies < 11: row 114 is flagged; 11 copies = 11: nothing (11 < 11.5 would flag).
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows(10))), [114]);
    assert_eq!(
        scan(&mut detector, &snapshot(200.0, 1, &rows(11))),
        [] as [u32; 0]
    );
}

#[test]
fn one_attempt_per_stage_and_ties_go_to_the_lowest_row() {
    // Stage 0 (finished mean 100, replEnd 300): rows 0 and 2 both est = 100 / 0.25 = 400,
    // estEnd 500, value 200: a tie, row 0 wins. Stage 1 (finished mean (40 + 60) / 2 =
    // 50, replEnd 250): row 1 est = 100 / 0.5 = 200, estEnd 300, value 50; row 3 est =
    // 200 / 0.5 = 400, estEnd 400, value 150: row 3.
    let rows = [
        (0, 0, O, 100.0, 0.25),
        (1, 1, O, 100.0, 0.5),
        (2, 0, O, 100.0, 0.25),
        (3, 1, O, 0.0, 0.5),
    ];
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&succeeded(1001, 1, 0.0, 40.0));
    detector.observe(&succeeded(1002, 1, 10.0, 70.0));
    assert_eq!(detector.finished(1).mean(), Some(50.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 2, &rows)), [0, 3]);
}

#[test]
fn legacy_degenerate_rows() {
    // Zero progress: est = elapsed / 1e-4 (row 0: 1e6, flagged). Started now: est 0, estEnd
    // = now < replEnd (row 1 skipped). A copy alone (row 2): never flagged.
    let rows = [
        (0, 0, O, 100.0, 0.0),
        (1, 0, O, 200.0, 0.3),
        (2, 0, S, 100.0, 0.0),
    ];
    let mut detector = HadoopSpeculator::legacy();
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [0]);
    // Observations of unknown stages, and NaN durations, are harmless.
    detector.observe(&succeeded(1001, 4_000_000_000, 0.0, 1.0));
    detector.observe(&succeeded(1002, 0, f64::NAN, 1.0));
    assert_eq!(detector.finished(0).count(), 1);
    assert_eq!(scan(&mut detector, &snapshot(200.0, 1, &rows)), [0]);
}

// ---------------------------------------------------------------------------------------
// ExponentiallySmoothed: rate = w rate + (1 - w) sample, w = exp(-dt / lambda).

#[test]
fn exp_smoothed_rate_and_estimate() {
    let mut estimator = ExponentiallySmoothed::default();
    estimator.observe_progress(&report(0, 10.0, 0.1));
    // One report: no rate, no estimate.
    assert_eq!(estimator.rate(AttemptId(0)), None);
    assert_eq!(
        estimator.estimated_runtime_secs(AttemptId(0), 0.0, 10.0, 0.1),
        None
    );
    // Sample (0.2 - 0.1) / 10 = 0.01: the first rate.
    estimator.observe_progress(&report(0, 20.0, 0.2));
    let first = estimator.rate(AttemptId(0)).expect("rate");
    assert!((first - 0.01).abs() < 1e-15);
    // Ignored: an earlier report, and a lower progress.
    estimator.observe_progress(&report(0, 15.0, 0.3));
    estimator.observe_progress(&report(0, 25.0, 0.15));
    assert_eq!(estimator.rate(AttemptId(0)), Some(first));
    // Sample (0.4 - 0.2) / 10 = 0.02, w = exp(-10 / 60): rate = 0.01 w + 0.02 (1 - w).
    estimator.observe_progress(&report(0, 30.0, 0.4));
    let w = (-10.0f64 / 60.0).exp();
    let rate = 0.01 * w + 0.02 * (1.0 - w);
    assert!((estimator.rate(AttemptId(0)).expect("rate") - rate).abs() < 1e-15);
    // est = (30 - 0) + (1 - 0.4) / rate, about 30 + 0.6 / 0.01846 = 62.5.
    let est = estimator
        .estimated_runtime_secs(AttemptId(0), 0.0, 35.0, 0.4)
        .expect("estimate");
    assert!((est - (30.0 + 0.6 / rate)).abs() < 1e-9);
    // Zero progress rate: no estimate.
    estimator.observe_progress(&report(1, 10.0, 0.0));
    estimator.observe_progress(&report(1, 20.0, 0.0));
    assert_eq!(estimator.rate(AttemptId(1)), Some(0.0));
    assert_eq!(
        estimator.estimated_runtime_secs(AttemptId(1), 0.0, 20.0, 0.0),
        None
    );
    estimator.forget(AttemptId(0));
    assert_eq!(estimator.rate(AttemptId(0)), None);
}

#[test]
fn exp_smoothed_speculator_learns_from_reports_and_forgets_ended_attempts() {
    // Attempt 0: reports 0.1 at 10 s, 0.2 at 20 s: rate 0.01, est = 20 + 0.8 / 0.01 = 100,
    // estEnd 100. Attempt 1: 0.1 at 10 s, 0.5 at 20 s: rate 0.04, est = 20 + 0.5 / 0.04 =
    // 32.5, estEnd 32.5 < replEnd. Finished mean 50: replEnd = 20 + 50 = 70; row 0's value
    // 30.
    let mut detector = HadoopSpeculator::exp_smoothed();
    assert_eq!(detector.name(), "hadoop-exp-smoothed");
    for r in [
        report(0, 10.0, 0.1),
        report(1, 10.0, 0.1),
        report(0, 20.0, 0.2),
        report(1, 20.0, 0.5),
    ] {
        detector.observe(&Observation::Progress(r));
    }
    detector.observe(&succeeded(1000, 0, 0.0, 50.0));
    let rows = [(0, 0, O, 0.0, 0.2), (1, 0, O, 0.0, 0.5)];
    let snapshot = snapshot(20.0, 1, &rows);
    assert_eq!(scan(&mut detector, &snapshot), [0]);
    detector.observe(&ended(0, 0, 0.0, 21.0, AttemptStatus::Killed));
    assert_eq!(detector.estimator().rate(AttemptId(0)), None);
    assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0]);
}

#[test]
fn an_attempt_that_stops_reporting_gets_hadoops_simulated_heartbeat() {
    // One finished task of 80 s: replEnd = now + 80. Attempt 0 reports 0.1 at 10 s and
    // 0.2 at 20 s, then stops: rate 0.01, est = 20 + 0.8 / 0.01 = 100. Attempt 1 reports
    // the same and 0.3 at 30 s: rate 0.01 (a sample of 0.01 again), est = 30 + 0.7 / 0.01
    // = 100. Gate: 1 finished of 3, 1 >= 0.05 x 3.
    //   25 s: both seen for the first time; estEnd 100 <= replEnd 105: nothing.
    //   34 s: attempt 0 unchanged for 9 s, not more: no reading; 100 <= 114: nothing.
    //   35 s: attempt 0 unchanged for 10 s > 9: it reads (35, 0.2), a sample of 0 after
    //         dt = 15, rate 0.01 e^(-15/60); this scan's value is still taken from est
    //         100 <= 115: nothing. Attempt 1's progress changed (0.2 at 25 s, 0.3 now):
    //         no reading, its rate stays 0.01.
    //   36 s: attempt 0's est = 35 + 0.8 / (0.01 e^(-0.25)) = 35 + 80 e^0.25 = 137.722
    //         > replEnd 116: flagged (value 21.722); attempt 1's 100 <= 116.
    // Without the heartbeat (a wait longer than the run) attempt 0 keeps est 100, which
    // `now` passes at 100 s: it is never flagged. The flag comes from this crate's weight
    // exp(-dt / lambda): under Hadoop's exp(+dt / lambda) the reading at 35 s would raise
    // the rate to 0.01 e^0.25 = 0.012840, est 35 + 0.8 / 0.012840 = 97.304 < 116, and
    // after a reading at t the end t + 80 e^(-(t - 20) / 60) would never pass a copy's.
    let rows = [(0, 0, O, 0.0, 0.2), (1, 0, O, 0.0, 0.3)];
    let run = |heartbeat_wait_secs: f64| {
        let params = HadoopParams {
            heartbeat_wait_secs,
            ..HadoopParams::default()
        };
        let estimator = ExponentiallySmoothed::default();
        let mut detector = HadoopSpeculator::new(estimator, params.check().expect("valid"));
        for r in [
            report(0, 10.0, 0.1),
            report(1, 10.0, 0.1),
            report(0, 20.0, 0.2),
            report(1, 20.0, 0.2),
        ] {
            detector.observe(&Observation::Progress(r));
        }
        detector.observe(&succeeded(1000, 0, 0.0, 80.0));
        let mut flagged = Vec::new();
        let first = [(0, 0, O, 0.0, 0.2), (1, 0, O, 0.0, 0.2)];
        flagged.push(scan(&mut detector, &snapshot(25.0, 1, &first)));
        detector.observe(&Observation::Progress(report(1, 30.0, 0.3)));
        for now in [34.0, 35.0, 36.0] {
            flagged.push(scan(&mut detector, &snapshot(now, 1, &rows)));
        }
        (detector, flagged)
    };
    let (detector, flagged) = run(9.0);
    let nothing: Vec<u32> = Vec::new();
    assert_eq!(
        flagged,
        [nothing.clone(), nothing.clone(), nothing.clone(), vec![0]]
    );
    let rate = 0.01 * (-15.0f64 / 60.0).exp();
    let got = detector.estimator().rate(AttemptId(0)).expect("rate");
    assert!((got - rate).abs() < 1e-15, "{got} != {rate}");
    let est = detector
        .estimator()
        .estimated_runtime_secs(AttemptId(0), 0.0, 36.0, 0.2)
        .expect("estimate");
    assert!((est - (35.0 + 80.0 * 0.25f64.exp())).abs() < 1e-9);
    assert!((est - 137.722).abs() < 1e-3);
    let got = detector.estimator().rate(AttemptId(1)).expect("rate");
    assert!((got - 0.01).abs() < 1e-15);
    // Without it: the same scans and later ones flag nothing.
    let (mut detector, flagged) = run(1e9);
    assert!(flagged.iter().all(Vec::is_empty), "{flagged:?}");
    for now in [50.0, 99.0, 101.0, 500.0] {
        assert_eq!(scan(&mut detector, &snapshot(now, 1, &rows)), nothing);
    }
    // With it, the attempt stays ahead of `now`: every reading pushes its end further.
    let (mut detector, _) = run(9.0);
    for now in (37..=500).map(f64::from) {
        let flagged = scan(&mut detector, &snapshot(now, 1, &rows));
        assert_eq!(flagged, [0], "at {now}");
    }
}

/// A progress report of `attempt` (of task `attempt`) in `stage`.
fn report_in(attempt: u32, stage: u32, time_secs: f64, progress: f64) -> ProgressReport {
    ProgressReport {
        stage: StageId(stage),
        ..report(attempt, time_secs, progress)
    }
}

/// Attempt 0 of stage 0 started at 0 s reports 0.1 at 10 s and 0.2 at 20 s, then stops (the
/// exponentially smoothed rate 0.01, est = 20 + 0.8 / 0.01 = 100); one task of the stage
/// finished in 80 s (replEnd = now + 80; gate: 1 finished of 2).
fn stopped_at_20_secs(detector: &mut impl Detector) {
    for r in [report(0, 10.0, 0.1), report(0, 20.0, 0.2)] {
        detector.observe(&Observation::Progress(r));
    }
    detector.observe(&succeeded(1000, 0, 0.0, 80.0));
}

#[test]
fn the_legacy_estimator_keeps_no_heartbeat() {
    // Legacy's estimate is the snapshot's progress over the elapsed time, which no reading
    // changes: the speculator remembers nothing of the attempt that stopped at 20 s, where
    // over the exponentially smoothed estimator it does.
    let rows = [(0, 0, O, 0.0, 0.2)];
    let mut legacy = HadoopSpeculator::legacy();
    let mut smoothed = HadoopSpeculator::exp_smoothed();
    stopped_at_20_secs(&mut legacy);
    stopped_at_20_secs(&mut smoothed);
    for now in [25.0, 35.0] {
        scan(&mut legacy, &snapshot(now, 1, &rows));
        scan(&mut smoothed, &snapshot(now, 1, &rows));
    }
    assert_eq!(legacy.heartbeat_since_secs(AttemptId(0)), None);
    assert_eq!(smoothed.heartbeat_since_secs(AttemptId(0)), Some(35.0));
}

#[test]
fn reset_forgets_what_the_heartbeat_remembered() {
    // Attempt 0 stopped at 20 s (est 100). At 25 s it is remembered: est 100, progress 0.2,
    // since 25 s (estEnd 100 <= replEnd 105: nothing). After a reset and the same
    // observations again, at 35 s it is seen for the first time (remembered since 35 s, no
    // reading) and at 36 s it has stood still 1 s: est 100 <= replEnd 116, nothing, as for a
    // new detector. Had the reset kept the entry of 25 s, at 35 s the attempt would have
    // stood still 10 s > 9 since it: a reading (35, 0.2), rate 0.01 e^(-15/60), and at 36 s
    // est = 35 + 80 e^0.25 = 137.722 > 116: flagged.
    let rows = [(0, 0, O, 0.0, 0.2)];
    let nothing: Vec<u32> = Vec::new();
    let mut detector = HadoopSpeculator::exp_smoothed();
    stopped_at_20_secs(&mut detector);
    assert_eq!(scan(&mut detector, &snapshot(25.0, 1, &rows)), nothing);
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), Some(25.0));
    detector.reset();
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), None);
    stopped_at_20_secs(&mut detector);
    let mut fresh = HadoopSpeculator::exp_smoothed();
    stopped_at_20_secs(&mut fresh);
    for now in [35.0, 36.0] {
        let expected = scan(&mut fresh, &snapshot(now, 1, &rows));
        assert_eq!(expected, nothing, "a new detector at {now}");
        assert_eq!(
            scan(&mut detector, &snapshot(now, 1, &rows)),
            expected,
            "at {now}"
        );
    }
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), Some(35.0));
    let rate = detector.estimator().rate(AttemptId(0)).expect("rate");
    assert!((rate - 0.01).abs() < 1e-15, "{rate}");
}

#[test]
fn an_ended_attempt_leaves_nothing_in_the_heartbeat() {
    // Attempt 0 stopped at 20 s; attempt 1 reports the same. At 25 s both are remembered
    // (since 25 s). Attempt 0 is killed at 30 s: the speculator forgets what it remembered
    // of it, and the estimator its rate; attempt 1 stays remembered.
    let mut detector = HadoopSpeculator::exp_smoothed();
    stopped_at_20_secs(&mut detector);
    for r in [report(1, 10.0, 0.1), report(1, 20.0, 0.2)] {
        detector.observe(&Observation::Progress(r));
    }
    let rows = [(0, 0, O, 0.0, 0.2), (1, 0, O, 0.0, 0.2)];
    assert_eq!(
        scan(&mut detector, &snapshot(25.0, 1, &rows)),
        [] as [u32; 0]
    );
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), Some(25.0));
    detector.observe(&ended(0, 0, 0.0, 30.0, AttemptStatus::Killed));
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), None);
    assert_eq!(detector.estimator().rate(AttemptId(0)), None);
    assert_eq!(detector.heartbeat_since_secs(AttemptId(1)), Some(25.0));
}

#[test]
fn the_wait_starts_again_after_each_reading() {
    // The simple exponential estimator (24 skipped readings). Attempt 0, started at 0 s,
    // reports 0.1 at 10 s and nothing more; one task finished. Scans every second from 11 s
    // to 60 s. At 11 s the start becomes known and the report is the first reading (index
    // 1): no estimate (1 <= 24), and the attempt is remembered (no estimate, 0.1, since
    // 11 s). Neither changes after. The wait is over (more than 9 s) at 21 s, which reads
    // (21, 0.1) (index 2) and starts the wait again, then at 31, 41 and 51 s: index 5 at
    // 60 s (60 - 51 = 9, not more), still no estimate. Were the wait not started again,
    // every scan from 21 s on would read, up to the 25th reading at 44 s, the first
    // estimate at 45 s and 26 readings at 60 s.
    let mut detector = HadoopSpeculator::simple_exp();
    detector.observe(&Observation::Progress(report(0, 10.0, 0.1)));
    detector.observe(&succeeded(1000, 0, 0.0, 80.0));
    let rows = [(0, 0, O, 0.0, 0.1)];
    let index = |d: &HadoopSpeculator<SimpleExponential>| {
        d.estimator().forecast(AttemptId(0)).expect("a record").1
    };
    assert_eq!(
        scan(&mut detector, &snapshot(11.0, 1, &rows)),
        [] as [u32; 0]
    );
    assert_eq!(index(&detector), 1);
    let mut read_at = Vec::new();
    for now in (12..=60).map(f64::from) {
        let before = index(&detector);
        assert_eq!(
            scan(&mut detector, &snapshot(now, 1, &rows)),
            [] as [u32; 0]
        );
        if index(&detector) != before {
            read_at.push(now);
        }
    }
    assert_eq!(read_at, [21.0, 31.0, 41.0, 51.0]);
    assert_eq!(index(&detector), 5);
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), Some(51.0));
    let est = detector
        .estimator()
        .estimated_runtime_secs(AttemptId(0), 0.0, 60.0, 0.1);
    assert_eq!(est, None);
}

#[test]
fn only_the_originals_a_stage_examines_get_readings() {
    // Every attempt starts at 0 s, reports 0.1 at 10 s and 0.2 at 20 s, then stops: rate
    // 0.01 each. Stage 0, where task 2 finished (its copy, attempt 1002, from 0 to 22 s):
    // row 0, task 0's original; row 1, task 0's copy; row 2, task 2's original, left over
    // after its copy won. Stage 1, a task finished but one waiting for a container: row 3.
    // Stage 2, no task finished (the gate is closed): row 4. Scans at 25 and 35 s.
    // Only row 0 is examined (its task speculating, Hadoop checks it all the same): it is
    // remembered at 25 s and read at 35 s (10 s > 9), rate 0.01 e^(-15/60). The others are
    // not remembered and keep 0.01. Nothing is flagged: task 0 has a copy, task 2
    // succeeded, stages 1 and 2 are not examined.
    let rows = [
        (0, 0, O, 0.0, 0.2),
        (0, 0, S, 0.0, 0.2),
        (2, 0, O, 0.0, 0.2),
        (3, 1, O, 0.0, 0.2),
        (4, 2, O, 0.0, 0.2),
    ];
    let mut detector = HadoopSpeculator::exp_smoothed();
    for (time_secs, progress) in [(10.0, 0.1), (20.0, 0.2)] {
        for (attempt, &(_, stage, ..)) in rows.iter().enumerate() {
            let r = report_in(attempt as u32, stage, time_secs, progress);
            detector.observe(&Observation::Progress(r));
        }
    }
    detector.observe(&Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(1002),
        task: TaskId(2),
        stage: StageId(0),
        node: NodeId(0),
        role: S,
        start_secs: 0.0,
        end_secs: 22.0,
        status: AttemptStatus::Succeeded,
        input_bytes: 64_000_000,
    }));
    detector.observe(&succeeded(1003, 1, 0.0, 22.0));
    for now in [25.0, 35.0] {
        let mut snapshot = snapshot(now, 3, &rows);
        snapshot.set_pending(StageId(1), 1).expect("stage 1");
        assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0], "at {now}");
    }
    let rate = |attempt: u32| detector.estimator().rate(AttemptId(attempt)).expect("rate");
    let read = 0.01 * (-15.0f64 / 60.0).exp();
    assert!((rate(0) - read).abs() < 1e-15, "{} != {read}", rate(0));
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), Some(35.0));
    for attempt in 1..5 {
        assert!((rate(attempt) - 0.01).abs() < 1e-15, "attempt {attempt}");
        assert_eq!(detector.heartbeat_since_secs(AttemptId(attempt)), None);
    }
}

#[test]
fn a_finished_stage_leaves_nothing_of_its_attempts() {
    // A replay whose log leaves an attempt unfinished. Stage 0: attempt 0 (task 0) reports
    // 0.1 at 10 s and 0.2 at 20 s (rate 0.01, est 100), a task finished in 80 s. Stage 1:
    // attempt 1 the same. At 21 s both are examined (gate: 1 finished of 2; estEnd 100 <=
    // replEnd 101: nothing) and remembered since 21 s. Task 0's copy, attempt 1002, runs
    // from 5 to 27 s and succeeds; the log never ends attempt 0, and stage 0 finishes at
    // 27 s. The speculator forgets what it remembered of attempt 0 and the estimator its
    // rate; attempt 1, of stage 1, keeps both.
    let mut detector = HadoopSpeculator::exp_smoothed();
    for (time_secs, progress) in [(10.0, 0.1), (20.0, 0.2)] {
        for stage in [0, 1] {
            let r = report_in(stage, stage, time_secs, progress);
            detector.observe(&Observation::Progress(r));
        }
    }
    detector.observe(&succeeded(1000, 0, 0.0, 80.0));
    detector.observe(&succeeded(1001, 1, 0.0, 80.0));
    let rows = [(0, 0, O, 0.0, 0.2), (1, 1, O, 0.0, 0.2)];
    assert_eq!(
        scan(&mut detector, &snapshot(21.0, 2, &rows)),
        [] as [u32; 0]
    );
    for attempt in [0, 1] {
        let since = detector.heartbeat_since_secs(AttemptId(attempt));
        assert_eq!(since, Some(21.0), "attempt {attempt}");
    }
    detector.observe(&Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(1002),
        task: TaskId(0),
        stage: StageId(0),
        node: NodeId(0),
        role: S,
        start_secs: 5.0,
        end_secs: 27.0,
        status: AttemptStatus::Succeeded,
        input_bytes: 64_000_000,
    }));
    detector.observe(&Observation::StageFinished {
        stage: StageId(0),
        time_secs: 27.0,
    });
    assert_eq!(detector.heartbeat_since_secs(AttemptId(0)), None);
    assert_eq!(detector.estimator().rate(AttemptId(0)), None);
    assert_eq!(detector.heartbeat_since_secs(AttemptId(1)), Some(21.0));
    let rate = detector.estimator().rate(AttemptId(1)).expect("rate");
    assert!((rate - 0.01).abs() < 1e-15, "{rate}");
}

#[test]
fn simple_exp_forgets_a_finished_stages_attempts() {
    // Attempt 0 of stage 0 has a record (started at 0 s, one reading: index 1); attempt 2
    // of stage 0 reported 0.1 at 10 s but no scan listed it, so its start is not known
    // and the reading waits; attempt 1 of stage 1 has a record. Stage 0 finishes: attempts
    // 0 and 2 leave nothing (attempt 2's start, were it learnt after, would start a record
    // without the waiting reading: index 0); attempt 1 keeps its record.
    let mut estimator = SimpleExponential::default();
    for (attempt, stage) in [(0, 0), (1, 1), (2, 0)] {
        estimator.observe_progress(&report_in(attempt, stage, 10.0, 0.1));
    }
    estimator.observe_start(AttemptId(0), StageId(0), 0.0);
    estimator.observe_start(AttemptId(1), StageId(1), 0.0);
    assert_eq!(estimator.forecast(AttemptId(0)), Some((0.01, 1)));
    estimator.forget_stage(StageId(0));
    assert_eq!(estimator.forecast(AttemptId(0)), None);
    assert_eq!(estimator.forecast(AttemptId(1)), Some((0.01, 1)));
    estimator.observe_start(AttemptId(2), StageId(0), 0.0);
    assert_eq!(estimator.forecast(AttemptId(2)), Some((0.0, 0)));
}

// ---------------------------------------------------------------------------------------
// SimpleExponential: seed 003's Algorithms 1-2.

fn simple_exp(tau_secs: f64, skip_initials: u32) -> SimpleExponential {
    let params = SimpleExpParams {
        tau_secs,
        skip_initials,
        ..SimpleExpParams::default()
    };
    SimpleExponential::new(params.check().expect("valid"))
}

#[test]
fn simple_exp_forecast_skip_initials_and_tau() {
    // tau 10 s, skip 3; the attempt started at 0 s. Reports come first and the start with
    // the next scan, as an engine sends them.
    let mut estimator = simple_exp(10.0, 3);
    let a = AttemptId(0);
    estimator.observe_progress(&report(0, 0.0, 0.0));
    estimator.observe_progress(&report(0, 10.0, 0.1));
    // Start unknown: the readings wait, no record.
    assert_eq!(estimator.forecast(a), None);
    estimator.observe_start(a, StageId(0), 0.0);
    // The record starts at (0 s, 0). Reading (0, 0) is at the start itself (dt = 0):
    // ignored. Reading (10, 0.1): the rate since the start, 0.1 / 10 = 0.01, is the first
    // forecast; index 1.
    assert_eq!(estimator.forecast(a), Some((0.01, 1)));
    // Reading (20, 0.2): sample 0.01, alpha = 1 - e^-1, forecast = 0.01 alpha + 0.01
    // (1 - alpha) = 0.01; index 2. The three reports (0, 0), (10, 0.1), (20, 0.2) give
    // two samples: no estimate (index 2 <= 3).
    estimator.observe_progress(&report(0, 20.0, 0.2));
    let (forecast, index) = estimator.forecast(a).expect("record");
    assert!((forecast - 0.01).abs() < 1e-15);
    assert_eq!(index, 2);
    assert_eq!(estimator.estimated_runtime_secs(a, 0.0, 20.0, 0.2), None);
    // Reading (30, 0.4): sample 0.02, forecast = 0.02 (1 - e^-1) + 0.01 e^-1
    // = 0.01 (2 - e^-1) = 0.0163212; index 3 = skip: still no estimate, tau still 10.
    estimator.observe_progress(&report(0, 30.0, 0.4));
    let forecast = 0.01 * (2.0 - (-1.0f64).exp());
    assert!((estimator.forecast(a).expect("record").0 - forecast).abs() < 1e-15);
    assert_eq!(estimator.estimated_runtime_secs(a, 0.0, 30.0, 0.4), None);
    assert_eq!(estimator.tau_secs(a), Some(10.0));
    // Reading (40, 0.5), the one after the 3 skipped: tau = max(10, 40 - 0) = 40 (the age
    // from the start) before its alpha = 1 - e^(-10 / 40); sample 0.01;
    // forecast = 0.01 alpha + 0.0163212 e^-0.25 = 0.0149230; index 4 > 3: an estimate,
    // est = (1 - 0.5) / 0.0149230 + 40 - 0 = 73.505.
    estimator.observe_progress(&report(0, 40.0, 0.5));
    assert_eq!(estimator.tau_secs(a), Some(40.0));
    let alpha = 1.0 - (-0.25f64).exp();
    let forecast = alpha * 0.01 + (1.0 - alpha) * forecast;
    let (got, index) = estimator.forecast(a).expect("record");
    assert!((got - forecast).abs() < 1e-15);
    assert_eq!(index, 4);
    let est = estimator
        .estimated_runtime_secs(a, 0.0, 45.0, 0.5)
        .expect("estimate");
    assert!((est - (0.5 / forecast + 40.0)).abs() < 1e-9);
    assert!((est - 73.505).abs() < 1e-3);
    // A reading at the same instant (dt = 0), or lower, is ignored; the start again
    // changes nothing.
    estimator.observe_progress(&report(0, 40.0, 0.9));
    estimator.observe_progress(&report(0, 50.0, 0.4));
    estimator.observe_start(a, StageId(0), 5.0);
    assert_eq!(estimator.forecast(a), Some((got, 4)));
}

#[test]
fn simple_exp_first_sample_is_the_rate_since_the_start() {
    // Started at 5 s, first report (10, 0.1): the first forecast is 0.1 / (10 - 5) = 0.02,
    // whether the start comes before the report (Hadoop's order) or after it.
    let mut before = simple_exp(10.0, 3);
    before.observe_start(AttemptId(0), StageId(0), 5.0);
    assert_eq!(before.forecast(AttemptId(0)), Some((0.0, 0)));
    before.observe_progress(&report(0, 10.0, 0.1));
    let mut after = simple_exp(10.0, 3);
    after.observe_progress(&report(0, 10.0, 0.1));
    after.observe_start(AttemptId(0), StageId(0), 5.0);
    assert_eq!(before.forecast(AttemptId(0)), Some((0.02, 1)));
    assert_eq!(after.forecast(AttemptId(0)), Some((0.02, 1)));
    // An attempt that ends before its start is known leaves nothing behind.
    after.observe_progress(&report(1, 10.0, 0.1));
    after.forget(AttemptId(1));
    after.observe_start(AttemptId(1), StageId(0), 0.0);
    assert_eq!(after.forecast(AttemptId(1)), Some((0.0, 0)));
}

#[test]
fn simple_exp_stagnation() {
    // Default window floor 360 s; started at 0 s, tau 10 (raised at the 4th sample, at
    // 60 s, to 60): window = max(2 x 10, 360) = 360 with the configured tau. Progress last
    // changed at 30 s.
    let mut estimator = simple_exp(10.0, 3);
    let a = AttemptId(0);
    estimator.observe_start(a, StageId(0), 0.0);
    for (t, p) in [
        (0.0, 0.0),
        (10.0, 0.1),
        (20.0, 0.2),
        (30.0, 0.3),
        (60.0, 0.3),
    ] {
        estimator.observe_progress(&report(0, t, p));
    }
    assert!(!estimator.is_stagnated(a, 389.0));
    assert!(estimator.is_stagnated(a, 390.0));
    assert_eq!(
        estimator.estimated_runtime_secs(a, 0.0, 390.0, 0.3),
        Some(f64::INFINITY)
    );
    assert_eq!(estimator.tau_secs(a), Some(60.0));
    // Progress 1 never stagnates; an unknown attempt neither, nor one whose start is not
    // known yet.
    estimator.observe_start(AttemptId(1), StageId(0), 0.0);
    estimator.observe_progress(&report(1, 10.0, 1.0));
    assert!(!estimator.is_stagnated(AttemptId(1), 1e6));
    assert!(!estimator.is_stagnated(AttemptId(9), 1e6));
    estimator.observe_progress(&report(2, 10.0, 0.0));
    assert!(!estimator.is_stagnated(AttemptId(2), 1e6));
    // Progress 0 since the start at 0 s: stagnated from 360 s.
    estimator.observe_start(AttemptId(2), StageId(0), 0.0);
    assert!(!estimator.is_stagnated(AttemptId(2), 359.0));
    assert!(estimator.is_stagnated(AttemptId(2), 360.0));
}

#[test]
fn simple_exp_new_attempt_runtime() {
    let estimator = SimpleExponential::default();
    let mut stats = DataStatistics::default();
    assert_eq!(estimator.new_attempt_runtime_secs(&stats), None);
    // n = 1: Hadoop's meanCI is 0 (`count <= 1`), sd = 0: 0 + min(0, 0) = 0.
    stats.add(100.0);
    assert_eq!(estimator.new_attempt_runtime_secs(&stats), Some(0.0));
    // 100..400: mean 250, sd = sqrt(12 500) = 111.80, meanCI = 250 + 1.96 * 111.80 / 2
    // = 359.57; min(0.25 * 359.57 = 89.89, 111.80 / 2 = 55.90): 359.57 + 55.90 = 415.47.
    for secs in [200.0, 300.0, 400.0] {
        stats.add(secs);
    }
    let sd = 12_500f64.sqrt();
    let mean_ci = 250.0 + 1.96 * sd / 2.0;
    let expected = mean_ci + sd / 2.0;
    let got = estimator.new_attempt_runtime_secs(&stats).expect("runtime");
    assert!((got - expected).abs() < 1e-9, "{got} != {expected}");
    assert!((got - 415.47).abs() < 0.01);
}

#[test]
fn simple_exp_speculator_flags_a_stagnated_attempt_first() {
    // Attempts 0 and 1 start at 0 s and report every 10 s from 0 to 250 s; the report at
    // 0 s is at the start (ignored), so each has 25 samples, from 10 s to 250 s: an
    // estimate (25 > 24), and tau = max(120, 250 - 0) = 250 from the 25th on. Two finished
    // tasks of 100 s: meanCI = 100 + 1.96 x 0 / sqrt(2) = 100, the new attempt takes
    // 100 + min(25, 0) = 100 s.
    //
    // Attempt 0 moves 0.0004 per s: every sample, the first (0.004 / 10) included, is
    // 0.0004, so the forecast is 0.0004 and est = (1 - 0.1) / 0.0004 + 250 = 2500.
    // Attempt 1 jumps to 0.9 at 10 s and stops: first forecast 0.9 / 10 = 0.09, then 23
    // samples of 0 with tau 120 and one with tau 250: forecast = 0.09 e^(-230/120)
    // e^(-10/250) = 0.0127196, est = 0.1 / 0.0127196 + 250 = 257.86 < now: skipped.
    // Its stagnation window is max(2 x 120, 360) = 360 s (the configured tau, not the
    // raised one) from its last change (10 s): from 370 s it is stagnated, est = +inf,
    // and it outranks attempt 0.
    let mut detector = HadoopSpeculator::simple_exp();
    assert_eq!(detector.name(), "hadoop-simple-exp");
    for i in 0..26 {
        let t = 10.0 * f64::from(i);
        detector.observe(&Observation::Progress(report(0, t, 0.0004 * t)));
        detector.observe(&Observation::Progress(report(
            1,
            t,
            if t >= 10.0 { 0.9 } else { 0.0 },
        )));
    }
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    detector.observe(&succeeded(1001, 0, 0.0, 100.0));
    let rows = [(0, 0, O, 0.0, 0.1), (1, 0, O, 0.0, 0.9)];
    // The estimator learns the starts at the scan. At 369 s attempt 1's estEnd 257.86 <
    // now: skipped; attempt 0 (value 2500 - 469) wins.
    assert_eq!(scan(&mut detector, &snapshot(369.0, 1, &rows)), [0]);
    assert_eq!(detector.estimator().tau_secs(AttemptId(1)), Some(250.0));
    let est = |d: &HadoopSpeculator<SimpleExponential>, a: u32, now: f64| {
        d.estimator()
            .estimated_runtime_secs(AttemptId(a), 0.0, now, 0.0)
            .expect("estimate")
    };
    assert!((est(&detector, 0, 369.0) - 2500.0).abs() < 1e-6);
    assert!((est(&detector, 1, 369.0) - 257.86).abs() < 0.01);
    assert!(!detector.estimator().is_stagnated(AttemptId(1), 369.0));
    assert_eq!(est(&detector, 1, 370.0), f64::INFINITY);
    assert_eq!(scan(&mut detector, &snapshot(400.0, 1, &rows)), [1]);
}

#[test]
fn simple_exp_speculator_with_one_finished_task_expects_a_copy_to_take_no_time() {
    // An attempt started at 0 s moving 1/300 per s, reporting every 10 s up to 250 s
    // (25 samples, all 1/300): est = (1 - 250/300) / (1/300) + 250 = 50 + 250 = 300.
    // At 260 s: with one finished task Hadoop's meanCI is 0, the copy takes 0 s, replEnd =
    // 260 < estEnd 300: flagged (value 40). With a second finished task of 100 s, meanCI =
    // 100 and replEnd = 360 >= 300: skipped.
    let mut detector = HadoopSpeculator::simple_exp();
    for i in 0..26 {
        let t = 10.0 * f64::from(i);
        detector.observe(&Observation::Progress(report(0, t, t / 300.0)));
    }
    detector.observe(&succeeded(1000, 0, 0.0, 100.0));
    let stats = detector.finished(0);
    assert_eq!(
        detector.estimator().new_attempt_runtime_secs(&stats),
        Some(0.0)
    );
    let snapshot = snapshot(260.0, 1, &[(0, 0, O, 0.0, 250.0 / 300.0)]);
    assert_eq!(scan(&mut detector, &snapshot), [0]);
    let est = detector
        .estimator()
        .estimated_runtime_secs(AttemptId(0), 0.0, 260.0, 0.0)
        .expect("estimate");
    assert!((est - 300.0).abs() < 1e-6);
    detector.observe(&succeeded(1001, 0, 0.0, 100.0));
    assert_eq!(scan(&mut detector, &snapshot), [] as [u32; 0]);
}

// ---------------------------------------------------------------------------------------
// Hadoop 1: one running attempt, mean(PS) - PS >= 0.2, run >= 60 s.

#[test]
fn hadoop1_hand_worked() {
    // Tasks of stage 0 (nothing finished or waiting): 0.9, 0.9, 0.3, 0.3, and task 4 at
    // max(0.3, its copy's 0.0) = 0.3 (sum 2.7, mean 0.54). Rows 2 and 3: 0.54 - 0.3 =
    // 0.24 >= 0.2, and their job commenced 100 s ago (its first launch): flagged, row 3
    // though it ran 50 s only (Hadoop's lag counts from the task's creation, at the job's
    // start). Row 4: its task has a copy (row 5, which is never flagged). Stage 1: one
    // task, mean = its progress.
    let rows = [
        (0, 0, O, 0.0, 0.9),
        (1, 0, O, 0.0, 0.9),
        (2, 0, O, 0.0, 0.3),
        (3, 0, O, 50.0, 0.3),
        (4, 0, O, 0.0, 0.3),
        (4, 0, S, 90.0, 0.0),
        (6, 1, O, 0.0, 0.0),
    ];
    let mut detector = Hadoop1::default();
    assert_eq!(detector.name(), "hadoop1");
    assert_eq!(scan(&mut detector, &snapshot(100.0, 2, &rows)), [2, 3]);
}

#[test]
fn hadoop1_lag_counts_from_the_jobs_first_launch_seen() {
    // Mean (0.9 + 0.9 + 0.3) / 3 = 0.7, row 2 0.4 behind. The job's first launch seen is
    // 10 s: at 65 s it has run 55 s, nothing is judged.
    let rows = [
        (0, 0, O, 10.0, 0.9),
        (1, 0, O, 10.0, 0.9),
        (2, 1, O, 30.0, 0.0),
        (3, 0, O, 10.0, 0.3),
    ];
    let mut detector = Hadoop1::default();
    assert_eq!(
        scan(&mut detector, &snapshot(65.0, 2, &rows)),
        [] as [u32; 0]
    );
    // An attempt of the job launched at 0 and killed at 20 (between scans; a kill leaves
    // the mean alone): the job has run 65 s, row 3 is flagged. The reduce (stage 1) of the
    // same job launched 35 s ago counts from the job's start too, but is alone in its
    // stage: no gap.
    detector.observe(&ended(100, 0, 0.0, 20.0, AttemptStatus::Killed));
    assert_eq!(scan(&mut detector, &snapshot(65.0, 2, &rows)), [3]);
    // The start is remembered once its rows are gone; reset forgets it.
    let later = [(4, 0, O, 60.0, 0.9), (5, 0, O, 60.0, 0.3)];
    assert_eq!(scan(&mut detector, &snapshot(70.0, 2, &later)), [1]);
    detector.reset();
    assert_eq!(
        scan(&mut detector, &snapshot(70.0, 2, &later)),
        [] as [u32; 0]
    );
}

#[test]
fn hadoop1_lag_counts_from_the_jobs_submission_where_the_engine_sends_it() {
    // The job submitted at 40 s, one of its rows dated at 0 (a host's clock behind): at
    // 70 s the job has existed 30 s, nothing is judged (from the first launch, 70 s);
    // at 100 s, 60 s: row 2, 0.4 behind the mean 0.7, is flagged.
    let rows = [
        (0, 0, O, 0.0, 0.9),
        (1, 0, O, 45.0, 0.9),
        (3, 0, O, 45.0, 0.3),
    ];
    let mut detector = Hadoop1::default();
    detector.observe(&Observation::JobSubmitted {
        job: JobId(0),
        time_secs: 40.0,
    });
    assert_eq!(
        scan(&mut detector, &snapshot(70.0, 1, &rows)),
        [] as [u32; 0]
    );
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [2]);
}

#[test]
fn hadoop1_mean_is_over_all_the_tasks_of_the_stage() {
    // Hadoop 1's averageProgress: finished tasks count 1, waiting ones 0. Three finished
    // maps, one waiting, two running (0.6 and 0.3, ran 100 s): mean = (3 + 0.6 + 0.3 + 0)
    // / 6 = 0.65; 0.65 - 0.3 = 0.35 >= 0.2: row 1 flagged (over the running tasks only,
    // 0.45 - 0.3 = 0.15 would not be). Stage 1 (reduces) counts nothing of stage 0.
    let rows = [
        (0, 0, O, 0.0, 0.6),
        (1, 0, O, 0.0, 0.3),
        (2, 1, O, 0.0, 0.3),
    ];
    let mut detector = Hadoop1::default();
    for attempt in 1000..1003 {
        detector.observe(&succeeded(attempt, 0, 0.0, 50.0));
    }
    // Neither a killed nor a failed attempt counts as finished.
    detector.observe(&ended(1003, 0, 0.0, 50.0, AttemptStatus::Killed));
    detector.observe(&ended(1004, 0, 0.0, 50.0, AttemptStatus::Failed));
    assert_eq!(detector.finished(StageId(0)), 3);
    let mut with_pending = snapshot(100.0, 2, &rows);
    with_pending.set_pending(StageId(0), 1).expect("stage 0");
    assert_eq!(scan(&mut detector, &with_pending), [1]);
    // Ten waiting: mean = 3.9 / 15 = 0.26, below both running tasks: nothing.
    with_pending.set_pending(StageId(0), 10).expect("stage 0");
    assert_eq!(scan(&mut detector, &with_pending), [] as [u32; 0]);
    // reset forgets the finished tasks: mean (0.6 + 0.3) / 2 = 0.45, nothing.
    detector.reset();
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 2, &rows)),
        [] as [u32; 0]
    );
}

#[test]
fn hadoop1_a_task_counts_once_at_its_best_attempt() {
    // Task 0 runs an original at 0.1 and a copy at 0.7: it counts once, at 0.7 (Hadoop's
    // TaskInProgress progress is its best running attempt). Mean (0.7 + 0.3 + 0.9) / 3
    // = 0.6333; task 1 (0.3): 0.3333 >= 0.2, flagged. Task 0's original has a copy: not
    // flagged. Over the originals, (0.1 + 0.3 + 0.9) / 3 = 0.4333 would not flag task 1.
    let rows = [
        (0, 0, O, 0.0, 0.1),
        (1, 0, O, 0.0, 0.3),
        (2, 0, O, 0.0, 0.9),
        (0, 0, S, 50.0, 0.7),
    ];
    let mut detector = Hadoop1::default();
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [1]);
}

/// The end of `attempt`, of `task` of stage 0, run from 0 to 90 s.
fn task_ended(attempt: u32, task: u32, role: AttemptRole, status: AttemptStatus) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(attempt),
        task: TaskId(task),
        stage: StageId(0),
        node: NodeId(0),
        role,
        start_secs: 0.0,
        end_secs: 90.0,
        status,
        input_bytes: 64_000_000,
    })
}

#[test]
fn hadoop1_a_finished_task_whose_original_still_runs_counts_once() {
    // A trace replay: task 0's copy (attempt 1000) succeeds at 90 s, its original (row 0,
    // at 0.1) is killed at 110 s, so the snapshot at 100 s still lists it. Task 0 counts
    // once, finished: mean = (1 + 0.5 + 0.9) / 3 = 0.8; task 1: 0.8 - 0.5 = 0.3 >= 0.2,
    // flagged; row 0 is a finished task's, neither averaged nor flagged. Counted twice,
    // the mean would be (1 + 0.1 + 0.5 + 0.9) / 4 = 0.625: row 0 flagged (0.525), row 1
    // not (0.125).
    let rows = [
        (0, 0, O, 0.0, 0.1),
        (1, 0, O, 0.0, 0.5),
        (2, 0, O, 0.0, 0.9),
    ];
    let mut detector = Hadoop1::default();
    detector.observe(&task_ended(1000, 0, S, AttemptStatus::Succeeded));
    assert_eq!(detector.finished(StageId(0)), 1);
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [1]);
    // Parallel, the same rows.
    let params = Hadoop1Params {
        parallelism: Parallelism::Parallel,
        ..Hadoop1Params::default()
    };
    let mut parallel = Hadoop1::new(params.check().expect("valid"));
    parallel.observe(&task_ended(1000, 0, S, AttemptStatus::Succeeded));
    assert_eq!(scan(&mut parallel, &snapshot(100.0, 1, &rows)), [1]);
    // A running copy of the finished task is left out too (no shared row counted).
    let mut with_copy = rows.to_vec();
    with_copy.push((0, 0, S, 50.0, 0.2));
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &with_copy)), [1]);
    // Once the original's kill is observed and its row gone, the same mean, 0.8.
    detector.observe(&task_ended(0, 0, O, AttemptStatus::Killed));
    assert_eq!(detector.finished(StageId(0)), 1);
    assert_eq!(scan(&mut detector, &snapshot(120.0, 1, &rows[1..])), [0]);
    // reset forgets the finished task: row 0 is running again, mean (0.1 + 0.5 + 0.9) / 3
    // = 0.5, row 0 flagged (0.4), row 1 not (0).
    detector.reset();
    assert_eq!(detector.finished(StageId(0)), 0);
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [0]);
}

#[test]
fn hadoop1_a_task_succeeding_twice_counts_once() {
    // Task 0's success is observed twice (one end reported twice), then its copy's
    // success too; one running task, task 1 at 0.65. Counted once: mean = (1 + 0.65) / 2
    // = 0.825, 0.825 - 0.65 = 0.175 < 0.2, not flagged. Counted three times, the mean
    // would be (3 + 0.65) / 4 = 0.9125 (0.2625: flagged), twice (2 + 0.65) / 3 = 0.8833
    // (0.2333: flagged).
    let rows = [(1, 0, O, 0.0, 0.65)];
    let mut detector = Hadoop1::default();
    detector.observe(&task_ended(1000, 0, O, AttemptStatus::Succeeded));
    detector.observe(&task_ended(1000, 0, O, AttemptStatus::Succeeded));
    detector.observe(&task_ended(1001, 0, S, AttemptStatus::Succeeded));
    assert_eq!(detector.finished(StageId(0)), 1);
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &rows)),
        [] as [u32; 0]
    );
    // A second task's success: mean (2 + 0.65) / 3 = 0.8833, 0.2333 >= 0.2, flagged.
    detector.observe(&task_ended(1002, 2, O, AttemptStatus::Succeeded));
    assert_eq!(detector.finished(StageId(0)), 2);
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [0]);
}

#[test]
fn hadoop1_gap_is_compared_in_binary64() {
    // 0.9 and 0.5: mean (0.9 + 0.5) / 2 = 0.7, and 0.7 - 0.5 = 0.19999999999999996 < 0.2
    // in binary64, though 0.2 in the reals: not flagged. Hadoop 1 does not flag it either
    // (its float average 0.7f minus 0.5 is 0.19999998807907104).
    assert_eq!((0.9f64 + 0.5) / 2.0 - 0.5, 0.19999999999999996);
    let rows = [(0, 0, O, 0.0, 0.9), (1, 0, O, 0.0, 0.5)];
    let mut detector = Hadoop1::default();
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &rows)),
        [] as [u32; 0]
    );
}

#[test]
fn hadoop1_gap_and_lag_are_inclusive() {
    // Mean (0.75 + 0.25) / 2 = 0.5, 0.5 - 0.25 = 0.25 exactly: flagged at gap 0.25 (`>=`).
    // The job has run exactly 60 s (its first launch 40 s), then 59 s.
    let rows = [(0, 0, O, 40.0, 0.75), (1, 0, O, 40.0, 0.25)];
    let params = Hadoop1Params {
        gap: 0.25,
        ..Hadoop1Params::default()
    };
    let mut detector = Hadoop1::new(params.check().expect("valid"));
    assert_eq!(scan(&mut detector, &snapshot(100.0, 1, &rows)), [1]);
    assert_eq!(
        scan(&mut detector, &snapshot(99.0, 1, &rows)),
        [] as [u32; 0]
    );
}

#[test]
fn hadoop1_degenerate() {
    let mut detector = Hadoop1::default();
    // Empty, one task, identical tasks, zero progress, only copies.
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &[])),
        [] as [u32; 0]
    );
    let one = [(0, 0, O, 0.0, 0.0)];
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &one)),
        [] as [u32; 0]
    );
    let same: Vec<Row> = (0..3).map(|t| (t, 0, O, 0.0, 0.1)).collect();
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &same)),
        [] as [u32; 0]
    );
    let copies = [(0, 0, S, 0.0, 0.9), (1, 0, S, 0.0, 0.1)];
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 1, &copies)),
        [] as [u32; 0]
    );
}

// ---------------------------------------------------------------------------------------
// Parameters and the conformance kit.

fn invalid_param<T: std::fmt::Debug>(result: Result<T, DetectError>) -> &'static str {
    match result {
        Err(DetectError::InvalidParam { param, .. }) => param,
        other => panic!("expected an invalid parameter, got {other:?}"),
    }
}

#[test]
fn invalid_parameters_name_the_parameter() {
    let h = HadoopParams::default();
    let cases = [
        (
            HadoopParams {
                min_allowed_copies: -1.0,
                ..h
            },
            "min_allowed_copies",
        ),
        (
            HadoopParams {
                min_allowed_copies: f64::INFINITY,
                ..h
            },
            "min_allowed_copies",
        ),
        (
            HadoopParams {
                copies_per_task: 1.5,
                ..h
            },
            "copies_per_task",
        ),
        (
            HadoopParams {
                copies_per_running_task: f64::NAN,
                ..h
            },
            "copies_per_running_task",
        ),
        (
            HadoopParams {
                min_finished_tasks: 0,
                ..h
            },
            "min_finished_tasks",
        ),
        (
            HadoopParams {
                min_finished_fraction: -0.1,
                ..h
            },
            "min_finished_fraction",
        ),
    ];
    let waits = [0.0, -9.0, f64::NAN, f64::INFINITY].map(|heartbeat_wait_secs| {
        (
            HadoopParams {
                heartbeat_wait_secs,
                ..h
            },
            "heartbeat_wait_secs",
        )
    });
    let cases = cases.into_iter().chain(waits);
    for (params, name) in cases {
        assert_eq!(invalid_param(params.check()), name);
    }
    for lambda_secs in [0.0, -1.0, f64::NAN] {
        assert_eq!(
            invalid_param(ExpSmoothedParams { lambda_secs }.check()),
            "lambda_secs"
        );
    }
    let s = SimpleExpParams::default();
    let cases = [
        (SimpleExpParams { tau_secs: 0.0, ..s }, "tau_secs"),
        (
            SimpleExpParams {
                skip_initials: 0,
                ..s
            },
            "skip_initials",
        ),
        (
            SimpleExpParams {
                min_stagnation_window_secs: f64::INFINITY,
                ..s
            },
            "min_stagnation_window_secs",
        ),
    ];
    for (params, name) in cases {
        assert_eq!(invalid_param(params.check()), name);
    }
    let d = Hadoop1Params::default();
    assert_eq!(
        invalid_param(Hadoop1Params { gap: 1.5, ..d }.check()),
        "gap"
    );
    assert_eq!(
        invalid_param(Hadoop1Params { gap: 0.0, ..d }.check()),
        "gap"
    );
    assert_eq!(
        invalid_param(
            Hadoop1Params {
                lag_secs: -1.0,
                ..d
            }
            .check()
        ),
        "lag_secs"
    );
    assert!(h.check().is_ok() && s.check().is_ok() && d.check().is_ok());
}

#[test]
fn conformance() {
    // The speculators scan sequentially (see `hadoop::speculator`): they ignore the
    // parallelism the kit asks for.
    Conformance::new(|_| HadoopSpeculator::legacy())
        .forgets_finished_stages()
        .run()
        .expect("hadoop-legacy");
    Conformance::new(|_| HadoopSpeculator::exp_smoothed())
        .forgets_finished_stages()
        .run()
        .expect("hadoop-exp-smoothed");
    Conformance::new(|_| HadoopSpeculator::simple_exp())
        .forgets_finished_stages()
        .run()
        .expect("hadoop-simple-exp");
    Conformance::new(|parallelism: Parallelism| {
        let params = Hadoop1Params {
            parallelism,
            ..Hadoop1Params::default()
        };
        Hadoop1::new(params.check().expect("valid"))
    })
    .peer_relative()
    .forgets_finished_stages()
    .run()
    .expect("hadoop1");
}
