//! Seed 004's detectors (Garraghan et al.'s offline, online and combined tests, the
//! DoS-index rule) and the oracle: hand-worked cases (the arithmetic is in the comments and
//! in `docs/formulas.md`), degenerate inputs, parameter checks and the conformance kit.

use straggler_detect::conformance::{Conformance, Row, build_snapshot};
use straggler_detect::garraghan::ProgressHistory;
use straggler_detect::{
    DetectError, Detector, DosIndex, DosIndexParams, Findings, GarraghanDetector, GarraghanMode,
    GarraghanParams, Oracle, OracleParams, Parallelism,
};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, Observation, ProgressReport,
    Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

fn check(detector: &mut impl Detector, snapshot: &Snapshot, expected: &[u32]) {
    let mut findings = Findings::default();
    detector.scan(snapshot, &mut findings);
    assert_eq!(findings.rows(), expected, "detector {}", detector.name());
}

/// One stage, one node, every row started at `start` with the given progress.
fn rows(start: f64, progress: &[f64]) -> Vec<Row> {
    progress.iter().map(|&p| (0, 0, start, p, 64e6)).collect()
}

fn garraghan(mode: GarraghanMode, segments: u32, min_elapsed_secs: f64) -> GarraghanDetector {
    let params = GarraghanParams {
        mode,
        segments,
        min_elapsed_secs,
        ..GarraghanParams::default()
    };
    GarraghanDetector::new(params.check().expect("valid parameters"))
}

/// Seed 004's Eq. 2 as a history: one attempt whose reports lie on p = 0.01 + 0.15 t (its
/// median curve is itself: from 0.01 at 0 s, which the jump from (0, 0) reaches at once).
fn eq2_history() -> ProgressHistory {
    let mut history = ProgressHistory::new();
    history.add_trajectory(
        StageId(0),
        [0.0, 2.0, 4.0, 6.0].map(|t| (t, 0.01 + 0.15 * t)),
    );
    history
}

/// A two-phase task: 0.05 per second up to 0.5 at 10 s, then 0.0125 per second up to 1 at
/// 50 s.
fn two_phase_history() -> ProgressHistory {
    let mut history = ProgressHistory::new();
    let t = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 20.0, 30.0, 40.0, 50.0];
    let p = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.625, 0.75, 0.875, 1.0];
    history.add_trajectory(StageId(0), t.into_iter().zip(p));
    history
}

// ---------------------------------------------------------------------------------------
// Garraghan et al.

#[test]
fn garraghan_offline_threshold_is_eq3() {
    // Fit of Eq. 2: 0.01 + 0.15 t. Diff 0.5 gives Eq. 3, T_S(t) = 0.01 + 0.15 (2/3) t;
    // at t = 3 s, T_S = 0.31: progress 0.30 is flagged, 0.32 is not.
    let history = eq2_history();
    let model = history.model(StageId(0), 1).expect("fitted");
    let line = model.overall().expect("two distinct times");
    approx::assert_relative_eq!(line.slope, 0.15, max_relative = 1e-12);
    approx::assert_relative_eq!(line.intercept, 0.01, max_relative = 1e-9);
    approx::assert_relative_eq!(
        model.threshold(0.3, 3.0, 0.5).expect("usable line"),
        0.31,
        max_relative = 1e-12
    );
    let mut detector = garraghan(GarraghanMode::Offline, 1, 0.0).with_history(history);
    let snapshot = build_snapshot(3.0, 1, 1, rows(0.0, &[0.30, 0.32])).expect("valid");
    check(&mut detector, &snapshot, &[0]);
}

#[test]
fn garraghan_piecewise_model_follows_the_phases() {
    // The median curve of one attempt is its own: levels q <= 0.5 at 20 q s, above at
    // 10 + 80 (q - 0.5) s. Band 0 has levels 0.01..0.50, band 1 0.51..1 (level j in band
    // ((j - 1) 2) div 100; the kink at 0.5 lies on both lines): lines 0.05 t and
    // 0.375 + 0.0125 t; the overall line through the 100 points is
    // 0.18174 + 0.018212 t. At elapsed 30 s (t / 1.5 = 20 s), the threshold is 0.625 with
    // the bands and 0.5460 with the overall line: progress 0.58 is flagged by the
    // piecewise model only. At elapsed 12 s (8 s): 0.4 and 0.3274, progress 0.35 likewise.
    let snapshot = build_snapshot(
        30.0,
        1,
        1,
        [(0, 0, 0.0, 0.58, 1.0), (0, 0, 18.0, 0.35, 1.0)],
    )
    .expect("valid");
    let mut piecewise = garraghan(GarraghanMode::Offline, 2, 0.0).with_history(two_phase_history());
    check(&mut piecewise, &snapshot, &[0, 1]);
    let mut linear = garraghan(GarraghanMode::Offline, 1, 0.0).with_history(two_phase_history());
    check(&mut linear, &snapshot, &[]);
    let model = two_phase_history().model(StageId(0), 2).expect("fitted");
    let band0 = model.band(0).expect("band 0 fitted");
    approx::assert_relative_eq!(band0.slope, 0.05, max_relative = 1e-9);
    approx::assert_relative_eq!(band0.intercept, 0.0, epsilon = 1e-12);
    let band1 = model.band(1).expect("band 1 fitted");
    approx::assert_relative_eq!(band1.slope, 0.0125, max_relative = 1e-9);
    approx::assert_relative_eq!(band1.intercept, 0.375, max_relative = 1e-9);
    let overall = model.overall().expect("overall fitted");
    approx::assert_relative_eq!(overall.slope, 0.018212, max_relative = 1e-4);
    approx::assert_relative_eq!(overall.intercept, 0.18174, max_relative = 1e-4);
}

