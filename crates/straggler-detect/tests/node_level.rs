//! Tests of the node-level detectors of the seeds: eSplash (seed 001, [`ESplash`]) and
//! DSB (seed 002, [`Dsb`]), on cases worked by hand, degenerate inputs, parameter checks,
//! the conformance kit, and the kit's checks repeated on detectors that have learnt a
//! history with slow nodes planted (the kit's own histories draw every node alike).
//!
//! A row here is `(node, role, start_secs, progress)`, all of stage 0 unless said.

use straggler_detect::conformance::{Conformance, SplitMix64, build_snapshot};
use straggler_detect::{
    CheckedDsbParams, DetectError, Detector, Dsb, DsbOver, DsbParams, ESplash, ESplashParams,
    Findings, HadoopSpeculator, SlowNodeRule, ZahariaLate,
};
use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, NodeId, Observation, ProgressReport,
    Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

const O: AttemptRole = AttemptRole::Original;
const S: AttemptRole = AttemptRole::Speculative;

/// A snapshot at `now` of one stage on `node_count` nodes; task and attempt ids are the row
/// indices.
fn snapshot(now: f64, node_count: u32, rows: &[(u32, AttemptRole, f64, f64)]) -> Snapshot {
    let stages = vec![
        Stage {
            job: JobId(0),
            kind: TaskKind::Map,
        },
        Stage {
            job: JobId(0),
            kind: TaskKind::Reduce,
        },
    ];
    let mut snapshot = Snapshot::new(now, node_count, stages).expect("valid snapshot");
    for (i, &(node, role, start_secs, progress)) in rows.iter().enumerate() {
        snapshot
            .push(SnapshotRow {
                attempt: AttemptId(i as u32),
                task: TaskId(i as u32),
                stage: StageId(0),
                node: NodeId(node),
                role,
                start_secs,
                progress,
                input_bytes: 64e6,
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

/// A success of an attempt of stage `stage` on `node` that ran `[end - duration, end]`.
fn success(node: u32, stage: u32, end_secs: f64, duration_secs: f64) -> Observation {
    ended(
        node,
        stage,
        end_secs,
        duration_secs,
        AttemptStatus::Succeeded,
    )
}

/// A success of a map (stage 0) on `node` that ran from `start_secs` to `end_secs`, both as
/// given (`success` takes the start from the end and the duration, which rounds).
fn ran(node: u32, start_secs: f64, end_secs: f64) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(0),
        task: TaskId(0),
        stage: StageId(0),
        node: NodeId(node),
        role: AttemptRole::Original,
        start_secs,
        end_secs,
        status: AttemptStatus::Succeeded,
        input_bytes: 64_000_000,
    })
}

fn ended(
    node: u32,
    stage: u32,
    end_secs: f64,
    duration_secs: f64,
    status: AttemptStatus,
) -> Observation {
    Observation::AttemptEnded(AttemptEnd {
        attempt: AttemptId(0),
        task: TaskId(0),
        stage: StageId(stage),
        node: NodeId(node),
        role: AttemptRole::Original,
        start_secs: end_secs - duration_secs,
        end_secs,
        status,
        input_bytes: 64_000_000,
    })
}

fn nodes(ids: &[u32]) -> Vec<NodeId> {
    ids.iter().map(|&n| NodeId(n)).collect()
}

// ---------------------------------------------------------------------------------------
// eSplash

fn esplash(params: ESplashParams) -> ESplash {
    ESplash::new(params.check().expect("valid eSplash parameters"))
}

/// Nodes 0 and 1 finished maps in 9, 11 and 11, 13 s; nodes 2 and 3 in 19, 21 and 21, 23 s.
fn esplash_with_history() -> ESplash {
    let mut detector = esplash(ESplashParams {
        levels: 2,
        ..ESplashParams::default()
    });
    for (node, durations) in [
        (0, [9.0, 11.0]),
        (1, [11.0, 13.0]),
        (2, [19.0, 21.0]),
        (3, [21.0, 23.0]),
    ] {
        for d in durations {
            detector.observe(&success(node, 0, 50.0, d));
        }
        // A failure and a killed attempt teach nothing.
        detector.observe(&ended(node, 0, 50.0, 1000.0, AttemptStatus::Killed));
        detector.observe(&ended(node, 0, 50.0, 1000.0, AttemptStatus::Failed));
    }
    detector
}

/// The rows of `esplash_levels_straggler_values_and_min_levels` (one of each case on the
/// four nodes of `esplash_with_history`), for a snapshot at 100 s.
fn levels_rows() -> [(u32, AttemptRole, f64, f64); 6] {
    [
        (0, O, 95.0, 0.5),
        (1, O, 90.0, 0.25),
        (2, O, 90.0, 0.5),
        (3, O, 80.0, 0.5),
        (3, O, 90.0, 0.0),
        (3, O, 100.0, 0.0),
    ]
}

/// The levels of nodes `0..count`.
fn node_levels(detector: &ESplash, count: u32) -> Vec<Option<u32>> {
    (0..count).map(|n| detector.level(NodeId(n))).collect()
}

#[test]
fn esplash_levels_straggler_values_and_min_levels() {
    // Performance vectors (one task type): 10, 12, 20, 22 s; singleton groups; k = 2
    // starts from 10 and 22: {10, 12} and {20, 22}, centres 11 and 21, stable. Level 0
    // (slow) = nodes 2, 3; level 1 (fast) = nodes 0, 1.
    // ST: level 1 durations 9, 11, 11, 13: mu = 11, sigma = sqrt(8 / 4) = sqrt 2;
    //     level 0 durations 19, 21, 21, 23: mu = 21, sigma = sqrt 2.
    // Snapshot at 100 s:
    //   r0 node 0, start 95, p 0.5:  elapsed 5,  PR 0.1,   EstT 10
    //   r1 node 1, start 90, p 0.25: elapsed 10, PR 0.025, EstT 40
    //   r2 node 2, start 90, p 0.5:  elapsed 10, PR 0.05,  EstT 20
    //   r3 node 3, start 80, p 0.5:  elapsed 20, PR 0.025, EstT 40
    //   r4 node 3, start 90, p 0:    no rate (no term), time left unbounded
    //   r5 node 3, start 100, p 0:   started now: nothing known
    // PR(1) = (0.1 + 0.025) / 2 = 0.0625, PR(0) = (0.05 + 0.025) / 2 = 0.0375.
    // SV(0) = 0.0625 / 0.1 = 0.625 (EstT 10 < 11: no z-term)
    // SV(1) = 0.0625 / 0.025 + (40 - 11) / sqrt 2 = 2.5 + 20.51 = 23.01 > 3: straggler
    // SV(2) = 0.0375 / 0.05 = 0.75 (EstT 20 < 21): slow by nature, not a straggler
    // SV(3) = 0.0375 / 0.025 + (40 - 21) / sqrt 2 = 1.5 + 13.44 = 14.94 > 3: straggler
    // Hosts: C(0) = 1 (node 2), C(1) = 1 (node 0).
    // Algorithm 3: level 1: ExpT_1 = 11, minL = 1. Level 0: ExpT_0 = (21 + 11) / 2 = 16,
    // ExpT_1 = 11: minL = 1, bar 11.
    // r1: time left 10 (1 - 0.25) / 0.25 = 30 > 11: flagged. r3: 20 > 11: flagged.
    // r4: unbounded > 11: flagged. r5: not flagged.
    let mut detector = esplash_with_history();
    let rows = levels_rows();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(detector.level_count(), 2);
    let levels = node_levels(&detector, 5);
    assert_eq!(levels, [Some(1), Some(1), Some(0), Some(0), None]);
    assert_eq!(findings.rows(), &[1, 3, 4]);
    assert_eq!(findings.slow_nodes(), nodes(&[1, 3]).as_slice());
    assert_eq!(detector.min_levels(), &[(1, 1), (3, 1), (4, 1)]);
}

#[test]
fn esplash_keeps_a_finished_stage_as_evidence_and_starts_its_index_afresh() {
    // The history of `esplash_levels_straggler_values_and_min_levels`, then stage 0
    // finishes and the same rows come as a new stage at index 0. The nodes keep their
    // levels (the finished stage stays a dimension), but the new stage has no statistics:
    // no z-term and no usual time, so SV(1) = 2.5 and SV(3) = 1.5, both below 3, and
    // nothing is flagged (rows 1, 3 and 4 were, against the finished stage's times).
    let mut detector = esplash_with_history();
    let finished = |stage: u32, time_secs: f64| Observation::StageFinished {
        stage: StageId(stage),
        time_secs,
    };
    detector.observe(&finished(0, 60.0));
    let rows = levels_rows();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    let levels = node_levels(&detector, 4);
    assert_eq!(levels, [Some(1), Some(1), Some(0), Some(0)]);
    assert!(findings.rows().is_empty(), "{:?}", findings.rows());
    assert!(findings.slow_nodes().is_empty());
    // Sixteen more stages finish, each with one success on node 0 only: the first
    // finished stage's column is the seventeenth kept and leaves, and with it the
    // evidence on nodes 1 to 3, which no longer get a level.
    for stage in 1..=16 {
        detector.observe(&success(0, stage, 200.0, 10.0));
        detector.observe(&finished(stage, 200.0));
    }
    scan(&mut detector, &snapshot(1000.0, 4, &rows));
    let levels = node_levels(&detector, 4);
    assert_eq!(levels, [Some(0), None, None, None]);
}

#[test]
fn esplash_breaks_a_tie_of_stages_on_their_first_success_not_on_a_reused_column() {
    // Stage 0 succeeds on node 5 (column 0) and finishes. Stage 100 succeeds on nodes 0
    // and 1 (column 1). Stages 1 to 16 each succeed on node 5 and finish (columns 2 to
    // 17): the seventeenth finished column, stage 0's column 0, is emptied and freed.
    // Stage 200 then succeeds on nodes 2 and 3 and gets column 0 back. Stages 100 and 200
    // tie for the most nodes (two each); stage 100's first success came first, so its
    // nodes 0 and 1 are the ones classified (by the lowest column, stage 200's nodes 2 and
    // 3 would be).
    let mut detector = esplash(ESplashParams {
        levels: 2,
        ..ESplashParams::default()
    });
    let finished = |stage: u32| Observation::StageFinished {
        stage: StageId(stage),
        time_secs: 100.0,
    };
    detector.observe(&success(5, 0, 10.0, 10.0));
    detector.observe(&finished(0));
    detector.observe(&success(0, 100, 20.0, 10.0));
    detector.observe(&success(1, 100, 20.0, 20.0));
    for stage in 1..=16 {
        detector.observe(&success(5, stage, 30.0, 10.0));
        detector.observe(&finished(stage));
    }
    detector.observe(&success(2, 200, 40.0, 10.0));
    detector.observe(&success(3, 200, 40.0, 20.0));
    scan(&mut detector, &snapshot(1000.0, 6, &[]));
    let levels = node_levels(&detector, 6);
    assert_eq!(levels, [Some(1), Some(0), None, None, None, None]);
}

#[test]
fn esplash_times_progress_at_its_report() {
    // The rows of `esplash_levels_straggler_values_and_min_levels`, but r3's progress 0.5
    // was reported at 90 s: elapsed 10, PR 0.05, EstT 20 < 21. PR(0) = (0.05 + 0.05) / 2:
    // SV(2) = SV(3) = 1: node 3 is no straggler, and r4 is not flagged. Node 1 is as before.
    let mut detector = esplash_with_history();
    detector.observe(&Observation::Progress(ProgressReport {
        attempt: AttemptId(3),
        task: TaskId(3),
        stage: StageId(0),
        node: NodeId(3),
        time_secs: 90.0,
        progress: 0.5,
    }));
    // A report of another progress value is not used (r1 reported 0.2 at 95 s).
    detector.observe(&Observation::Progress(ProgressReport {
        attempt: AttemptId(1),
        task: TaskId(1),
        stage: StageId(0),
        node: NodeId(1),
        time_secs: 95.0,
        progress: 0.2,
    }));
    let rows = levels_rows();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice());
}

