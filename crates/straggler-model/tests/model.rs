//! Tests of the model's validation and derived quantities, with cases worked by hand.

use straggler_model::*;

fn stages() -> Vec<Stage> {
    vec![
        Stage {
            job: JobId(0),
            kind: TaskKind::Map,
        },
        Stage {
            job: JobId(0),
            kind: TaskKind::Reduce,
        },
    ]
}

fn row(progress: f64, start_secs: f64) -> SnapshotRow {
    SnapshotRow {
        attempt: AttemptId(0),
        task: TaskId(0),
        stage: StageId(0),
        node: NodeId(1),
        role: AttemptRole::Original,
        start_secs,
        progress,
        input_bytes: 64.0,
    }
}

#[test]
fn snapshot_accepts_valid_rows_and_keeps_columns_aligned() {
    let mut snapshot = Snapshot::new(10.0, 2, stages()).unwrap();
    assert!(snapshot.is_empty());
    assert_eq!(snapshot.push(row(0.0, 10.0)).unwrap(), 0); // started now, no progress yet
    assert_eq!(snapshot.push(row(1.0, 0.0)).unwrap(), 1);
    assert_eq!(snapshot.len(), 2);
    assert_eq!(snapshot.progress(), &[0.0, 1.0]);
    assert_eq!(snapshot.start_secs(), &[10.0, 0.0]);
    assert_eq!(snapshot.row(1), Some(row(1.0, 0.0)));
    assert_eq!(snapshot.row(2), None);
    snapshot.set_pending(StageId(1), 7).unwrap();
    assert_eq!(snapshot.pending(StageId(1)), 7);
    assert_eq!(snapshot.pending(StageId(9)), 0);
    assert_eq!(snapshot.copy_count(), 0);
    let copy = SnapshotRow {
        role: AttemptRole::Speculative,
        ..row(0.5, 5.0)
    };
    snapshot.push(copy).unwrap();
    assert_eq!(snapshot.copy_count(), 1);
    // A row refused is not counted.
    assert!(
        snapshot
            .push(SnapshotRow {
                progress: 2.0,
                ..copy
            })
            .is_err()
    );
    assert_eq!(snapshot.copy_count(), 1);
    snapshot.clear(12.0).unwrap();
    assert!(snapshot.is_empty());
    assert_eq!(snapshot.copy_count(), 0);
    assert_eq!(snapshot.now_secs(), 12.0);
    assert_eq!(snapshot.pending(StageId(1)), 0);
    assert_eq!(snapshot.stages().len(), 2);
}

#[test]
fn stages_are_added_and_given_to_other_stages() {
    let mut snapshot = Snapshot::new(10.0, 2, stages()).unwrap();
    let third = Stage {
        job: JobId(1),
        kind: TaskKind::Map,
    };
    assert_eq!(snapshot.push_stage(third), StageId(2));
    assert_eq!(snapshot.stages()[2], third);
    assert_eq!(snapshot.pending(StageId(2)), 0);
    snapshot.set_pending(StageId(2), 3).unwrap();
    assert_eq!(snapshot.pending(StageId(2)), 3);
    let later = Stage {
        job: JobId(7),
        kind: TaskKind::Reduce,
    };
    snapshot.set_stage(StageId(0), later).unwrap();
    assert_eq!(snapshot.stages()[0], later);
    assert!(matches!(
        snapshot.set_stage(StageId(3), later),
        Err(ModelError::UnknownId {
            field: "stage",
            value: 3,
            len: 3
        })
    ));
    let row = SnapshotRow {
        stage: StageId(2),
        ..row(0.5, 1.0)
    };
    assert_eq!(snapshot.push(row).unwrap(), 0);
}