#[test]
fn garraghan_judges_an_attempt_on_the_band_of_its_progress() {
    // A history that reaches 0.5 at 10 s, pauses, reaches 0.51 at 20 s and 1 at 59.2 s:
    // levels q <= 0.5 at 20 q s (band 0's line 0.05 t), levels 0.51..1 at 20 + 80 (q -
    // 0.51) s (band 1's line 0.26 + 0.0125 t). K = 2, Diff 0.5, at 18 s (t / 1.5 = 12 s):
    //   progress 0.45 (band 0): T_S = 0.05 x 12 = 0.6: flagged (typical time to 0.45 is
    //     9 s, and 18 > 1.5 x 9). Band 1's line, which the time 12 s > 10 s would pick,
    //     gives 0.26 + 0.15 = 0.41 < 0.45: not flagged.
    //   progress 0.62 (band 1): T_S = 0.41: not flagged (typical time 28.8 s > 18 s).
    let mut history = ProgressHistory::new();
    history.add_trajectory(
        StageId(0),
        [(0.0, 0.0), (10.0, 0.5), (20.0, 0.51), (59.2, 1.0)],
    );
    let model = history.model(StageId(0), 2).expect("fitted");
    let band0 = model.band(0).expect("band 0 fitted");
    approx::assert_relative_eq!(band0.slope, 0.05, max_relative = 1e-9);
    approx::assert_relative_eq!(band0.intercept, 0.0, epsilon = 1e-12);
    let band1 = model.band(1).expect("band 1 fitted");
    approx::assert_relative_eq!(band1.slope, 0.0125, max_relative = 1e-9);
    approx::assert_relative_eq!(band1.intercept, 0.26, max_relative = 1e-9);
    approx::assert_relative_eq!(
        model.threshold(0.45, 18.0, 0.5).expect("usable"),
        0.6,
        max_relative = 1e-9
    );
    approx::assert_relative_eq!(
        model.threshold(0.62, 18.0, 0.5).expect("usable"),
        0.41,
        max_relative = 1e-9
    );
    let snapshot = build_snapshot(18.0, 1, 1, rows(0.0, &[0.45, 0.62])).expect("valid");
    let mut detector = garraghan(GarraghanMode::Offline, 2, 0.0).with_history(history);
    check(&mut detector, &snapshot, &[0]);
}

/// Progress reports every 2 s of an attempt that runs at `1 / duration` per second.
fn linear_trajectory(duration: f64) -> Vec<(f64, f64)> {
    (1..=5)
        .map(|i| (f64::from(i) * duration / 5.0, f64::from(i) / 5.0))
        .collect()
}

#[test]
fn garraghan_model_is_the_median_task_not_the_pooled_reports() {
    // Three normal successes at 0.1/s: (2, 0.2), (4, 0.4), ..., (10, 1); one straggler at
    // 0.02/s: (10, 0.2), ..., (50, 1). Pooling the 20 points fits 0.4829 + 0.009756 t
    // (the straggler's points pull the line): at 3 s its threshold 0.4829 + 0.009756 * 2 =
    // 0.502 would flag a normal task at 0.3, and at 15 s 0.4829 + 0.009756 * 10 = 0.580
    // would miss a 2.5x slow task at 0.6. The median of the four times to reach level q
    // (10 q, 10 q, 10 q, 50 q) is 10 q: the curve is 0.1 t, the typical task. With Diff
    // 0.5: at 3 s, T_S = 0.1 * 3 / 1.5 = 0.2, so the normal task (0.3) is not flagged; at
    // 15 s, T_S = 0.1 * 15 / 1.5 = 1.0, so the slow task (0.6, 0.04/s) is.
    let mut history = ProgressHistory::new();
    for _ in 0..3 {
        history.add_trajectory(StageId(0), linear_trajectory(10.0));
    }
    history.add_trajectory(StageId(0), linear_trajectory(50.0));
    assert_eq!(history.attempts(StageId(0)), 4);
    for segments in [1, 3] {
        let model = history.model(StageId(0), segments).expect("fitted");
        let line = model.overall().expect("overall fitted");
        approx::assert_relative_eq!(line.slope, 0.1, max_relative = 1e-12);
        approx::assert_relative_eq!(line.intercept, 0.0, epsilon = 1e-12);
        for k in 0..segments as usize {
            let band = model.band(k).expect("band fitted");
            approx::assert_relative_eq!(band.slope, 0.1, max_relative = 1e-9);
        }
        approx::assert_relative_eq!(model.median_curve()[49].0, 5.0, max_relative = 1e-12);
        let snapshot = build_snapshot(15.0, 1, 1, [(0, 0, 12.0, 0.3, 1.0), (0, 0, 0.0, 0.6, 1.0)])
            .expect("valid");
        let mut detector =
            garraghan(GarraghanMode::Offline, segments, 5.0).with_history(history.clone());
        check(&mut detector, &snapshot, &[1]);
    }
}

#[test]
fn garraghan_median_curve_weighs_each_attempt_once() {
    // Two attempts reach every level at 10 q s with 5 reports each; a third, at 30 q s,
    // reports 100 times: the median of (10 q, 10 q, 30 q) is still 10 q.
    let mut history = ProgressHistory::new();
    history.add_trajectory(StageId(0), linear_trajectory(10.0));
    history.add_trajectory(StageId(0), linear_trajectory(10.0));
    history.add_trajectory(
        StageId(0),
        (1..=100).map(|i| (f64::from(i) * 0.3, f64::from(i) / 100.0)),
    );
    let line = history
        .model(StageId(0), 1)
        .and_then(|m| m.overall())
        .expect("fitted");
    approx::assert_relative_eq!(line.slope, 0.1, max_relative = 1e-12);
    // Merging two halves gives the same model as learning everything in one.
    let (mut left, mut right) = (ProgressHistory::new(), ProgressHistory::new());
    left.add_trajectory(StageId(0), linear_trajectory(10.0));
    right.add_trajectory(StageId(0), linear_trajectory(10.0));
    right.add_trajectory(
        StageId(0),
        (1..=100).map(|i| (f64::from(i) * 0.3, f64::from(i) / 100.0)),
    );
    left.merge(&right);
    assert_eq!(left.attempts(StageId(0)), 3);
    assert_eq!(left.model(StageId(0), 3), history.model(StageId(0), 3));
}