#[test]
fn esplash_excludes_straggler_nodes_from_hosting() {
    // The same history; now both fast nodes run slow tasks:
    //   r0 node 0, start 90, p 0.25 and r1 node 1, start 90, p 0.25: PR 0.025, EstT 40
    //   r2 node 2, start 90, p 0.5 (PR 0.05, EstT 20), r3 node 3, start 80, p 0.5 (PR
    //   0.025, EstT 40).
    // PR(1) = 0.025: SV(0) = SV(1) = 1 + (40 - 11) / sqrt 2 = 21.5: stragglers.
    // SV(2) = 0.75, SV(3) = 14.94 as before. Hosts: C(0) = 1, C(1) = 0.
    // Level 1 tasks: no level >= 1 can host: no request. Level 0: ExpT_0 = 21 (only
    // level 0 hosts), ExpT_1 undefined: minL = 0, bar 21; r3's time left 20 < 21.
    let mut detector = esplash_with_history();
    let rows = [
        (0, O, 90.0, 0.25),
        (1, O, 90.0, 0.25),
        (2, O, 90.0, 0.5),
        (3, O, 80.0, 0.5),
    ];
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.rows(), &[] as &[u32]);
    assert_eq!(findings.slow_nodes(), nodes(&[0, 1, 3]).as_slice());
    // r3 started at 50 instead (elapsed 50, p 0.5: PR 0.01, EstT 100, time left 50):
    // PR(0) = (0.05 + 0.01) / 2 = 0.03; SV(2) = 0.6, SV(3) = 3 + (100 - 21) / sqrt 2 =
    // 58.9. Level 0 still has one host: minL = 0, bar 21 < 50: flagged, on level 0.
    let rows = [
        (0, O, 90.0, 0.25),
        (1, O, 90.0, 0.25),
        (2, O, 90.0, 0.5),
        (3, O, 50.0, 0.5),
    ];
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.rows(), &[3]);
    assert_eq!(findings.slow_nodes(), nodes(&[0, 1, 3]).as_slice());
    assert_eq!(detector.min_levels(), &[(3, 0)]);
}

/// With far more nodes than rows, eSplash sums the straggler values by the numbers of the
/// nodes its rows name: the findings are those of the same rows on as few nodes. The same
/// history; node 3 runs a task started at 50 (PR 0.01, EstT 100, time left 50), nodes 0
/// and 1 one each at 90 with progress 0.25 (SV 21.5: stragglers), and node 2 (level 0)
/// runs nothing. SV(3) = 0.01 x 100 + (100 - 21) / sqrt 2 = 56.9: a straggler. Node 2,
/// though no row names it, is level 0's one host (C(0) = 1, C(1) = 0): minL = 0, bar 21 <
/// 50, and row 0 (node 3, listed first, so that the nodes' numbers are not their order)
/// is flagged, on level 0.
#[test]
fn esplash_on_many_more_nodes_than_rows_finds_what_it_finds_on_few() {
    let rows = [(3, O, 50.0, 0.5), (0, O, 90.0, 0.25), (1, O, 90.0, 0.25)];
    // 4 nodes: by node; 7 and 10^5: by number (3 rows x 2 < nodes).
    for node_count in [4, 7, 100_000] {
        let mut detector = esplash_with_history();
        for _ in 0..2 {
            let findings = scan(&mut detector, &snapshot(100.0, node_count, &rows));
            assert_eq!(findings.rows(), &[0], "{node_count} nodes");
            assert_eq!(findings.slow_nodes(), nodes(&[0, 1, 3]).as_slice());
            assert_eq!(detector.min_levels(), &[(0, 0)]);
        }
    }
}