#[test]
fn snapshot_rejects_bad_rows_naming_the_field() {
    let mut snapshot = Snapshot::new(10.0, 2, stages()).unwrap();
    let field = |err: ModelError| match err {
        ModelError::Value(
            ValueError::NotFinite { field, .. } | ValueError::OutOfRange { field, .. },
        ) => field,
        ModelError::UnknownId { field, .. } => field,
        other => panic!("unexpected error {other:?}"),
    };
    assert_eq!(
        field(snapshot.push(row(f64::NAN, 0.0)).unwrap_err()),
        "progress"
    );
    assert_eq!(field(snapshot.push(row(1.5, 0.0)).unwrap_err()), "progress");
    assert_eq!(
        field(snapshot.push(row(-0.1, 0.0)).unwrap_err()),
        "progress"
    );
    assert_eq!(
        field(snapshot.push(row(0.5, 11.0)).unwrap_err()),
        "start_secs"
    );
    assert_eq!(
        field(snapshot.push(row(0.5, f64::NEG_INFINITY)).unwrap_err()),
        "start_secs"
    );
    // Both finite, but the elapsed time would be infinite: 10 - (-f64::MAX) rounds to
    // f64::MAX (10 is far below half an ulp of it), -f64::MAX from a later instant does not.
    let mut early = Snapshot::new(10.0, 2, stages()).unwrap();
    assert!(early.push(row(0.5, -f64::MAX)).is_ok());
    let mut late = Snapshot::new(f64::MAX, 2, stages()).unwrap();
    let err = late.push(row(0.5, -f64::MAX)).unwrap_err();
    assert_eq!(field(err.clone()), "start_secs");
    assert_eq!(
        err.to_string(),
        format!(
            "start_secs must be within f64::MAX seconds of now_secs, got {}",
            -f64::MAX
        )
    );
    assert!(late.push(row(0.5, 0.0)).is_ok());
    assert_eq!(
        field(
            snapshot
                .push(SnapshotRow {
                    input_bytes: -1.0,
                    ..row(0.5, 0.0)
                })
                .unwrap_err()
        ),
        "input_bytes"
    );
    assert_eq!(
        field(
            snapshot
                .push(SnapshotRow {
                    stage: StageId(2),
                    ..row(0.5, 0.0)
                })
                .unwrap_err()
        ),
        "stage"
    );
    assert_eq!(
        field(
            snapshot
                .push(SnapshotRow {
                    node: NodeId(2),
                    ..row(0.5, 0.0)
                })
                .unwrap_err()
        ),
        "node"
    );
    assert_eq!(
        field(snapshot.set_pending(StageId(5), 1).unwrap_err()),
        "stage"
    );
    assert!(snapshot.is_empty(), "a rejected row leaves nothing behind");
    assert!(Snapshot::new(f64::NAN, 1, vec![]).is_err());
    let err = snapshot.push(row(2.0, 0.0)).unwrap_err();
    assert_eq!(err.to_string(), "progress must be [0, 1], got 2");
}

#[test]
fn node_check() {
    let node = Node::new(NodeId(0), 4, 2, 8);
    assert_eq!(node.active_cores, 4);
    assert!(node.check().is_ok());
    assert!(node.with_active_cores(1).check().is_ok());
    assert!(node.with_active_cores(0).check().is_err());
    assert!(node.with_active_cores(5).check().is_err());
    assert!(Node::new(NodeId(0), 4, 2, 0).check().is_err());
}

fn attempt(
    id: u32,
    task: u32,
    role: AttemptRole,
    start: f64,
    end: Option<f64>,
    status: AttemptStatus,
    progress: f64,
) -> Attempt {
    let started = Attempt::started(AttemptId(id), TaskId(task), NodeId(0), role, start);
    match end {
        Some(end) => started.ended(end, status, progress),
        None => started,
    }
}

#[test]
fn estimated_exec_time_of_killed_and_finished_attempts() {
    use AttemptRole::*;
    use AttemptStatus::*;
    // Succeeded from 10 to 70: measured 60 s.
    assert_eq!(
        attempt(0, 0, Original, 10.0, Some(70.0), Succeeded, 1.0).estimated_exec_secs(),
        Some(60.0)
    );
    // Killed at 50 after starting at 10, having done 40%: 40 / 0.4 = 100 s.
    assert_eq!(
        attempt(0, 0, Original, 10.0, Some(50.0), Killed, 0.4).estimated_exec_secs(),
        Some(100.0)
    );
    // Killed with no progress: Hadoop's floor 1e-4, 40 / 1e-4 = 400 000 s.
    let est = attempt(0, 0, Original, 10.0, Some(50.0), Killed, 0.0)
        .estimated_exec_secs()
        .unwrap();
    assert!((est - 400_000.0).abs() < 1e-6, "{est}");
    // Still running: no estimate.
    assert_eq!(
        attempt(0, 0, Original, 10.0, None, Running, 0.0).estimated_exec_secs(),
        None
    );
}