#[test]
fn garraghan_online_is_half_the_median() {
    // Even count 0.8, 0.6, 0.5, 0.2: median 0.55, bar 0.275, 0.2 flagged. Odd count with
    // 0.1 added: median 0.5, bar 0.25, 0.2 and 0.1 flagged.
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    let even = build_snapshot(100.0, 1, 1, rows(0.0, &[0.8, 0.6, 0.5, 0.2])).expect("valid");
    check(&mut online, &even, &[3]);
    let odd = build_snapshot(100.0, 1, 1, rows(0.0, &[0.8, 0.6, 0.5, 0.2, 0.1])).expect("valid");
    check(&mut online, &odd, &[3, 4]);
    // A job that commenced 4 s ago: below the 5 s before which nothing is judged.
    let young = build_snapshot(100.0, 1, 1, rows(96.0, &[0.8, 0.6, 0.5, 0.2])).expect("valid");
    check(&mut garraghan(GarraghanMode::Online, 3, 5.0), &young, &[]);
}

#[test]
fn garraghan_waits_5_s_after_the_job_commences_not_the_attempt() {
    // Section 7.1: detection commences 5 s after the job commences. Job 0's stages 0 and 1;
    // at 4 s (rows started at 0): nothing. At 100 s, stage 1's rows started at 98 (2 s
    // old) are judged, the job having commenced at 0: median 0.5, bar 0.25, 0.1 flagged.
    // The same rows in stage 2, of job 1 which commenced at 98, are not judged.
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    let early =
        build_snapshot(4.0, 1, 2, [(0, 0, 0.0, 0.5, 1.0), (0, 0, 0.0, 0.05, 1.0)]).expect("valid");
    check(&mut online, &early, &[]);
    let young_rows = [(98.0, 0.5), (98.0, 0.6), (98.0, 0.1)];
    let later = build_snapshot(
        100.0,
        1,
        4,
        [1, 2]
            .into_iter()
            .flat_map(|stage| young_rows.map(|(start, p)| (stage, 0, start, p, 1.0))),
    )
    .expect("valid");
    check(&mut online, &later, &[2]);
    // Reset forgets the job's start: the same rows are 2 s into the job.
    online.reset();
    check(&mut online, &later, &[]);
    // An attempt that ended is seen too: one that started at 0 makes the job 100 s old.
    online.observe(&ended(0, 0.0, 50.0, AttemptStatus::Succeeded));
    check(&mut online, &later, &[2]);
}

/// A snapshot at `now_secs` of one stage, index 0, of job `job`, one node, rows started at
/// `start_secs`.
fn job_snapshot(now_secs: f64, job: u32, start_secs: f64, progress: &[f64]) -> Snapshot {
    let stage = Stage {
        job: JobId(job),
        kind: TaskKind::Map,
    };
    let mut snapshot = Snapshot::new(now_secs, 1, vec![stage]).expect("valid");
    for (i, &p) in progress.iter().enumerate() {
        snapshot
            .push(SnapshotRow {
                attempt: AttemptId(i as u32),
                task: TaskId(i as u32),
                stage: StageId(0),
                node: NodeId(0),
                role: AttemptRole::Original,
                start_secs,
                progress: p,
                input_bytes: 1.0,
            })
            .expect("valid");
    }
    snapshot
}

#[test]
fn garraghan_a_job_reusing_a_stage_index_waits_its_own_5_s() {
    // The scale engine gives stage index 0 to job 0, then, once job 0 is done, to job 1.
    // Progress 0.5, 0.6, 0.1: median 0.5, bar 0.25, row 2 flagged once judged. Job 0
    // (started at 0) is judged at 10 s; job 1, started at 98, not at 100 s (2 s into it)
    // nor at 102.9 s, but at 103 s. Its start is its own, not job 0's.
    let progress = [0.5, 0.6, 0.1];
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    check(&mut online, &job_snapshot(10.0, 0, 0.0, &progress), &[2]);
    for (now, expected) in [(100.0, &[][..]), (102.9, &[]), (103.0, &[2])] {
        check(
            &mut online,
            &job_snapshot(now, 1, 98.0, &progress),
            expected,
        );
    }
    // An attempt of stage 0 that ends now belongs to job 1 (stage 0's job in the last
    // snapshot): one started at 90 makes job 1 10 s old at 100 s.
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    check(&mut online, &job_snapshot(10.0, 0, 0.0, &progress), &[2]);
    check(&mut online, &job_snapshot(100.0, 1, 98.0, &progress), &[]);
    online.observe(&ended(7, 90.0, 99.0, AttemptStatus::Succeeded));
    check(&mut online, &job_snapshot(100.0, 1, 98.0, &progress), &[2]);
    // ... and one ended before job 1's first snapshot, while stage 0 was job 0's, does not.
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    check(&mut online, &job_snapshot(10.0, 0, 0.0, &progress), &[2]);
    online.observe(&ended(7, 0.0, 50.0, AttemptStatus::Succeeded));
    check(&mut online, &job_snapshot(100.0, 1, 98.0, &progress), &[]);
    // Once stage 0 has finished, an attempt of stage 0 that ends belongs to the next job
    // given the index (job 1 here), even before that job's first snapshot.
    let mut online = garraghan(GarraghanMode::Online, 3, 5.0);
    check(&mut online, &job_snapshot(10.0, 0, 0.0, &progress), &[2]);
    online.observe(&Observation::StageFinished {
        stage: StageId(0),
        time_secs: 60.0,
    });
    // A scan before the index is given again still names job 0 there, without rows.
    check(&mut online, &job_snapshot(70.0, 0, 0.0, &[]), &[]);
    online.observe(&ended(7, 90.0, 99.0, AttemptStatus::Succeeded));
    check(&mut online, &job_snapshot(95.0, 0, 0.0, &[]), &[]);
    check(&mut online, &job_snapshot(100.0, 1, 98.0, &progress), &[2]);
}