#[test]
fn esplash_classifies_nodes_again_at_most_every_interval() {
    // Levels at 100 s as in `esplash_levels_straggler_values_and_min_levels`: node 2 in
    // level 0 (PV 20). Node 2 then finishes six maps of 1 s: PV (19 + 21 + 6) / 8 = 5.75.
    // At 110 s (< 100 + 30) the levels stand (the statistics follow). At 130 s nodes are
    // classified again: PVs 10, 12, 5.75, 22; k = 2 starts from 5.75 and 22; 10 and 12
    // are closer to 5.75: nodes 0, 1, 2 form level 1, node 3 alone is level 0.
    let mut detector = esplash_with_history();
    let rows = [(0, O, 95.0, 0.5)];
    scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(detector.level(NodeId(2)), Some(0));
    for _ in 0..6 {
        detector.observe(&success(2, 0, 105.0, 1.0));
    }
    scan(&mut detector, &snapshot(110.0, 4, &rows));
    assert_eq!(detector.level(NodeId(2)), Some(0));
    scan(&mut detector, &snapshot(130.0, 4, &rows));
    let levels = node_levels(&detector, 4);
    assert_eq!(levels, [Some(1), Some(1), Some(1), Some(0)]);
}

#[test]
fn esplash_needs_history_and_skips_copies() {
    // Without a success there are no levels: nothing is judged.
    let mut fresh = esplash(ESplashParams::default());
    let rows = [(0, O, 0.0, 0.01), (1, O, 90.0, 0.9)];
    let findings = scan(&mut fresh, &snapshot(100.0, 2, &rows));
    assert_eq!(findings, Findings::default());
    assert_eq!(fresh.level_count(), 0);
    // A copy on a straggler node is not flagged (r2, the same as r1 but a copy: PR(1) =
    // (0.1 + 0.025 + 0.025) / 3 = 0.05, SV(1) = 0.05 / 0.025 + 20.51 = 22.51).
    let mut detector = esplash_with_history();
    let rows = [(0, O, 95.0, 0.5), (1, O, 90.0, 0.25), (1, S, 90.0, 0.25)];
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.rows(), &[1]);
    // Node and stage indices too large for the history are skipped and counted, not
    // allocated for.
    detector.observe(&success(u32::MAX, 0, 50.0, 10.0));
    detector.observe(&success(0, u32::MAX, 50.0, 10.0));
    assert_eq!(detector.skipped_observations(), 2);
    // reset forgets the history.
    detector.reset();
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
}

#[test]
fn esplash_keeps_reports_of_huge_attempt_ids_without_allocating_for_them() {
    // The rows of `esplash_times_progress_at_its_report`, with r3's attempt id near 2^28
    // and then u32::MAX: its report of 0.5 at 90 s is found by id (a table indexed by id
    // would ask 4 GiB for the first, 64 GiB for the second), so node 3 is no straggler.
    for id in [(1 << 28) - 1, u32::MAX] {
        let mut detector = esplash_with_history();
        detector.observe(&Observation::Progress(ProgressReport {
            attempt: AttemptId(id),
            task: TaskId(3),
            stage: StageId(0),
            node: NodeId(3),
            time_secs: 90.0,
            progress: 0.5,
        }));
        let mut rows = snapshot(
            100.0,
            4,
            &[(0, O, 95.0, 0.5), (1, O, 90.0, 0.25), (2, O, 90.0, 0.5)],
        );
        rows.push(SnapshotRow {
            attempt: AttemptId(id),
            task: TaskId(3),
            stage: StageId(0),
            node: NodeId(3),
            role: O,
            start_secs: 80.0,
            progress: 0.5,
            input_bytes: 64e6,
        })
        .expect("valid row");
        let findings = scan(&mut detector, &rows);
        assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice(), "id {id}");
        assert_eq!(detector.skipped_observations(), 0);
        // Once the attempt ends its report is forgotten: timed up to now again (elapsed
        // 20, EstT 40), node 3 is a straggler as in
        // `esplash_levels_straggler_values_and_min_levels`.
        let end = AttemptEnd {
            attempt: AttemptId(id),
            task: TaskId(3),
            stage: StageId(0),
            node: NodeId(3),
            role: O,
            start_secs: 80.0,
            end_secs: 99.0,
            status: AttemptStatus::Killed,
            input_bytes: 64_000_000,
        };
        detector.observe(&Observation::AttemptEnded(end));
        let findings = scan(&mut detector, &rows);
        assert_eq!(findings.slow_nodes(), nodes(&[1, 3]).as_slice(), "id {id}");
    }
}

#[test]
fn esplash_a_task_stuck_at_zero_progress_past_its_usual_time_makes_a_straggler() {
    // The history of `esplash_with_history`: level 1 = nodes 0, 1 (mu 11 s), level 0 =
    // nodes 2, 3 (mu 21 s). At 100 s:
    //   r0 node 0, start 95, p 0.5: PR 0.1, EstT 10     r1 node 1, start 80, p 0: elapsed 20
    //   r2 node 1, start 95, p 0.5: PR 0.1, EstT 10     r3 node 2, start 90, p 0.5
    //   r4 node 3, start 90, p 0: elapsed 10
    // PR(1) = 0.1: c = 1 for r0 and r2 (EstT 10 < 11). r1: PR_j = 0, PR(1) / PR_j infinite,
    // and 20 > mu(1) = 11: c = +inf, SV(1) = (1 + inf) / 2 = inf > 3: node 1 is a
    // straggler, and the other node of its level (SV(0) = 1) is not. r4: 10 < mu(0) = 21,
    // no term: SV(3) = 0. Hosts C(1) = 1 (node 0), C(0) = 2: level 1's minL = 1, bar
    // ExpT_1 = 11. r1's time left is unbounded: flagged; r2's is 95 + 10 - 100 = 5 < 11.
    let rows = [
        (0, O, 95.0, 0.5),
        (1, O, 80.0, 0.0),
        (1, O, 95.0, 0.5),
        (2, O, 90.0, 0.5),
        (3, O, 90.0, 0.0),
    ];
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice());
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(detector.min_levels(), &[(1, 1)]);
    // r1 started at 92 instead: elapsed 8 < 11, no term: SV(1) = 1, nothing.
    let mut young = rows;
    young[1].2 = 92.0;
    let mut detector = esplash_with_history();
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 4, &young)),
        Findings::default()
    );
    // Its level without a finished map (only reduces finished): no usual time, no term.
    let mut detector = esplash(ESplashParams {
        levels: 2,
        ..ESplashParams::default()
    });
    for (node, d) in [(0, 10.0), (1, 12.0), (2, 20.0), (3, 22.0)] {
        detector.observe(&success(node, 1, 50.0, d));
    }
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
}