#[test]
fn original_times_and_first_detections_of_a_run() {
    use AttemptRole::*;
    use AttemptStatus::*;
    let key = |index| TaskKey {
        job: JobId(0),
        kind: TaskKind::Map,
        index,
    };
    let task = |id: u32| Task {
        id: TaskId(id),
        key: key(id),
        stage: StageId(0),
        input_bytes: 64,
    };
    let run = Run {
        tasks: vec![task(0), task(1), task(2)],
        attempts: vec![
            // Task 0: finished normally in 30 s.
            attempt(0, 0, Original, 0.0, Some(30.0), Succeeded, 1.0),
            // Task 1: original killed at 40 s at 50% because its copy won: 80 s estimated.
            attempt(1, 1, Original, 0.0, Some(40.0), Killed, 0.5),
            attempt(2, 1, Speculative, 20.0, Some(40.0), Succeeded, 1.0),
            // Task 2: first original failed, re-run as a new original that took 25 s.
            attempt(3, 2, Original, 0.0, Some(10.0), Failed, 0.2),
            attempt(4, 2, Original, 10.0, Some(35.0), Succeeded, 1.0),
        ],
        detections: vec![
            Detection {
                task: TaskId(1),
                attempt: AttemptId(1),
                time_secs: 15.0,
            },
            Detection {
                task: TaskId(1),
                attempt: AttemptId(1),
                time_secs: 12.0,
            },
        ],
        end_secs: 40.0,
        ..Run::default()
    };
    let times = run.original_times().unwrap();
    let t0 = times[0].unwrap();
    assert_eq!((t0.exec_secs, t0.source), (30.0, TimeSource::Measured));
    let t1 = times[1].unwrap();
    assert_eq!(
        (t1.attempt, t1.exec_secs, t1.source),
        (AttemptId(1), 80.0, TimeSource::EstimatedFromProgress)
    );
    let t2 = times[2].unwrap();
    assert_eq!(
        (t2.attempt, t2.start_secs, t2.exec_secs),
        (AttemptId(4), 10.0, 25.0)
    );
    assert_eq!(run.first_detection_secs(), Ok(vec![None, Some(12.0), None]));
    assert_eq!(run.speculative_attempts().count(), 1);
    assert_eq!(run.makespan_secs(), 40.0);

    // A detection that cannot be scored is an error naming it: a NaN time would pass for
    // no detection, or, coming first, hide the real one after it.
    let with = |detection: Detection| {
        let mut run = run.clone();
        run.detections.insert(0, detection);
        run.first_detection_secs()
    };
    let nan = Detection {
        task: TaskId(2),
        attempt: AttemptId(4),
        time_secs: f64::NAN,
    };
    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = with(Detection {
            time_secs: value,
            ..nan
        })
        .unwrap_err();
        assert!(
            matches!(err, ModelError::DetectionTime { index: 0, value: v } if v.to_bits() == value.to_bits()),
            "{err}"
        );
    }
    assert_eq!(
        with(nan).unwrap_err().to_string(),
        "detections[0].time_secs must be a finite number, got NaN"
    );
    let unknown_task = with(Detection {
        task: TaskId(3),
        time_secs: 5.0,
        ..nan
    });
    assert_eq!(
        unknown_task.unwrap_err().to_string(),
        "detections[0].task = 3 refers to nothing (there are 3)"
    );
    let unknown_attempt = with(Detection {
        attempt: AttemptId(5),
        time_secs: 5.0,
        ..nan
    });
    assert_eq!(
        unknown_attempt,
        Err(ModelError::UnknownRunReference {
            list: "detections",
            index: 0,
            field: "attempt",
            value: 5,
            len: 5,
        })
    );
    // A detection flags an original of its own task: not another task's attempt, not a
    // copy (the engines record the originals' detections only).
    let other_task = with(Detection {
        attempt: AttemptId(0),
        time_secs: 5.0,
        ..nan
    });
    assert_eq!(
        other_task.unwrap_err().to_string(),
        "detections[0].attempt = 0 is an attempt of task 0, not an original attempt of \
         detections[0].task = 2"
    );
    let copy = with(Detection {
        task: TaskId(1),
        attempt: AttemptId(2),
        time_secs: 5.0,
    });
    assert_eq!(
        copy.unwrap_err().to_string(),
        "detections[0].attempt = 2 is a speculative copy, not an original attempt of \
         detections[0].task = 1"
    );

    // Which original labels a task must not be a guess: an attempt of a task the run does
    // not have, or a second original that did not fail, is an error naming the attempts.
    let mut orphan = run.clone();
    orphan.attempts[2].task = TaskId(7);
    assert_eq!(
        orphan.original_times().unwrap_err().to_string(),
        "attempts[2].task = 7 refers to nothing (there are 3)"
    );
    let mut two = run.clone();
    two.attempts[3].status = Killed; // task 2's first original, now not failed
    assert_eq!(
        two.original_times(),
        Err(ModelError::TwoLiveOriginals {
            task: 2,
            first: 3,
            second: 4,
        })
    );
    assert_eq!(
        two.original_times().unwrap_err().to_string(),
        "attempts[3] and attempts[4] are both original attempts of task 2 that did not fail; \
         a task's original runs again only after it failed"
    );
    // A running original is live too: one still running beside a finished one is an error.
    let mut running = run.clone();
    running.attempts[3] = attempt(3, 2, Original, 0.0, None, Running, 0.0);
    assert!(matches!(
        running.original_times(),
        Err(ModelError::TwoLiveOriginals { task: 2, .. })
    ));
}