#[test]
fn garraghan_every_band_of_fifty_is_fitted() {
    // Level j is in band ((j - 1) 50) div 100: two levels per band, so a history reaching
    // every level q at 10 q s fits all 50 bands on 0.1 t (in floating point, band 0 had
    // only 0.01 and band 29 only 0.59, as 0.58 * 50 = 28.999...).
    let mut history = ProgressHistory::new();
    history.add_trajectory(StageId(0), linear_trajectory(10.0));
    let model = history.model(StageId(0), 50).expect("fitted");
    for k in 0..50 {
        let band = model.band(k).expect("every band fitted");
        approx::assert_relative_eq!(band.slope, 0.1, max_relative = 1e-9);
    }
}

#[test]
fn garraghan_online_medians_are_per_stage() {
    // Stage 0: 0.8, 0.9, 0.3 (median 0.8, bar 0.4: row 2). Stage 1: 0.1, 0.1, 0.04 (median
    // 0.1, bar 0.05: row 5).
    let rows: Vec<Row> = [(0, 0.8), (0, 0.9), (0, 0.3), (1, 0.1), (1, 0.1), (1, 0.04)]
        .map(|(stage, p)| (stage, 0, 0.0, p, 1.0))
        .to_vec();
    let snapshot = build_snapshot(60.0, 1, 2, rows).expect("valid");
    check(
        &mut garraghan(GarraghanMode::Online, 3, 5.0),
        &snapshot,
        &[2, 5],
    );
}

#[test]
fn garraghan_combined_needs_both_tests() {
    // Eq. 3 at t = 3 s: T_S = 0.31. Progress 0.9, 0.8, 0.30, 0.05: median 0.55, bar 0.275.
    // 0.30 is below T_S but above the bar; 0.05 below both: only row 3 is flagged.
    // Offline alone flags rows 2 and 3, online alone row 3.
    let snapshot = build_snapshot(3.0, 1, 1, rows(0.0, &[0.9, 0.8, 0.30, 0.05])).expect("valid");
    let combined = garraghan(GarraghanMode::Combined, 1, 0.0).with_history(eq2_history());
    check(&mut combined.clone(), &snapshot, &[3]);
    let offline = garraghan(GarraghanMode::Offline, 1, 0.0).with_history(eq2_history());
    check(&mut offline.clone(), &snapshot, &[2, 3]);
    check(
        &mut garraghan(GarraghanMode::Online, 1, 0.0),
        &snapshot,
        &[3],
    );
}

#[test]
fn garraghan_without_a_model_flags_nothing_offline() {
    let snapshot = build_snapshot(100.0, 1, 1, rows(0.0, &[0.9, 0.8, 0.0])).expect("valid");
    check(
        &mut garraghan(GarraghanMode::Offline, 3, 5.0),
        &snapshot,
        &[],
    );
    check(
        &mut garraghan(GarraghanMode::Combined, 3, 5.0),
        &snapshot,
        &[],
    );
    check(
        &mut garraghan(GarraghanMode::Online, 3, 5.0),
        &snapshot,
        &[2],
    );
}

fn report(attempt: u32, time_secs: f64, progress: f64) -> Observation {
    Observation::Progress(ProgressReport {
        attempt: AttemptId(attempt),
        task: TaskId(attempt),
        stage: StageId(0),
        node: NodeId(0),
        time_secs,
        progress,
    })
}

fn ended(attempt: u32, start_secs: f64, end_secs: f64, status: AttemptStatus) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(attempt),
        task: TaskId(attempt),
        stage: StageId(0),
        node: NodeId(0),
        role: AttemptRole::Original,
        start_secs,
        end_secs,
        status,
        input_bytes: 64_000_000,
    })
}

#[test]
fn garraghan_learns_from_successes_only() {
    // Attempt 0 (start 100): reports (2 s, 0.2) and (4 s, 0.4), success at 10 s: points
    // (2, 0.2), (4, 0.4), (10, 1): the line 0.1 t. Attempt 1, killed, teaches nothing.
    // No history covers the stage: its model is used from one success on here.
    let params = GarraghanParams {
        mode: GarraghanMode::Offline,
        segments: 1,
        min_successes: 1,
        ..GarraghanParams::default()
    };
    let mut detector = GarraghanDetector::new(params.check().expect("valid"));
    // Scanned before it learns: no model, nothing flagged (and the stage's model, kept
    // between scans, is refitted once it learns).
    let snapshot = build_snapshot(130.0, 1, 1, rows(120.0, &[0.6, 0.7])).expect("valid");
    check(&mut detector, &snapshot, &[]);
    for o in [
        report(0, 102.0, 0.2),
        report(1, 102.0, 0.9),
        report(0, 104.0, 0.4),
        ended(0, 100.0, 110.0, AttemptStatus::Succeeded),
        ended(1, 100.0, 111.0, AttemptStatus::Killed),
    ] {
        detector.observe(&o);
    }
    // The trajectory (0, 0), (2, 0.2), (4, 0.4), (10, 1) reaches every level q at 10 q.
    assert_eq!(detector.history().attempts(StageId(0)), 1);
    let line = detector
        .history()
        .model(StageId(0), 1)
        .and_then(|m| m.overall())
        .expect("fitted");
    approx::assert_relative_eq!(line.slope, 0.1, max_relative = 1e-12);
    approx::assert_relative_eq!(line.intercept, 0.0, epsilon = 1e-12);
    // At 130 s, elapsed 10 s: T_S = 0.1 * 10 / 1.5 = 0.667; 0.6 is flagged, 0.7 is not.
    check(&mut detector, &snapshot, &[0]);
    detector.reset();
    assert_eq!(detector.history().attempts(StageId(0)), 0);
    check(&mut detector, &snapshot, &[]);
}