#[test]
fn esplash_straggler_value_averages_the_tasks_with_a_term() {
    // The history of `esplash_with_history`: level 1 = nodes 0, 1 (mu 11 s). At 100 s:
    //   r0, r1, r2 node 0, start 99, p 0.5: elapsed 1, PR 0.5, EstT 2
    //   r3 node 1, start 95, p 0.5:  elapsed 5, PR 0.1, EstT 10 (< 11: no z-term)
    //   r4 node 1, start 97, p 0:    elapsed 3 < 11: no term
    // PR(1) = (3 x 0.5 + 0.1) / 4 = 0.4. c = 0.8 for r0 to r2: SV(0) = 0.8. c(r3) = 4;
    // SV(1) = 4 / 1 = 4 > 3: a straggler (counting r4 as 0 would give 4 / 2 = 2, not).
    // Hosts C(1) = 1 (node 0): minL 1, bar ExpT_1 = 11. r3's time left 95 + 10 - 100 = 5 <
    // 11: not flagged; r4's, at zero progress, is unbounded: flagged.
    let rows = [
        (0, O, 99.0, 0.5),
        (0, O, 99.0, 0.5),
        (0, O, 99.0, 0.5),
        (1, O, 95.0, 0.5),
        (1, O, 97.0, 0.0),
    ];
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice());
    assert_eq!(findings.rows(), &[4]);
    assert_eq!(detector.min_levels(), &[(4, 1)]);
}

#[test]
fn esplash_an_overflowing_estimate_or_term_is_infinite_not_dropped() {
    // The rows of `esplash_a_task_stuck_at_zero_progress_past_its_usual_time_makes_a_straggler`
    // with r1 at progress 1e-320: EstT = 20 / 1e-320 overflows to +inf, so r1 is judged as at
    // zero progress (no rate in PR(1) = (0.1 + 0.1) / 2, c = +inf past mu(1) = 11): node 1
    // is a straggler and r1, with an unbounded time left, is flagged with minL 1.
    let rows = [
        (0, O, 95.0, 0.5),
        (1, O, 80.0, 1e-320),
        (1, O, 95.0, 0.5),
        (2, O, 90.0, 0.5),
        (3, O, 90.0, 0.0),
    ];
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice());
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(detector.min_levels(), &[(1, 1)]);
    // At 100 s, level 1 (mu 11, sigma sqrt 2):
    //   r0 node 0, start 99.9375, p 0.5: elapsed 0.0625, PR 8, EstT 0.125
    //   r1 node 1, start 80, p 4e-307:   elapsed 20, PR 2e-308, EstT 5e307 (finite)
    // PR(1) = (8 + 2e-308) / 2 = 4. c(r0) = 4 x 0.125 = 0.5 (EstT < 11). c(r1) = 4 x 5e307
    // = 2e308 > f64::MAX: +inf (and its z-term (5e307 - 11) / sqrt 2 would not bring it
    // back): SV(1) = +inf, a straggler; SV(0) = 0.5. Hosts C(1) = 1, C(0) = 2; minL 1, bar
    // 11; r1's time left 80 + 5e307 - 100 > 11: flagged. A term left out would leave
    // node 1 without a term, SV 0, and nothing flagged.
    let rows = [(0, O, 99.9375, 0.5), (1, O, 80.0, 4e-307)];
    assert!((4.0 * (20.0f64 / 4e-307)).is_infinite() && (20.0f64 / 4e-307).is_finite());
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1]).as_slice());
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(detector.min_levels(), &[(1, 1)]);
}

#[test]
fn esplash_level_statistics_of_huge_durations_do_not_overflow() {
    // One level (k = 1): node 0 finished a map of 1e308 s, node 1 two of 0 s. The level's
    // mean is (1e308 + 0 + 0) / 3 = 3.333e307 s (merged in node order: 1e308, then node
    // 1's mean 0 weighted 2 / 3); its sum of squares overflows, sigma = +inf: no z-term.
    // Merged as `delta * 2 / 3`, -1e308 x 2 overflowed and the mean was -inf: every task
    // at zero progress was past its usual time, and the z-term (EstT + inf) x 0 was NaN.
    // At 0 s:
    //   r0 node 1, start -1e307, p 0:   elapsed 1e307 < 3.333e307: no term
    //   r1 node 0, start -5e307, p 0:   elapsed 5e307 > 3.333e307: c = +inf
    //   r2 node 1, start -10, p 0.5:    EstT 20, PR 0.05 = PR(0): c = 1
    // SV(0) = +inf: a straggler; SV(1) = 1: not. Hosts C(0) = 1 (node 1): minL 0, bar
    // 3.333e307; r1's time left is unbounded: flagged.
    let mut detector = esplash(ESplashParams {
        levels: 1,
        ..ESplashParams::default()
    });
    detector.observe(&success(0, 0, 1e308, 1e308));
    detector.observe(&success(1, 0, 10.0, 0.0));
    detector.observe(&success(1, 0, 20.0, 0.0));
    let rows = [(1, O, -1e307, 0.0), (0, O, -5e307, 0.0), (1, O, -10.0, 0.5)];
    let findings = scan(&mut detector, &snapshot(0.0, 2, &rows));
    assert_eq!(detector.level_count(), 1);
    assert_eq!(findings.slow_nodes(), nodes(&[0]).as_slice());
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(detector.min_levels(), &[(1, 0)]);
}

#[test]
fn esplash_an_attempt_that_stops_reporting_keeps_its_last_report() {
    // The history of `esplash_with_history` (level 1 = nodes 0 and 1, mu 11, sigma sqrt 2).
    // One row on node 0, started at 90 s, at progress 0.5.
    let report = |time_secs: f64, progress: f64| {
        Observation::Progress(ProgressReport {
            attempt: AttemptId(0),
            task: TaskId(0),
            stage: StageId(0),
            node: NodeId(0),
            time_secs,
            progress,
        })
    };
    let rows = [(0, O, 90.0, 0.5)];
    // Reported at 95 s, then silent: elapsed 5, EstT 10, PR(1) = PR_j = 0.1, c = 1 at every
    // scan, however late: SV(0) = 1, no straggler.
    let mut detector = esplash_with_history();
    detector.observe(&report(95.0, 0.5));
    for now in [100.0, 200.0, 1000.0] {
        let findings = scan(&mut detector, &snapshot(now, 4, &rows));
        assert!(findings.slow_nodes().is_empty(), "at {now}");
    }
    // Never reported: elapsed up to the scan. At 200 s: 110, EstT 220, c = 1 + (220 - 11)
    // / sqrt 2 = 148.8 > 3: node 0 is a straggler (its task is flagged only where a copy
    // pays: level 1 has node 1 to host, bar 11 < time left 110).
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(200.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[0]).as_slice());
    assert_eq!(findings.rows(), &[0]);
    // At zero progress: a report of 0 at 92 s keeps elapsed 2 < mu 11, no term, even at
    // 1000 s; never reported, elapsed 910 > 11 at 1000 s: c = +inf.
    let rows = [(0, O, 90.0, 0.0)];
    let mut detector = esplash_with_history();
    detector.observe(&report(92.0, 0.0));
    let findings = scan(&mut detector, &snapshot(1000.0, 4, &rows));
    assert!(findings.slow_nodes().is_empty());
    let mut detector = esplash_with_history();
    let findings = scan(&mut detector, &snapshot(1000.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[0]).as_slice());
}