#[test]
fn a_run_whose_ids_are_not_their_indices_is_refused() {
    use AttemptRole::*;
    use AttemptStatus::*;
    let task = |id: u32| Task {
        id: TaskId(id),
        key: TaskKey {
            job: JobId(0),
            kind: TaskKind::Map,
            index: id,
        },
        stage: StageId(0),
        input_bytes: 64,
    };
    let run = Run {
        tasks: vec![task(0), task(1)],
        attempts: vec![
            attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
            attempt(1, 1, Original, 0.0, Some(30.0), Succeeded, 1.0),
        ],
        end_secs: 30.0,
        ..Run::default()
    };
    assert_eq!(run.check_ids(), Ok(()));
    // Tasks listed out of id order: task 0's 10 s went to the task at index 0, task 1.
    let mut swapped = run.clone();
    swapped.tasks.swap(0, 1);
    let err = swapped.original_times().unwrap_err();
    assert_eq!(
        err,
        ModelError::IdNotIndex {
            list: "tasks",
            index: 0,
            id: 1,
        }
    );
    assert_eq!(
        err.to_string(),
        "tasks[0].id = 1, but a run's tasks[i].id must be i (its index in the list)"
    );
    assert_eq!(swapped.first_detection_secs(), Err(err));
    // An attempt id of the scheduler's own numbering, not its index.
    let mut renumbered = run.clone();
    renumbered.attempts[1].id = AttemptId(7);
    assert_eq!(
        renumbered.original_times().unwrap_err().to_string(),
        "attempts[1].id = 7, but a run's attempts[i].id must be i (its index in the list)"
    );
}