#[test]
fn garraghan_uses_a_stage_s_own_model_from_min_successes_on() {
    // No history. Attempt 0 succeeds in 10 s (no reports: the trajectory (0, 0), (10, 1),
    // every level q at 10 q s, the line 0.1 t). At 16 s, rows started at 0 at 0.8 (a
    // normal task of 20 s) and 0.5: T_S(16) = 0.1 x 16 / 1.5 = 1.067, both below it. With
    // min_successes 1 both are flagged; with the default 6 the model is not used yet.
    let offline = |min_successes: u32| {
        let params = GarraghanParams {
            mode: GarraghanMode::Offline,
            segments: 1,
            min_elapsed_secs: 0.0,
            min_successes,
            ..GarraghanParams::default()
        };
        GarraghanDetector::new(params.check().expect("valid"))
    };
    let snapshot = build_snapshot(16.0, 1, 1, rows(0.0, &[0.8, 0.5])).expect("valid");
    let (mut one, mut six) = (offline(1), offline(6));
    assert_eq!(GarraghanParams::default().min_successes, 6);
    one.observe(&ended(0, 0.0, 10.0, AttemptStatus::Succeeded));
    six.observe(&ended(0, 0.0, 10.0, AttemptStatus::Succeeded));
    check(&mut one, &snapshot, &[0, 1]);
    check(&mut six, &snapshot, &[]);
    // Four successes of 20 s: five in all, still none flagged under 6.
    for attempt in 1..=4 {
        six.observe(&ended(attempt, 0.0, 20.0, AttemptStatus::Succeeded));
    }
    check(&mut six, &snapshot, &[]);
    // A fifth of 20 s: six successes, the level times (10 q, 20 q x 5), median (20 q +
    // 20 q) / 2 = 20 q, the line 0.05 t: T_S(16) = 0.05 x 16 / 1.5 = 0.5333. The normal
    // task at 0.8 is not flagged, the one at 0.5 is.
    six.observe(&ended(5, 0.0, 20.0, AttemptStatus::Succeeded));
    check(&mut six, &snapshot, &[1]);
    let line = six
        .history()
        .model(StageId(0), 1)
        .and_then(|m| m.overall())
        .expect("fitted");
    approx::assert_relative_eq!(line.slope, 0.05, max_relative = 1e-12);
    // A stage the given history covers uses its model from the first attempt, as before
    // (`garraghan_offline_threshold_is_eq3`): one past attempt at 0.01 + 0.15 t.
    let params = GarraghanParams {
        mode: GarraghanMode::Offline,
        segments: 1,
        min_elapsed_secs: 0.0,
        ..GarraghanParams::default()
    };
    let mut covered =
        GarraghanDetector::new(params.check().expect("valid")).with_history(eq2_history());
    let snapshot = build_snapshot(3.0, 1, 1, rows(0.0, &[0.30, 0.32])).expect("valid");
    check(&mut covered, &snapshot, &[0]);
}

#[test]
fn garraghan_reset_goes_back_to_the_given_history() {
    let mut detector = garraghan(GarraghanMode::Offline, 1, 0.0).with_history(eq2_history());
    detector.observe(&report(0, 1.0, 0.5));
    detector.observe(&ended(0, 0.0, 2.0, AttemptStatus::Succeeded));
    assert_eq!(detector.history().attempts(StageId(0)), 2);
    detector.reset();
    assert_eq!(detector.history().attempts(StageId(0)), 1);
}

#[test]
fn garraghan_history_skips_and_counts_bad_points() {
    let mut history = ProgressHistory::new();
    history.add_trajectory(
        StageId(1),
        [
            (1.0, 0.1),
            (f64::NAN, 0.2),
            (-1.0, 0.3),
            (2.0, 1.5),
            (3.0, 0.3),
        ],
    );
    assert_eq!(history.attempts(StageId(1)), 1);
    assert_eq!(history.skipped_points(), 3);
    // An attempt with no valid point is not learnt.
    history.add_trajectory(StageId(1), [(f64::INFINITY, 0.5)]);
    assert_eq!(history.attempts(StageId(1)), 1);
    assert_eq!(history.skipped_points(), 4);
    // A stray stage id costs one entry, not a table up to it.
    history.add_trajectory(StageId(u32::MAX), [(1.0, 0.1), (2.0, 0.2)]);
    assert_eq!(history.attempts(StageId(u32::MAX)), 1);
    assert_eq!(history.attempts(StageId(0)), 0);
    assert_eq!(history.model(StageId(0), 1), None);
    // Any number of bands is taken into 1..=50: u32::MAX allocates 50, not 4e9. A history
    // that reaches 1 at 10 q s fits the last band (levels 0.99 and 1) and has no 51st.
    let mut full = ProgressHistory::new();
    full.add_trajectory(StageId(1), linear_trajectory(10.0));
    let model = full.model(StageId(1), u32::MAX).expect("fitted");
    assert!(model.band(49).is_some(), "band 49 fitted");
    assert!(model.band(50).is_none(), "no band 50");
    assert_eq!(
        model.band(49),
        full.model(StageId(1), 50).and_then(|m| m.band(49))
    );
    // A history whose progress jumped to 0.5 at start (every level reached at 0 s, one
    // time) has no line, so no usable model.
    let mut flat = ProgressHistory::new();
    flat.add_trajectory(StageId(0), [(0.0, 0.5)]);
    assert_eq!(flat.model(StageId(0), 1), None);
    let snapshot = build_snapshot(100.0, 1, 1, rows(0.0, &[0.0])).expect("valid");
    check(
        &mut garraghan(GarraghanMode::Offline, 1, 0.0).with_history(flat),
        &snapshot,
        &[],
    );
}