#[test]
fn esplash_parameters_are_checked() {
    let invalid = |params: ESplashParams| match params.check() {
        Err(DetectError::InvalidParam { param, .. }) => param,
        Ok(_) => "accepted",
        Err(_) => "other error",
    };
    let base = ESplashParams::default();
    assert_eq!(invalid(ESplashParams { levels: 0, ..base }), "levels");
    for tau in [f64::NAN, f64::INFINITY, -1.0] {
        assert_eq!(
            invalid(ESplashParams {
                straggler_threshold: tau,
                ..base
            }),
            "straggler_threshold"
        );
    }
    assert_eq!(
        invalid(ESplashParams {
            max_kmeans_iterations: 0,
            ..base
        }),
        "max_kmeans_iterations"
    );
    for interval in [-1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid(ESplashParams {
                recluster_interval_secs: interval,
                ..base
            }),
            "recluster_interval_secs"
        );
    }
    assert!(base.check().is_ok());
}

// ---------------------------------------------------------------------------------------
// DSB

fn dsb(params: DsbParams) -> Dsb {
    Dsb::new(dsb_params(params))
}

fn dsb_params(params: DsbParams) -> CheckedDsbParams {
    params.check().expect("valid DSB parameters")
}

#[test]
fn dsb_normalised_intervals_and_level_zero() {
    // Window 100 s; maps ended between 50 and 100 s:
    //   nodes 0, 1, 2: 10, 20, 10, 20 s; node 3: 30, 40, 30, 40 s.
    // Stage: 16 durations, mean 20; squared deviations 12 x 25 + 4 x 225... as +-5 around
    // 15 and 35: variance = 5^2 + (3 (15 - 20)^2 + (35 - 20)^2) / 4 = 25 + 75 = 100, sd 10.
    // Normalised: 10 -> -1, 20 -> 0, 30 -> 1, 40 -> 2.
    // Node 0: -1, 0, -1, 0: mean -0.5, sd 0.5; t_{0.975, 3} = 3.18245;
    //   half = 0.5 x 3.18245 / 2 = 0.79561: CI [-1.29561, 0.29561] (nodes 1, 2 alike).
    // Node 3: 1, 2, 1, 2: mean 1.5: CI [0.70439, 2.29561].
    // Node 4: one reduce (stage 1, alone: no sd, no evidence): no value, no interval.
    // Edges: 0, 1, 2 -> 3 (0.70439 > 0.29561). Level zero: node 3. Blacklist [3].
    let mut detector = dsb(DsbParams {
        window_secs: 100.0,
        ..DsbParams::default()
    });
    for node in 0..4 {
        let durations = if node == 3 {
            [30.0, 40.0, 30.0, 40.0]
        } else {
            [10.0, 20.0, 10.0, 20.0]
        };
        for (i, d) in durations.into_iter().enumerate() {
            detector.observe(&success(node, 0, 50.0 + 10.0 * i as f64, d));
        }
    }
    detector.observe(&success(4, 1, 90.0, 7.0));
    detector.observe(&ended(0, 0, 95.0, 500.0, AttemptStatus::Killed));
    let rows = [
        (0, O, 95.0, 0.5),
        (3, O, 95.0, 0.5),
        (3, S, 99.0, 0.1),
        (4, O, 99.0, 0.1),
        (3, O, 97.0, 0.0),
    ];
    let findings = scan(&mut detector, &snapshot(100.0, 5, &rows));
    assert_eq!(findings.rows(), &[1, 4]);
    assert_eq!(findings.slow_nodes(), nodes(&[3]).as_slice());
    assert_eq!(detector.blacklist(), nodes(&[3]).as_slice());
    let intervals = detector.intervals();
    assert_eq!(
        intervals.iter().map(|i| i.node).collect::<Vec<_>>(),
        nodes(&[0, 1, 2, 3])
    );
    let t = 3.182_446_305_284_263;
    approx::assert_relative_eq!(intervals[0].mean, -0.5, epsilon = 1e-12);
    approx::assert_relative_eq!(intervals[0].sd, 0.5, epsilon = 1e-12);
    approx::assert_relative_eq!(intervals[0].high, -0.5 + 0.25 * t, epsilon = 1e-6);
    approx::assert_relative_eq!(intervals[3].low, 1.5 - 0.25 * t, epsilon = 1e-6);
    assert_eq!(intervals[3].tasks, 4);

    // At 150 s the ranking of 100 s stands (next at 200 s).
    let findings = scan(&mut detector, &snapshot(150.0, 5, &rows));
    assert_eq!(findings.rows(), &[1, 4]);
    // At 200 s the window (100, 200] holds no task: no interval, no blacklist.
    let findings = scan(&mut detector, &snapshot(200.0, 5, &rows));
    assert_eq!(findings, Findings::default());
    assert!(detector.intervals().is_empty());
}

/// Stage-0 durations: nodes 0, 1 four maps of 10 s, node 2 four of 30 s, node 3 30, 40,
/// 30, 40 s, all ended in the window.
fn two_weak_nodes(detector: &mut Dsb) {
    two_weak_nodes_over(detector);
}

/// [`two_weak_nodes`]' successes, observed by any detector.
fn two_weak_nodes_over(detector: &mut impl Detector) {
    for (node, durations) in [
        (0, [10.0; 4]),
        (1, [10.0; 4]),
        (2, [30.0; 4]),
        (3, [30.0, 40.0, 30.0, 40.0]),
    ] {
        for d in durations {
            detector.observe(&success(node, 0, 50.0, d));
        }
    }
}

#[test]
fn dsb_with_and_without_number() {
    // Stage mean m = 340 / 16 = 21.25, sd s. In units of the raw durations (normalising is
    // the increasing map x -> (x - m) / s, which keeps every comparison):
    // nodes 0, 1: point intervals at 10; node 2: point at 30 (sd 0); node 3: mean 35, sd
    // 5, half 5 x 3.18245 / 2 = 7.956: [27.04, 42.96].
    // Edges: 0, 1 -> 2 and 0, 1 -> 3; 2 and 3 overlap. Level zero = {2, 3}.
    // Without number: blacklist [2, 3]. Top 1: by sd, node 3 (5 > 0); by mean, node 3
    // (35 > 30): the intersection of the top-1 lists is [3].
    let rows = [(0, O, 90.0, 0.5), (2, O, 90.0, 0.5), (3, O, 90.0, 0.5)];
    let mut all = dsb(DsbParams::default());
    two_weak_nodes(&mut all);
    let findings = scan(&mut all, &snapshot(100.0, 4, &rows));
    assert_eq!(all.name(), "dsb");
    assert_eq!(findings.rows(), &[1, 2]);
    assert_eq!(findings.slow_nodes(), nodes(&[2, 3]).as_slice());
    let mut top1 = dsb(DsbParams::top(1));
    two_weak_nodes(&mut top1);
    let findings = scan(&mut top1, &snapshot(100.0, 4, &rows));
    assert_eq!(top1.name(), "dsb-top1");
    assert_eq!(findings.rows(), &[2]);
    assert_eq!(findings.slow_nodes(), nodes(&[3]).as_slice());
    // Top 3 >= level zero: all of it, no normal node added.
    let mut top3 = dsb(DsbParams::top(3));
    two_weak_nodes(&mut top3);
    assert_eq!(scan(&mut top3, &snapshot(100.0, 4, &rows)).rows(), &[1, 2]);
    assert_eq!(top3.name(), "dsb-top3");
}