#[test]
fn a_killed_original_with_a_progress_out_of_range_is_refused() {
    use AttemptRole::*;
    use AttemptStatus::*;
    let run = |progress: f64| Run {
        tasks: vec![Task {
            id: TaskId(0),
            key: TaskKey {
                job: JobId(0),
                kind: TaskKind::Map,
                index: 0,
            },
            stage: StageId(0),
            input_bytes: 64,
        }],
        attempts: vec![
            attempt(0, 0, Original, 0.0, Some(30.0), Killed, progress),
            attempt(1, 0, Speculative, 10.0, Some(30.0), Succeeded, 1.0),
        ],
        end_secs: 30.0,
        ..Run::default()
    };
    // In range: 30 / 0.5 = 60 s estimated.
    let times = run(0.5).original_times().unwrap();
    assert_eq!(times[0].map(|t| t.exec_secs), Some(60.0));
    // Out of range, the estimate was NaN, refused later as an execution time of NaN.
    let err = run(1.5).original_times().unwrap_err();
    assert_eq!(
        err.to_string(),
        "attempts[0].progress_at_end must be in [0, 1], got 1.5"
    );
    for progress in [-0.1, f64::NAN] {
        assert!(matches!(
            run(progress).original_times(),
            Err(ModelError::BadAttemptValue {
                index: 0,
                field: "progress_at_end",
                ..
            })
        ));
    }
}

#[test]
fn load_timelines_from_attempts() {
    use AttemptRole::*;
    use AttemptStatus::*;
    let on = |node: u32, a: Attempt| Attempt {
        node: NodeId(node),
        ..a
    };
    let mut run = Run {
        nodes: vec![Node::new(NodeId(0), 4, 2, 8), Node::new(NodeId(1), 4, 2, 8)],
        attempts: vec![
            // Node 0: [0, 10) and [10, 20) back to back, [5, 10) beside them, one still
            // running from 12; node 1: a zero-length attempt at 3.
            attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
            attempt(1, 1, Original, 10.0, Some(20.0), Succeeded, 1.0),
            attempt(2, 2, Original, 5.0, Some(10.0), Failed, 0.3),
            attempt(3, 3, Speculative, 12.0, None, Running, 0.0),
            on(1, attempt(4, 4, Original, 3.0, Some(3.0), Succeeded, 1.0)),
        ],
        end_secs: 30.0,
        ..Run::default()
    };
    let load = run.load_from_attempts().unwrap();
    let changes = |i: usize| -> Vec<(f64, u32)> {
        load[i]
            .changes
            .iter()
            .map(|c| (c.time_secs, c.running))
            .collect()
    };
    // At 10 one ends, one ends and one starts: 1 runs from then on.
    assert_eq!(
        changes(0),
        [(0.0, 1), (5.0, 2), (10.0, 1), (12.0, 2), (20.0, 1)]
    );
    assert_eq!(changes(1), []);
    // Errors name the attempt.
    let mut elsewhere = run.clone();
    elsewhere.attempts[4].node = NodeId(2);
    assert_eq!(
        elsewhere.load_from_attempts().unwrap_err().to_string(),
        "attempts[4].node = 2 refers to nothing (there are 2)"
    );
    run.attempts[1].end_secs = Some(9.0);
    assert_eq!(
        run.load_from_attempts().unwrap_err().to_string(),
        "attempts[1].end_secs must be finite and >= start_secs, got 9"
    );
    run.attempts[1].start_secs = f64::NAN;
    assert!(matches!(
        run.load_from_attempts(),
        Err(ModelError::BadAttemptValue {
            index: 1,
            field: "start_secs",
            ..
        })
    ));
}

#[test]
fn an_empty_run_has_nothing() {
    let run = Run::default();
    assert_eq!(run.original_times(), Ok(Vec::new()));
    assert_eq!(run.first_detection_secs(), Ok(Vec::new()));
    assert_eq!(run.node(NodeId(0)), None);
}

#[test]
fn ids_and_keys_serialise_plainly() {
    let key = TaskKey {
        job: JobId(3),
        kind: TaskKind::Reduce,
        index: 17,
    };
    assert_eq!(
        serde_json::to_string(&key).unwrap(),
        r#"{"job":3,"kind":"reduce","index":17}"#
    );
    assert_eq!(key.to_string(), "job 3 reduce #17");
    assert_eq!(TaskId(5).index(), 5);
}