#[test]
fn garraghan_parameters_are_checked() {
    let bad = [
        (
            "diff",
            GarraghanParams {
                diff: -0.1,
                ..GarraghanParams::default()
            },
        ),
        (
            "diff",
            GarraghanParams {
                diff: f64::NAN,
                ..GarraghanParams::default()
            },
        ),
        (
            "online_margin",
            GarraghanParams {
                online_margin: 1.5,
                ..GarraghanParams::default()
            },
        ),
        (
            "online_margin",
            GarraghanParams {
                online_margin: -0.1,
                ..GarraghanParams::default()
            },
        ),
        (
            "min_elapsed_secs",
            GarraghanParams {
                min_elapsed_secs: -1.0,
                ..GarraghanParams::default()
            },
        ),
        (
            "segments",
            GarraghanParams {
                segments: 0,
                ..GarraghanParams::default()
            },
        ),
        (
            "segments",
            GarraghanParams {
                segments: 51,
                ..GarraghanParams::default()
            },
        ),
        (
            "segments",
            GarraghanParams {
                segments: u32::MAX,
                ..GarraghanParams::default()
            },
        ),
        (
            "min_elapsed_secs",
            GarraghanParams {
                min_elapsed_secs: f64::INFINITY,
                ..GarraghanParams::default()
            },
        ),
        (
            "min_successes",
            GarraghanParams {
                min_successes: 0,
                ..GarraghanParams::default()
            },
        ),
    ];
    for (name, params) in bad {
        assert!(
            matches!(params.check(), Err(DetectError::InvalidParam { param, .. }) if param == name),
            "{params:?} should be refused naming {name}"
        );
    }
    assert!(GarraghanParams::default().check().is_ok());
    let most = GarraghanParams {
        segments: 50,
        ..GarraghanParams::default()
    };
    assert!(most.check().is_ok());
}

#[test]
fn garraghan_names() {
    assert_eq!(
        garraghan(GarraghanMode::Combined, 3, 5.0).name(),
        "garraghan"
    );
    assert_eq!(
        garraghan(GarraghanMode::Offline, 3, 5.0).name(),
        "garraghan-offline"
    );
    assert_eq!(
        garraghan(GarraghanMode::Online, 3, 5.0).name(),
        "garraghan-online"
    );
}

fn garraghan_at(mode: GarraghanMode, parallelism: Parallelism) -> GarraghanDetector {
    // A history of a task at 1/600 per second (the conformance snapshots' pace).
    let mut history = ProgressHistory::new();
    history.add_trajectory(
        StageId(0),
        (0..=60).map(|i| (f64::from(i) * 10.0, f64::from(i) / 60.0)),
    );
    history.add_trajectory(
        StageId(1),
        (0..=60).map(|i| (f64::from(i) * 20.0, f64::from(i) / 60.0)),
    );
    let params = GarraghanParams {
        mode,
        parallelism,
        ..GarraghanParams::default()
    };
    GarraghanDetector::new(params.check().expect("valid")).with_history(history)
}

#[test]
fn garraghan_passes_the_conformance_kit() {
    Conformance::new(|p| garraghan_at(GarraghanMode::Online, p))
        .peer_relative()
        .forgets_finished_stages()
        .run()
        .expect("online");
    Conformance::new(|p| garraghan_at(GarraghanMode::Offline, p))
        .forgets_finished_stages()
        .run()
        .expect("offline");
    Conformance::new(|p| garraghan_at(GarraghanMode::Combined, p))
        .peer_relative()
        .forgets_finished_stages()
        .run()
        .expect("combined");
    Conformance::new(|_| GarraghanDetector::default())
        .peer_relative()
        .forgets_finished_stages()
        .run()
        .expect("combined without history");
}

// ---------------------------------------------------------------------------------------
// DoS-index

fn dos(threshold: f64) -> DosIndex {
    let params = DosIndexParams {
        threshold,
        ..DosIndexParams::default()
    };
    DosIndex::new(params.check().expect("valid"))
}

/// At now 100, tasks 0, 1, 2 started at 0, 50, 80 (durations 100, 50, 20 s) on 100, 100
/// and 10 bytes.
fn three_tasks() -> Snapshot {
    build_snapshot(
        100.0,
        1,
        1,
        [
            (0, 0, 0.0, 0.5, 100.0),
            (0, 0, 50.0, 0.5, 100.0),
            (0, 0, 80.0, 0.5, 10.0),
        ],
    )
    .expect("valid")
}

#[test]
fn dos_index_flags_a_small_input_at_its_first_scan() {
    // Three tasks started at 0, scanned at 1 s, on 100, 100 and 30 B: 3 s / 230 B, the
    // third index (1 / 30) / (3 / 230) = 230 / 90 = 2.556 >= 2.5: flagged, though it is
    // at progress 0.9 and the others at 0.1 (the index is mean input / own input while
    // every task has run as long). On 31 B: (1 / 31) / (3 / 231) = 77 / 31 = 2.484, not.
    let at_one_second = |small_input: f64| {
        build_snapshot(
            1.0,
            1,
            1,
            [
                (0, 0, 0.0, 0.1, 100.0),
                (0, 0, 0.0, 0.1, 100.0),
                (0, 0, 0.0, 0.9, small_input),
            ],
        )
        .expect("valid")
    };
    check(&mut dos(2.5), &at_one_second(30.0), &[2]);
    check(&mut dos(2.5), &at_one_second(31.0), &[]);
    // The indices, as Eq. 1 gives them: flagged at 230 / 90, not a hair above.
    check(&mut dos(230.0 / 90.0), &at_one_second(30.0), &[2]);
    check(&mut dos(230.0 / 90.0 + 1e-9), &at_one_second(30.0), &[]);
    check(&mut dos(77.0 / 31.0 - 1e-9), &at_one_second(31.0), &[2]);
    check(&mut dos(77.0 / 31.0 + 1e-9), &at_one_second(31.0), &[]);
}