#[test]
fn dsb_takes_no_evidence_from_a_stage_of_one_success() {
    // Stage 0: node 0 ran eight maps of 10 s, nodes 1 and 2 four of 30 s each: mean 20,
    // sd 10; node 0's normalised durations are all -1, nodes 1's and 2's all +1 (point
    // intervals). Edges 0 -> 1 and 0 -> 2: level zero {1, 2}.
    let feed = |detector: &mut Dsb| {
        for node in [0, 0, 1, 2] {
            for _ in 0..4 {
                let d = if node == 0 { 10.0 } else { 30.0 };
                detector.observe(&success(node, 0, 50.0, d));
            }
        }
    };
    let rows = [(0, O, 90.0, 0.5), (1, O, 90.0, 0.5), (2, O, 90.0, 0.5)];
    let mut plain = dsb(DsbParams::default());
    feed(&mut plain);
    let findings = scan(&mut plain, &snapshot(100.0, 3, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1, 2]).as_slice());
    // Node 2 ran besides ten stages of one task each: a lone success has no sd (Eq. 1 is
    // 0 / 0) and says nothing of its node, whose interval stays [1, 1]. (Counted as 0,
    // they would pull node 2's interval to [0.025, 0.547] and below node 1's: node 2
    // would leave the blacklist for work no different from node 1's.)
    let mut with_lone = dsb(DsbParams::default());
    feed(&mut with_lone);
    for stage in 10..20 {
        with_lone.observe(&success(2, stage, 60.0, 5.0));
    }
    let findings = scan(&mut with_lone, &snapshot(100.0, 3, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[1, 2]).as_slice());
    assert_eq!(with_lone.intervals(), plain.intervals());
}

#[test]
fn dsb_over_a_speculator_keeps_its_rows_and_blacklists_nodes() {
    // The ranking of `two_weak_nodes` (blacklist [2, 3]) over an inner detector that
    // flags rows 0 and 2 and reports nodes 0 and 3 slow: the rows are the inner's, the
    // slow nodes DSB's blacklist then the inner's other one, all kept from new work.
    #[derive(Debug, Clone, Default)]
    struct Fixed {
        seen: usize,
    }
    impl Detector for Fixed {
        fn name(&self) -> &str {
            "fixed"
        }
        fn scan(&mut self, _: &Snapshot, findings: &mut Findings) {
            findings.rows_mut().extend([0, 2]);
            findings.push_slow_node(NodeId(0));
            findings.push_slow_node(NodeId(3));
        }
        fn observe(&mut self, _: &Observation) {
            self.seen += 1;
        }
        fn reset(&mut self) {
            self.seen = 0;
        }
    }
    let rows = [(0, O, 90.0, 0.5), (2, O, 90.0, 0.5), (3, O, 90.0, 0.5)];
    let mut over = DsbOver::new(Fixed::default(), dsb_params(DsbParams::default()));
    assert_eq!(over.name(), "dsb(fixed)");
    two_weak_nodes_over(&mut over);
    assert_eq!(over.inner().seen, 16, "the inner detector observes too");
    let findings = scan(&mut over, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.rows(), &[0, 2]);
    assert_eq!(findings.slow_nodes(), nodes(&[2, 3, 0]).as_slice());
    assert_eq!(over.dsb().blacklist(), nodes(&[2, 3]).as_slice());
    assert_eq!(over.slow_node_rule(), SlowNodeRule::NoNewWork);
    // With number 1: DSB's name with it; the blacklist [3], then the inner's node 0.
    let mut top1 = DsbOver::new(Fixed::default(), dsb_params(DsbParams::top(1)));
    assert_eq!(top1.name(), "dsb-top1(fixed)");
    two_weak_nodes_over(&mut top1);
    let findings = scan(&mut top1, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[3, 0]).as_slice());
    // Reset: both forget.
    top1.reset();
    assert_eq!(top1.inner().seen, 0);
    let findings = scan(&mut top1, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[0, 3]).as_slice());
}