#[test]
fn dos_index_is_time_per_byte_against_the_stage() {
    // now 100, starts 0, 50, 80 (durations 100, 50, 20), inputs 100, 100, 10 bytes:
    // 170 s / 210 B = 0.8095 s/B; indices 1.235, 0.618, 2.47: none reaches 2.5.
    let snapshot = three_tasks();
    let mut detector = dos(2.5);
    check(&mut detector, &snapshot, &[]);
    // A success of 10 s on 100 B: 180 s / 310 B = 0.5806 s/B; indices 1.722, 0.861, 3.444:
    // the third is flagged at 2.5, not at 10.
    let end = AttemptEnd {
        attempt: AttemptId(9),
        task: TaskId(9),
        stage: StageId(0),
        node: NodeId(0),
        role: AttemptRole::Original,
        start_secs: 0.0,
        end_secs: 10.0,
        status: AttemptStatus::Succeeded,
        input_bytes: 100,
    };
    let success = Observation::AttemptEnded(end);
    detector.observe(&success);
    check(&mut detector, &snapshot, &[2]);
    // The same task's second success counts once; a success of a stage the snapshot
    // does not have changes nothing.
    detector.observe(&success);
    detector.observe(&Observation::AttemptEnded(AttemptEnd {
        task: TaskId(10),
        stage: StageId(u32::MAX),
        ..end
    }));
    check(&mut detector, &snapshot, &[2]);
    let mut diagnosis = dos(10.0);
    diagnosis.observe(&success);
    check(&mut diagnosis, &snapshot, &[]);
    detector.reset();
    check(&mut detector, &snapshot, &[]);
}

#[test]
fn dos_index_leaves_copies_and_empty_inputs_out() {
    // At 100 s: originals of 100 s on 100 B (1 s/B) and 50 s on 10 B (5 s/B), a row of 0 B
    // started at 0, and a copy of the second task started at 60 (40 s on its 10 B, 4 s/B).
    // Counted: the originals with input, 150 s / 110 B = 1.3636 s/B; indices 0.733, 3.667,
    // (the copy's, were it judged, 2.933). Flagged: row 1 at 2.5 and at 3.5, nobody at 10;
    // never the copy, whose index reaches 2.5.
    // Were the copy counted, 190 s / 120 B = 1.5833 s/B and row 1's index 3.158: not
    // flagged at 3.5. Were the 0 B row counted, 250 s / 110 B = 2.2727 s/B and row 1's
    // index 2.2: not flagged at 2.5.
    let mut snapshot = build_snapshot(
        100.0,
        1,
        1,
        [
            (0, 0, 0.0, 0.5, 100.0),
            (0, 0, 50.0, 0.5, 10.0),
            (0, 0, 0.0, 0.5, 0.0),
        ],
    )
    .expect("valid");
    snapshot
        .push(SnapshotRow {
            attempt: AttemptId(3),
            task: TaskId(1),
            stage: StageId(0),
            node: NodeId(0),
            role: AttemptRole::Speculative,
            start_secs: 60.0,
            progress: 0.1,
            input_bytes: 10.0,
        })
        .expect("valid");
    check(&mut dos(2.5), &snapshot, &[1]);
    check(&mut dos(3.5), &snapshot, &[1]);
    check(&mut dos(10.0), &snapshot, &[]);
}

#[test]
fn dos_index_counts_a_task_whose_copy_won_once() {
    // The first snapshot above (tasks 0, 1, 2: 100 s on 100 B, 50 s on 100 B, 20 s on
    // 10 B) after task 2's copy succeeded (10 s on 10 B) while its original still runs:
    // 160 s / 210 B = 0.7619 s/B; indices 1.3125 and 0.656; row 2 is not judged (its
    // index would be 2.625). Were the original counted too, 180 s / 220 B = 0.8182 s/B:
    // row 0 at 1.222, below 1.3, and row 2 at 2.444, below 2.5.
    let snapshot = three_tasks();
    let copy_won = Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(7),
        task: TaskId(2),
        stage: StageId(0),
        node: NodeId(0),
        role: AttemptRole::Speculative,
        start_secs: 85.0,
        end_secs: 95.0,
        status: AttemptStatus::Succeeded,
        input_bytes: 10,
    });
    for (threshold, expected) in [(2.5, &[][..]), (1.3, &[0])] {
        let mut detector = dos(threshold);
        detector.observe(&copy_won);
        check(&mut detector, &snapshot, expected);
    }
}

#[test]
fn dos_index_flags_a_row_whose_bar_would_overflow() {
    // At 1 s, three tasks started at 0 on 1e-308, 1e-308 and 5e-324 B (valid: a snapshot's
    // input is any finite size >= 0): 3 s / 2e-308 B = 1.5e308 s/B, finite. The indices:
    // 1e308 / 1.5e308 = 0.667 twice, and (1 / 5e-324) / 1.5e308 = +inf for the third,
    // flagged at 2.5 and at 10. The bar 2.5 x 1.5e308 overflows: compared with it, the
    // stage flagged nothing.
    let snapshot = build_snapshot(
        1.0,
        1,
        1,
        [
            (0, 0, 0.0, 0.5, 1e-308),
            (0, 0, 0.0, 0.5, 1e-308),
            (0, 0, 0.0, 0.5, 5e-324),
        ],
    )
    .expect("valid");
    assert!((3.0f64 / (2e-308 + 5e-324)).is_finite() && (2.5 * (3.0f64 / 2e-308)).is_infinite());
    check(&mut dos(2.5), &snapshot, &[2]);
    check(&mut dos(10.0), &snapshot, &[2]);
    // At a threshold of 0.5 every index reaches it (0.667 >= 0.5), through the quotient.
    check(&mut dos(0.5), &snapshot, &[0, 1, 2]);
    // The same rows on inputs a thousand times larger: a finite bar, nothing changed.
    let snapshot = build_snapshot(
        1.0,
        1,
        1,
        [
            (0, 0, 0.0, 0.5, 1e-305),
            (0, 0, 0.0, 0.5, 1e-305),
            (0, 0, 0.0, 0.5, 5e-321),
        ],
    )
    .expect("valid");
    check(&mut dos(2.5), &snapshot, &[2]);
}