#[test]
fn dsb_blacklists_nothing_when_every_interval_overlaps() {
    // Every node ran 10, 20, 10, 20 s: identical intervals, no edge: the paper's extreme
    // case, where the whole cluster would be level zero. Nothing is blacklisted.
    let feed = |detector: &mut Dsb| {
        for node in 0..4 {
            for d in [10.0, 20.0, 10.0, 20.0] {
                detector.observe(&success(node, 0, 50.0, d));
            }
        }
    };
    let mut detector = dsb(DsbParams::default());
    feed(&mut detector);
    let rows = [(0, O, 90.0, 0.5), (3, O, 90.0, 0.5)];
    assert_eq!(
        scan(&mut detector, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
    assert_eq!(detector.intervals().len(), 4);
    // Bad ends teach nothing and panic nowhere: learnt before the ranking, they leave
    // every interval as it was. (Learnt after it, as this test once had them, they could
    // not show: the next ranking is 60 s later.) Were the end at 60 s of a run of -5 s
    // learnt, node 1 would have 10, 20, 10, 20, -5 s: stage mean 13.82, node 1's mean
    // below the others' and its interval another.
    let mut with_bad_ends = dsb(DsbParams::default());
    feed(&mut with_bad_ends);
    with_bad_ends.observe(&success(1, 0, f64::NAN, 1.0));
    with_bad_ends.observe(&success(1, 0, 60.0, -5.0));
    with_bad_ends.observe(&success(99, 7, 60.0, 5.0));
    assert_eq!(
        scan(&mut with_bad_ends, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
    assert_eq!(with_bad_ends.intervals(), detector.intervals());
}

#[test]
fn dsb_equal_durations_up_to_rounding_blacklist_nothing() {
    // Four nodes each ran four maps of 10 s. Nodes 0-2 started theirs at 1, 2, 3, 4 s
    // (end - start = 10 exactly); node 3 at 25.507, 22.876, 30.337, 23.087 s, whose ends
    // round to 35.507000000000005 s and the like: end - start = 10.000000000000004 (2 ulps
    // above 10). Stage: 12 x 10 and 4 x (10 + 3.6e-15): mean 10 (10 + 0.9e-15 rounds to
    // it), sd about 1.8e-15, below the rounding of a time at now = 45 s, 45 x 2.2e-16 =
    // 1.0e-14: every D~ is 0, every interval the point [0, 0], no edge, no blacklist.
    // Eq. 1 taken literally divides by that 1.8e-15: nodes 0-2's values are 0 and node
    // 3's 3.6e-15 / 1.8e-15 = 2, all points, so node 3 was blacklisted (row 1 flagged)
    // for the last bits of its end times.
    let mut detector = dsb(DsbParams::default());
    let starts = [
        [1.0, 2.0, 3.0, 4.0],
        [1.0, 2.0, 3.0, 4.0],
        [1.0, 2.0, 3.0, 4.0],
        [25.507, 22.876, 30.337, 23.087],
    ];
    for (node, starts) in (0..).zip(starts) {
        for start_secs in starts {
            detector.observe(&ran(node, start_secs, start_secs + 10.0));
        }
    }
    assert_eq!((25.507_f64 + 10.0) - 25.507, 10.000_000_000_000_004);
    let rows = [(0, O, 40.0, 0.5), (3, O, 40.0, 0.5)];
    assert_eq!(
        scan(&mut detector, &snapshot(45.0, 4, &rows)),
        Findings::default()
    );
    let intervals = detector.intervals();
    assert_eq!(intervals.len(), 4);
    assert!(intervals.iter().all(|i| i.low == 0.0 && i.high == 0.0));
}

#[test]
fn dsb_equally_slow_nodes_are_blacklisted_together_whatever_the_rounding() {
    // Nodes 0-2 ran four maps of 10 s, nodes 3 and 4 four of 50 s, all ending in the
    // last 60 s. Node 3's started at 31 to 34 s (end - start = 50 exactly), node 4's at
    // 35.579, 39.263, 30.085 and 33.151 s, whose ends round so that end - start is
    // 50.00000000000001. Stage: 12 x 10 and 8 x 50 s, sd about 19.6, far above the
    // rounding of a time at now = 100 s: node 3's D~ are equal, node 4's too, 1 ulp of a
    // duration apart (3.6e-16 of D~); each node's interval is the point of its D~. The
    // two nodes are equally slow: both are level zero, both blacklisted. Before, node 4's
    // point lay above node 3's, an edge, and node 3 ran on unblacklisted.
    let mut detector = dsb(DsbParams::default());
    let runs = [
        (0, [40.0, 41.0, 42.0, 43.0], 10.0),
        (1, [40.0, 41.0, 42.0, 43.0], 10.0),
        (2, [40.0, 41.0, 42.0, 43.0], 10.0),
        (3, [31.0, 32.0, 33.0, 34.0], 50.0),
        (4, [35.579, 39.263, 30.085, 33.151], 50.0),
    ];
    for (node, starts, secs) in runs {
        for start_secs in starts {
            detector.observe(&ran(node, start_secs, start_secs + secs));
        }
    }
    assert_eq!((35.579_f64 + 50.0) - 35.579, 50.000_000_000_000_01);
    let rows = [(0, O, 90.0, 0.5), (3, O, 90.0, 0.5), (4, O, 90.0, 0.5)];
    let findings = scan(&mut detector, &snapshot(100.0, 5, &rows));
    assert_eq!(findings.rows(), [1, 2]);
    assert_eq!(findings.slow_nodes(), nodes(&[3, 4]));
    let intervals = detector.intervals();
    assert_eq!(intervals.len(), 5);
    let (slow_3, slow_4) = (intervals[3], intervals[4]);
    assert!(slow_3.low == slow_3.high && slow_4.low == slow_4.high);
    assert!(slow_4.low > slow_3.high, "the points one rounding apart");
}

#[test]
fn dsb_rounding_of_one_value_does_not_hide_a_node_s_lead() {
    // Window 100 s. Maps: nodes 0 and 1 ran twelve each, alternating 10 and 20 s; node 3
    // 30, 40, 30, 40 s. Reduces: one of 10 s on node 0 and one of 10 + 5.7e-14 s on node
    // 4 (started at 90 - 10.00000000000006 s), whose sd, 2.8e-14, is just above the
    // rounding of a time at now = 100 s (2.2e-14): their D~ are -1 and 1, each of which
    // rounding could move by 0.78. Node 0's interval, about [-0.74, -0.03], lies below
    // node 3's, about [1.07, 2.92]: only node 3 is level zero. When a node's bound was
    // its worst value's, 0.78 (1 + t / sqrt(n)), node 0's reached past node 3's low end
    // and node 0 was blacklisted too; its share of the node's 13 values moves it by
    // 0.19.
    let mut detector = dsb(DsbParams {
        window_secs: 100.0,
        ..DsbParams::default()
    });
    for node in [0, 1] {
        for i in 0..12 {
            let duration = if i % 2 == 0 { 10.0 } else { 20.0 };
            detector.observe(&success(node, 0, 50.0 + 4.0 * f64::from(i), duration));
        }
    }
    for (i, duration) in [30.0, 40.0, 30.0, 40.0].into_iter().enumerate() {
        detector.observe(&success(3, 0, 60.0 + 10.0 * i as f64, duration));
    }
    detector.observe(&success(0, 1, 90.0, 10.0));
    detector.observe(&success(4, 1, 90.0, 10.0 + 6e-14));
    scan(&mut detector, &snapshot(100.0, 5, &[(0, O, 95.0, 0.5)]));
    assert_eq!(detector.blacklist(), nodes(&[3]));
    let node_0 = detector.intervals()[0];
    assert!(node_0.high + node_0.rounding < 0.2, "{node_0:?}");
}

#[test]
fn dsb_with_number_picks_among_overlapping_intervals() {
    // Maps ended in the window: nodes 0, 1, 2 ran 10, 20, 10, 20 s, node 3 10, 30, 10, 30 s.
    // Stage: 16 durations, mean 260 / 16 = 16.25, E[x^2] = 5000 / 16 = 312.5, variance
    // 312.5 - 16.25^2 = 48.4375, sd 6.9597. Normalised: 10 -> -0.8980, 20 -> 0.5388,
    // 30 -> 1.9757.
    // Nodes 0-2: mean -0.1796, sd 0.7184; half 0.7184 x 3.18245 / 2 = 1.1432:
    //   CI [-1.3228, 0.9636]. Node 3: mean 0.5388, sd 1.4369; half 2.2863:
    //   CI [-1.7475, 2.8251]. Every interval overlaps every other: no edge.
    // dsb: nothing (the paper's "blacklist no nodes"). dsb-top1: all four are level zero
    // (Section 4.2.4); by sd node 3 first (1.437 > 0.718), by mean node 3 first (0.539 >
    // -0.180): blacklist [3]. dsb-top4: four ranked nodes, at most four: nothing rather
    // than every ranked node.
    let feed = |detector: &mut Dsb| {
        for node in 0..4 {
            let long = if node == 3 { 30.0 } else { 20.0 };
            for d in [10.0, long, 10.0, long] {
                detector.observe(&success(node, 0, 50.0, d));
            }
        }
    };
    let rows = [(0, O, 90.0, 0.5), (3, O, 90.0, 0.5), (3, S, 95.0, 0.5)];
    let mut without = dsb(DsbParams::default());
    feed(&mut without);
    assert_eq!(
        scan(&mut without, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
    let intervals = without.intervals();
    assert_eq!(intervals.len(), 4);
    approx::assert_relative_eq!(intervals[0].mean, -0.179_605, epsilon = 1e-5);
    approx::assert_relative_eq!(intervals[0].sd, 0.718_421, epsilon = 1e-5);
    approx::assert_relative_eq!(intervals[3].mean, 0.538_816, epsilon = 1e-5);
    approx::assert_relative_eq!(intervals[3].sd, 1.436_842, epsilon = 1e-5);
    assert!(intervals[3].low < intervals[0].high && intervals[0].low < intervals[3].high);
    let mut top1 = dsb(DsbParams::top(1));
    feed(&mut top1);
    let findings = scan(&mut top1, &snapshot(100.0, 4, &rows));
    assert_eq!(findings.slow_nodes(), nodes(&[3]).as_slice());
    assert_eq!(findings.rows(), &[1]);
    assert_eq!(top1.blacklist(), nodes(&[3]).as_slice());
    let mut top4 = dsb(DsbParams::top(4));
    feed(&mut top4);
    assert_eq!(
        scan(&mut top4, &snapshot(100.0, 4, &rows)),
        Findings::default()
    );
}

#[test]
fn dsb_keeps_huge_stage_indices_in_a_map() {
    // Two successes of stage u32::MAX (a table indexed by stage would ask ~100 GB) are one
    // more stage: 7 and 9 s on node 0, normalised -1 and 1. Node 0's values: two maps of
    // 10 s against node 1's 30 s (normalised -1 and 1 each), then -1 and 1: mean -0.5.
    let mut detector = dsb(DsbParams::default());
    for node in 0..2 {
        for _ in 0..2 {
            detector.observe(&success(node, 0, 50.0, 10.0 + 20.0 * f64::from(node)));
        }
    }
    detector.observe(&success(0, u32::MAX, 50.0, 7.0));
    detector.observe(&success(0, u32::MAX, 50.0, 9.0));
    scan(&mut detector, &snapshot(100.0, 2, &[(0, O, 90.0, 0.5)]));
    let intervals = detector.intervals();
    assert_eq!(intervals.len(), 2);
    assert_eq!(intervals[0].tasks, 4);
    approx::assert_relative_eq!(intervals[0].mean, -0.5, epsilon = 1e-12);
    approx::assert_relative_eq!(intervals[1].mean, 1.0, epsilon = 1e-12);
}

#[test]
fn node_level_detectors_declare_what_slow_nodes_are_kept_from() {
    // DSB: "no new tasks/replications" on blacklisted nodes (seed 002); eSplash: straggler
    // nodes host no copy (seed 001, IV-D); LATE: no copy below SlowNodeThreshold.
    assert_eq!(Dsb::default().slow_node_rule(), SlowNodeRule::NoNewWork);
    assert_eq!(
        dsb(DsbParams::top(3)).slow_node_rule(),
        SlowNodeRule::NoNewWork
    );
    assert_eq!(ESplash::default().slow_node_rule(), SlowNodeRule::NoCopies);
    assert_eq!(
        ZahariaLate::default().slow_node_rule(),
        SlowNodeRule::NoCopies
    );
    // Through a box and a reference, as the engines hold them.
    let boxed: Box<dyn Detector> = Box::new(Dsb::default());
    assert_eq!(boxed.slow_node_rule(), SlowNodeRule::NoNewWork);
    fn rule_of(detector: impl Detector) -> SlowNodeRule {
        detector.slow_node_rule()
    }
    assert_eq!(rule_of(&mut ESplash::default()), SlowNodeRule::NoCopies);
    // Detectors that judge no node report only; Hierarchical passes on its wrapped
    // detector's slow nodes, so its rule too.
    assert_eq!(
        straggler_detect::DefaultDetector::default().slow_node_rule(),
        SlowNodeRule::Report
    );
    let params = straggler_detect::HierarchicalParams::default()
        .check()
        .expect("valid");
    let over = |inner| straggler_detect::Hierarchical::new(inner, params).slow_node_rule();
    assert_eq!(over(Dsb::default()), SlowNodeRule::NoNewWork);
    let over_default =
        straggler_detect::Hierarchical::new(straggler_detect::DefaultDetector::default(), params);
    assert_eq!(over_default.slow_node_rule(), SlowNodeRule::Report);
}

#[test]
fn dsb_parameters_are_checked() {
    let invalid = |params: DsbParams| match params.check() {
        Err(DetectError::InvalidParam { param, .. }) => param,
        Ok(_) => "accepted",
        Err(_) => "other error",
    };
    let base = DsbParams::default();
    for window in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid(DsbParams {
                window_secs: window,
                ..base
            }),
            "window_secs"
        );
    }
    for confidence in [0.0, 1.0, f64::NAN] {
        assert_eq!(invalid(DsbParams { confidence, ..base }), "confidence");
    }
    assert!(base.check().is_ok());
    assert!(DsbParams::top(3).check().is_ok());
}

// ---------------------------------------------------------------------------------------
// The kit, without and with a history

#[test]
fn node_level_detectors_pass_the_conformance_kit() {
    Conformance::new(|_| ESplash::default())
        .run()
        .expect("esplash conforms");
    Conformance::new(|_| Dsb::default())
        .run()
        .expect("dsb conforms");
    Conformance::new(|_| dsb(DsbParams::top(3)))
        .run()
        .expect("dsb-top3 conforms");
    Conformance::new(|_| {
        DsbOver::new(HadoopSpeculator::legacy(), dsb_params(DsbParams::default()))
    })
    .run()
    .expect("dsb(hadoop-legacy) conforms");
}

/// Successes on 50 nodes in 4 stages, ending before 100 s: node `n` runs
/// `1 + (n % 5) / 2` times slower than node 0 and nodes 7 and 23 another 3 times slower,
/// with a +-20% jitter.
fn history(seed: u64) -> Vec<Observation> {
    let mut rng = SplitMix64(seed);
    let mut observations = Vec::new();
    for i in 0..2000u32 {
        let node = rng.below(50);
        let stage = rng.below(4);
        let slow = if node == 7 || node == 23 { 3.0 } else { 1.0 };
        let duration = (10.0 + 5.0 * f64::from(stage))
            * (1.0 + f64::from(node % 5) / 2.0)
            * slow
            * (0.8 + 0.4 * rng.unit());
        observations.push(success(node, stage, f64::from(i) / 20.0, duration));
    }
    observations
}

/// Rows on 50 nodes and 4 stages at 100 s that run at their node's speed in [`history`],
/// except on node 12, now three times slower; some at zero progress or started now.
fn generated_rows(seed: u64) -> Vec<(u32, u32, f64, f64, f64)> {
    let mut rng = SplitMix64(seed);
    (0..5000)
        .map(|i| {
            let (stage, node) = (rng.below(4), rng.below(50));
            let slow = if node == 7 || node == 23 { 3.0 } else { 1.0 };
            let now_slow = if node == 12 { 3.0 } else { 1.0 };
            let duration = (10.0 + 5.0 * f64::from(stage))
                * (1.0 + f64::from(node % 5) / 2.0)
                * slow
                * now_slow;
            let elapsed = if i % 97 == 0 {
                0.0
            } else {
                0.9 * duration * rng.unit()
            };
            let progress = if i % 89 == 0 {
                0.0
            } else {
                (elapsed / duration * (0.9 + 0.2 * rng.unit())).min(0.999)
            };
            (stage, node, 100.0 - elapsed, progress, 64e6)
        })
        .collect()
}

/// The kit's checks on a detector that learnt `history`: no panic, rows increasing and in
/// range, the same findings on a second scan and from a second detector fed the same way.
fn check_with_history<D: Detector>(make: impl Fn() -> D) -> Findings {
    let observations = history(11);
    let snapshot = build_snapshot(100.0, 50, 4, generated_rows(12)).expect("valid rows");
    let feed = || {
        let mut detector = make();
        for o in &observations {
            detector.observe(o);
        }
        detector
    };
    let mut first = feed();
    let findings = scan(&mut first, &snapshot);
    assert!(findings.rows().windows(2).all(|w| w[0] < w[1]));
    assert!(
        findings
            .rows()
            .iter()
            .all(|&r| (r as usize) < snapshot.len())
    );
    assert!(findings.slow_nodes().iter().all(|n| n.0 < 50));
    assert_eq!(scan(&mut first, &snapshot), findings, "{}", first.name());
    assert_eq!(scan(&mut feed(), &snapshot), findings, "{}", first.name());
    findings
}

#[test]
fn node_level_detectors_are_deterministic_with_a_history() {
    // Each finds something (eSplash node 12, slow for its level, and node 32, which runs a
    // task still at zero progress past its level's usual time; DSB node 23, the slowest in
    // the history), so the checks are not vacuous.
    let esplash = check_with_history(ESplash::default);
    assert_eq!(esplash.slow_nodes(), nodes(&[12, 32]).as_slice());
    assert!(
        generated_rows(12)
            .iter()
            .any(|&(_, node, start, progress, _)| node == 32 && progress == 0.0 && start < 90.0)
    );
    assert!(!esplash.rows().is_empty());
    let all = check_with_history(Dsb::default);
    // Node 23 (7.5 times node 0) lies wholly above node 7 (6 times): only 23 is level zero.
    assert_eq!(all.slow_nodes(), nodes(&[23]).as_slice());
    let top1 = check_with_history(|| dsb(DsbParams::top(1)));
    assert_eq!(top1.slow_nodes().len(), 1);
    assert!(!top1.rows().is_empty());
}