#[test]
fn dos_index_names_and_parameters() {
    assert_eq!(dos(2.5).name(), "dos-index");
    assert_eq!(
        DosIndex::new(DosIndexParams::diagnosis().check().expect("valid")).name(),
        "dos-index-10"
    );
    assert_eq!(dos(4.0).name(), "dos-index-4");
    for threshold in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let params = DosIndexParams {
            threshold,
            ..DosIndexParams::default()
        };
        assert!(
            matches!(
                params.check(),
                Err(DetectError::InvalidParam {
                    param: "threshold",
                    ..
                })
            ),
            "{threshold}"
        );
    }
}

#[test]
fn dos_index_passes_the_conformance_kit() {
    for threshold in [2.5, 10.0] {
        Conformance::new(|parallelism| {
            DosIndex::new(
                DosIndexParams {
                    threshold,
                    parallelism,
                }
                .check()
                .expect("valid"),
            )
        })
        .peer_relative()
        .forgets_finished_stages()
        .run()
        .expect("dos-index");
    }
}

// ---------------------------------------------------------------------------------------
// Oracle

fn oracle(fraction: f64, stragglers: &[(u32, f64)]) -> Result<Oracle, DetectError> {
    let params = OracleParams {
        fraction,
        ..OracleParams::default()
    };
    Oracle::new(
        params.check()?,
        stragglers.iter().map(|&(t, e)| (TaskId(t), e)),
    )
}

fn row(task: u32, role: AttemptRole, start_secs: f64) -> SnapshotRow {
    SnapshotRow {
        attempt: AttemptId(task + 100 * u32::from(role == AttemptRole::Speculative)),
        task: TaskId(task),
        stage: StageId(0),
        node: NodeId(0),
        role,
        start_secs,
        progress: 0.5,
        input_bytes: 1.0,
    }
}

#[test]
fn oracle_flags_stragglers_at_the_fraction_of_their_run() {
    // Stragglers: task 1 (100 s) and task 3 (40 s); fraction 0.5: flagged from 50 s and
    // 20 s of elapsed time. At now = 60: task 0 (no straggler) no; task 1 started at 0
    // (60 s) yes; task 3 started at 30 (30 s) yes; the copy of task 1 no; task 7 (beyond
    // every known task) no. Task 1 started at 20 (40 s) would not be.
    let stages = vec![Stage {
        job: JobId(0),
        kind: TaskKind::Map,
    }];
    let mut snapshot = Snapshot::new(60.0, 1, stages.clone()).expect("valid");
    for r in [
        row(0, AttemptRole::Original, 0.0),
        row(1, AttemptRole::Original, 0.0),
        row(3, AttemptRole::Original, 30.0),
        row(1, AttemptRole::Speculative, 0.0),
        row(7, AttemptRole::Original, 0.0),
    ] {
        snapshot.push(r).expect("valid");
    }
    let mut detector = oracle(0.5, &[(1, 100.0), (3, 40.0)]).expect("valid");
    assert_eq!(detector.stragglers(), 2);
    check(&mut detector, &snapshot, &[1, 2]);
    let mut later = Snapshot::new(60.0, 1, stages.clone()).expect("valid");
    later
        .push(row(1, AttemptRole::Original, 20.0))
        .expect("valid");
    check(&mut detector, &later, &[]);
    // At fraction 0.6, task 1 of 100 s is flagged from 60 s of elapsed time (the boundary
    // counts); of 100.5 s, from 60.3 s.
    check(
        &mut oracle(0.6, &[(1, 100.0)]).expect("valid"),
        &snapshot,
        &[1],
    );
    check(
        &mut oracle(0.6, &[(1, 100.5)]).expect("valid"),
        &snapshot,
        &[],
    );
    // A task id as large as it gets costs one entry (a table up to it would be 32 GiB).
    let mut far = oracle(0.5, &[(u32::MAX, 10.0), (1, 100.0)]).expect("valid");
    assert_eq!(far.stragglers(), 2);
    check(&mut far, &snapshot, &[1]);
    let mut last = Snapshot::new(60.0, 1, vec![stages[0]]).expect("valid");
    last.push(row(u32::MAX, AttemptRole::Original, 50.0))
        .expect("valid");
    check(&mut far, &last, &[0]);
}

#[test]
fn oracle_parameters_and_times_are_checked() {
    // Fraction 1 would flag an undisturbed original only at the instant it ends, when it
    // has left the snapshot: rejected with the rest.
    for fraction in [0.0, -0.5, 1.0, 1.5, f64::NAN] {
        assert!(oracle(fraction, &[]).is_err(), "{fraction}");
    }
    assert!(oracle(0.99, &[]).is_ok());
    for exec in [-1.0, f64::NAN, f64::INFINITY] {
        let error = oracle(0.5, &[(0, 1.0), (1, exec)]).expect_err("bad time");
        assert!(matches!(error, DetectError::InvalidParam { .. }));
    }
    // The last time given for a task wins.
    let snapshot = build_snapshot(10.0, 1, 1, [(0, 0, 0.0, 0.5, 1.0)]).expect("valid");
    check(
        &mut oracle(0.5, &[(0, 100.0), (0, 20.0)]).expect("valid"),
        &snapshot,
        &[0],
    );
}

#[test]
fn oracle_passes_the_conformance_kit() {
    let stragglers: Vec<(TaskId, f64)> = (0..30_000)
        .filter(|t| t % 7 == 0)
        .map(|t| (TaskId(t), 500.0 + f64::from(t % 13)))
        .collect();
    Conformance::new(|parallelism| {
        let params = OracleParams {
            fraction: 0.3,
            parallelism,
        };
        Oracle::new(params.check().expect("valid"), stragglers.iter().copied()).expect("valid")
    })
    .run()
    .expect("oracle");
}
