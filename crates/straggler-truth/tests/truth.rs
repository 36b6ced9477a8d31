//! Integration tests of the ground-truth crate, each formula against a case worked by hand.

use approx::{assert_abs_diff_eq, assert_relative_eq};
use proptest::prelude::*;
use straggler_model::{
    Attempt, AttemptId, AttemptRole, AttemptStatus, JobId, ModelError, NodeId, Run, StageId, Task,
    TaskId, TaskKey, TaskKind, ValueError,
};
use straggler_truth::{
    QuantileRatio, SiblingReference, StragglerRule, TruthError, UsualTimes, baseline_samples,
    factor_exists, max_guess_error, quantile_of, sibling_usual_times, sibling_usual_times_among,
    sibling_usual_times_of_run, straggler_ratios,
};

fn key(index: u32) -> TaskKey {
    TaskKey {
        job: JobId(0),
        kind: TaskKind::Map,
        index,
    }
}

/// Key 0: [10, 11, 12, 20]; key 1: [5, 5, 6.5, 9] (interleaved, unsorted on purpose).
fn two_keys() -> Vec<(TaskKey, f64)> {
    vec![
        (key(0), 12.0),
        (key(1), 9.0),
        (key(0), 20.0),
        (key(1), 5.0),
        (key(0), 10.0),
        (key(1), 6.5),
        (key(0), 11.0),
        (key(1), 5.0),
    ]
}

// ---------------------------------------------------------------------------------------
// Quantile helper
// ---------------------------------------------------------------------------------------

#[test]
fn quantile_of_sorts_a_copy() {
    // Sorted: [1, 2, 3, 4]; h = 3 * 0.25 = 0.75 -> 1 + 0.75 * (2 - 1) = 1.75.
    assert_eq!(quantile_of(&[4.0, 1.0, 3.0, 2.0], 0.25), Ok(Some(1.75)));
    assert_eq!(quantile_of(&[], 0.25), Ok(None));
    assert!(matches!(
        quantile_of(&[1.0, f64::INFINITY], 0.5),
        Err(TruthError::BadElement {
            field: "values",
            index: 1,
            ..
        })
    ));
}

// ---------------------------------------------------------------------------------------
// Usual times
// ---------------------------------------------------------------------------------------

#[test]
fn usual_times_are_per_key_medians() {
    // Key 0 sorted [10, 11, 12, 20]: h = 1.5 -> 11 + 0.5 * 1 = 11.5.
    // Key 1 sorted [5, 5, 6.5, 9]: h = 1.5 -> 5 + 0.5 * 1.5 = 5.75.
    let usual = UsualTimes::from_samples(two_keys(), 0.5).expect("valid samples");
    assert_eq!(usual.len(), 2);
    assert_eq!(usual.quantile(), 0.5);
    assert_eq!(usual.get(&key(0)), Some(11.5));
    assert_eq!(usual.get(&key(1)), Some(5.75));
    assert_eq!(usual.get(&key(2)), None);
    assert_eq!(
        usual.iter().collect::<Vec<_>>(),
        vec![(key(0), 11.5), (key(1), 5.75)]
    );
}

#[test]
fn usual_times_of_degenerate_samples() {
    let empty = UsualTimes::from_samples(Vec::new(), 0.5).expect("valid");
    assert!(empty.is_empty());
    // One sample: the usual time is that sample, whatever the quantile.
    let one = UsualTimes::from_samples([(key(3), 42.0)], 0.9).expect("valid");
    assert_eq!(one.get(&key(3)), Some(42.0));
    // All identical.
    let same = UsualTimes::from_samples([(key(3), 7.0); 5], 0.25).expect("valid");
    assert_eq!(same.get(&key(3)), Some(7.0));
}

#[test]
fn usual_times_reject_bad_samples() {
    assert_eq!(
        UsualTimes::from_samples([(key(4), f64::NAN)], 0.5)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err("execution time of job 0 map #4 must be finite and >= 0, got NaN".to_string())
    );
    assert!(matches!(
        UsualTimes::from_samples([(key(4), -1.0)], 0.5),
        Err(TruthError::BadExecTime { value: -1.0, .. })
    ));
    assert!(matches!(
        UsualTimes::from_samples([(key(4), 1.0)], 1.5),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "quantile",
            ..
        }))
    ));
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

fn two_task_run(attempts: Vec<Attempt>) -> Run {
    let task = |i: u32| Task {
        id: TaskId(i),
        key: key(i),
        stage: StageId(0),
        input_bytes: 1,
    };
    Run {
        tasks: vec![task(0), task(1)],
        attempts,
        end_secs: 20.0,
        ..Run::default()
    }
}

#[test]
fn usual_times_from_runs_use_original_attempts() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Killed, Succeeded};
    // Run 0: map 0 takes 10 s; map 1's original is killed at 6 s with progress 0.5, so its
    // time is estimated at 6 / 0.5 = 12 s (its copy's time does not count).
    let run0 = two_task_run(vec![
        attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
        attempt(1, 1, Original, 0.0, Some(6.0), Killed, 0.5),
        attempt(2, 1, Speculative, 2.0, Some(6.0), Succeeded, 1.0),
    ]);
    // Run 1: map 0 takes 14 s, map 1 takes 8 s.
    let run1 = two_task_run(vec![
        attempt(0, 0, Original, 0.0, Some(14.0), Succeeded, 1.0),
        attempt(1, 1, Original, 1.0, Some(9.0), Succeeded, 1.0),
    ]);
    let runs = [run0, run1];
    assert_eq!(
        baseline_samples(&runs),
        Ok(vec![
            (key(0), 10.0),
            (key(1), 12.0),
            (key(0), 14.0),
            (key(1), 8.0)
        ])
    );
    // Medians of two: (10 + 14) / 2 = 12 and (12 + 8) / 2 = 10.
    let usual = UsualTimes::from_runs(&runs, 0.5).expect("valid runs");
    assert_eq!(usual.get(&key(0)), Some(12.0));
    assert_eq!(usual.get(&key(1)), Some(10.0));
    // Per task of a run, in its order; a task whose key no baseline had is named.
    assert_eq!(usual.of_run(&runs[0]), Ok(vec![12.0, 10.0]));
    let mut other = runs[0].clone();
    other.tasks[1].key = key(5);
    let err = usual.of_run(&other).unwrap_err();
    assert_eq!(err, TruthError::NoUsualTime { key: key(5) });
    assert_eq!(
        err.to_string(),
        "job 0 map #5 has no usual time: no baseline run had a task with its key"
    );
    assert!(UsualTimes::from_runs(&[], 0.5).expect("no runs").is_empty());
}

/// A killed original's progress outside `[0, 1]` gives no estimate, and the run, the
/// attempt and its field are named (before, NaN became the floor 1e-4, an estimate 10^4
/// times the time run, and 3.0 an estimate shorter than it; then an execution time of NaN
/// named the task but not the progress that made it).
#[test]
fn usual_times_from_runs_reject_a_progress_outside_its_range() {
    use AttemptRole::Original;
    use AttemptStatus::{Killed, Succeeded};
    for progress in [f64::NAN, 3.0, -0.5] {
        let run = two_task_run(vec![
            attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
            attempt(1, 1, Original, 0.0, Some(6.0), Killed, progress),
        ]);
        let result = UsualTimes::from_runs(&[run], 0.5);
        assert!(
            matches!(
                &result,
                Err(TruthError::BadRun {
                    run: 0,
                    error: ModelError::BadAttemptValue {
                        index: 1,
                        field: "progress_at_end",
                        ..
                    }
                })
            ),
            "{progress}: {result:?}"
        );
        if progress == 3.0 {
            assert_eq!(
                result.unwrap_err().to_string(),
                "run 0: attempts[1].progress_at_end must be in [0, 1], got 3"
            );
        }
    }
}

#[test]
fn usual_times_from_runs_reject_unfinished_originals() {
    use AttemptRole::Original;
    use AttemptStatus::{Running, Succeeded};
    let done = two_task_run(vec![
        attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
        attempt(1, 1, Original, 0.0, Some(8.0), Succeeded, 1.0),
    ]);
    let unfinished = two_task_run(vec![
        attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
        attempt(1, 1, Original, 0.0, None, Running, 0.3),
    ]);
    assert_eq!(
        UsualTimes::from_runs(&[done, unfinished], 0.5),
        Err(TruthError::OriginalNotEnded {
            run: 1,
            key: key(1)
        })
    );
}

#[test]
fn usual_times_from_runs_reject_two_live_originals_of_a_task() {
    use AttemptRole::Original;
    use AttemptStatus::{Failed, Killed, Succeeded};
    // Map 1 ran twice as an original: after a failure that is a re-run (the second time
    // counts), but after a kill which time labels it would be a guess.
    let rerun = two_task_run(vec![
        attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
        attempt(1, 1, Original, 0.0, Some(3.0), Failed, 0.2),
        attempt(2, 1, Original, 3.0, Some(11.0), Succeeded, 1.0),
    ]);
    assert_eq!(
        baseline_samples(std::slice::from_ref(&rerun)),
        Ok(vec![(key(0), 10.0), (key(1), 8.0)])
    );
    let mut twice = rerun.clone();
    twice.attempts[1].status = Killed;
    let err = UsualTimes::from_runs(&[rerun, twice], 0.5).unwrap_err();
    assert_eq!(
        err.to_string(),
        "run 1: attempts[1] and attempts[2] are both original attempts of task 1 that did \
         not fail; a task's original runs again only after it failed"
    );
}

// ---------------------------------------------------------------------------------------
// Straggler rule and Table 5
// ---------------------------------------------------------------------------------------

#[test]
fn straggler_rule_is_strict() {
    let rule = StragglerRule::default();
    assert_eq!(rule.factor, 1.2);
    // 1.2 * 10 = 12: exactly 12 is not a straggler, 12.01 is.
    assert!(!rule.is_straggler(12.0, 10.0));
    assert!(rule.is_straggler(12.01, 10.0));
    assert!(!rule.is_straggler(f64::NAN, 10.0));
    assert!(matches!(
        StragglerRule { factor: 0.9 }.check(),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "factor",
            ..
        }))
    ));
    assert!(matches!(
        StragglerRule { factor: f64::NAN }.check(),
        Err(TruthError::Value(ValueError::NotFinite {
            field: "factor",
            ..
        }))
    ));
}

fn ratio(quantile: f64, stragglers: usize, executions: usize) -> QuantileRatio {
    let straggler_ratio = (executions > 0).then(|| stragglers as f64 / executions as f64);
    QuantileRatio {
        quantile,
        stragglers,
        executions,
        straggler_ratio,
    }
}

#[test]
fn table5_ratios_by_hand() {
    // Key 0 [10, 11, 12, 20], key 1 [5, 5, 6.5, 9], factor 1.2, 8 executions:
    // X = 0.25: usual 10.75 and 5 -> thresholds 12.9 and 6: {20} and {6.5, 9} -> 3/8.
    // X = 0.5:  usual 11.5 and 5.75 -> thresholds 13.8 and 6.9: {20} and {9} -> 2/8.
    // X = 0.9:  h = 2.7: usual 12 + 0.7 * 8 = 17.6 and 6.5 + 0.7 * 2.5 = 8.25
    //           -> thresholds 21.12 and 9.9: none -> 0/8.
    // X = 1:    usual 20 and 9: none.
    let ratios = straggler_ratios(
        &two_keys(),
        &[0.25, 0.5, 0.9, 1.0],
        StragglerRule::default(),
    )
    .expect("valid");
    assert_eq!(
        ratios,
        vec![
            ratio(0.25, 3, 8),
            ratio(0.5, 2, 8),
            ratio(0.9, 0, 8),
            ratio(1.0, 0, 8)
        ]
    );
    // With factor 1.5 at X = 0.5: thresholds 17.25 and 8.625: {20} and {9} -> 2/8.
    let ratios =
        straggler_ratios(&two_keys(), &[0.5], StragglerRule { factor: 1.5 }).expect("valid");
    assert_eq!(ratios, vec![ratio(0.5, 2, 8)]);
}

#[test]
fn table5_paper_scale_case() {
    // 320 map keys x 10 runs = 3200 executions, all 100 s except one 200 s execution for
    // each of 21 keys. Median of nine 100s and one 200 is 100: threshold 120, 21 stragglers,
    // 21 / 3200 = 0.0065625, the paper's 0.66% at X = 0.5.
    let mut samples = Vec::new();
    for k in 0..320 {
        for run in 0..10 {
            let outlier = k < 21 && run == 3;
            samples.push((key(k), if outlier { 200.0 } else { 100.0 }));
        }
    }
    let ratios = straggler_ratios(&samples, &[0.5], StragglerRule::default()).expect("valid");
    assert_eq!(ratios[0].stragglers, 21);
    assert_relative_eq!(ratios[0].straggler_ratio.expect("defined"), 0.0065625);
}

#[test]
fn table5_degenerate_inputs() {
    // No samples: ratio undefined.
    let ratios = straggler_ratios(&[], &[0.5], StragglerRule::default()).expect("valid");
    assert_eq!(ratios, vec![ratio(0.5, 0, 0)]);
    assert_eq!(ratios[0].straggler_ratio, None);
    // One task, all identical executions: no straggler at any quantile.
    let same = vec![(key(0), 3.0); 4];
    let ratios = straggler_ratios(&same, &[0.0, 1.0], StragglerRule::default()).expect("valid");
    assert_eq!(ratios, vec![ratio(0.0, 0, 4), ratio(1.0, 0, 4)]);
    // No quantile asked: no column.
    assert_eq!(
        straggler_ratios(&same, &[], StragglerRule::default()),
        Ok(vec![])
    );
}

#[test]
fn table5_rejects_bad_inputs_and_serialises() {
    assert!(matches!(
        straggler_ratios(&two_keys(), &[0.5, -0.1], StragglerRule::default()),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "quantile",
            ..
        }))
    ));
    assert!(matches!(
        straggler_ratios(&two_keys(), &[0.5], StragglerRule { factor: 0.5 }),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "factor",
            ..
        }))
    ));
    let json = serde_json::to_value(ratio(0.5, 0, 0)).expect("serialisable");
    assert_eq!(
        json,
        serde_json::json!({"quantile": 0.5, "stragglers": 0, "executions": 0, "straggler_ratio": null})
    );
}

// ---------------------------------------------------------------------------------------
// Eq. 11-12
// ---------------------------------------------------------------------------------------

#[test]
fn guess_error_bound_by_hand() {
    // factor 1.2, s_min 2, eps_setting 0.1:
    // (11) 2 * 0.9 / 1.2 - 1 = 1.5 - 1 = 0.5; (12) 1 - 1.1 / 1.2 = 1/12; min = 1/12.
    let bound = max_guess_error(1.2, 2.0, 0.1)
        .expect("valid")
        .expect("exists");
    assert_relative_eq!(bound, 1.0 / 12.0, max_relative = 1e-12);
    // eps_setting 0.2: (12) 1 - 1.2 / 1.2 = 0: only an exact guess.
    assert_eq!(max_guess_error(1.2, 2.0, 0.2), Ok(Some(0.0)));
    // eps_setting 0.3: (12) 1 - 1.3 / 1.2 < 0: none.
    assert_eq!(max_guess_error(1.2, 2.0, 0.3), Ok(None));
    // s_min 1.1 < factor: (11) 1.1 / 1.2 - 1 < 0: none.
    assert_eq!(max_guess_error(1.2, 1.1, 0.0), Ok(None));
    // factor 1.5, s_min 3, eps 0: (11) 3 / 1.5 - 1 = 1; (12) 1 - 1 / 1.5 = 1/3.
    let bound = max_guess_error(1.5, 3.0, 0.0)
        .expect("valid")
        .expect("exists");
    assert_relative_eq!(bound, 1.0 / 3.0, max_relative = 1e-12);
}

#[test]
fn factor_existence_by_hand() {
    // s_min 2: (2 - 1) / (2 + 1) = 1/3.
    assert_eq!(factor_exists(2.0, 1.0 / 3.0), Ok(true));
    assert_eq!(factor_exists(2.0, 0.34), Ok(false));
    // s_min 1: only eps_setting 0 works.
    assert_eq!(factor_exists(1.0, 0.0), Ok(true));
    assert_eq!(factor_exists(1.0, 0.01), Ok(false));
}

#[test]
fn guess_error_rejects_bad_inputs() {
    assert!(matches!(
        max_guess_error(0.5, 2.0, 0.1),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "factor",
            ..
        }))
    ));
    assert!(matches!(
        max_guess_error(1.2, 0.9, 0.1),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "s_min",
            ..
        }))
    ));
    assert!(matches!(
        factor_exists(2.0, 1.0),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "eps_setting",
            ..
        }))
    ));
    assert!(matches!(
        factor_exists(2.0, -0.1),
        Err(TruthError::Value(ValueError::OutOfRange {
            field: "eps_setting",
            ..
        }))
    ));
    assert!(matches!(
        factor_exists(f64::NAN, 0.1),
        Err(TruthError::Value(ValueError::NotFinite {
            field: "s_min",
            ..
        }))
    ));
}

proptest! {
    #[test]
    fn existence_matches_the_bound_at_the_smallest_factor(
        s_min in 1.0..10.0f64, eps_setting in 0.0..0.99f64,
    ) {
        // The smallest factor allowed by (12) with eps_guess = 0 is 1 + eps_setting; some
        // factor exists iff (11) holds there too.
        let boundary = (s_min - 1.0) / (s_min + 1.0);
        prop_assume!((eps_setting - boundary).abs() > 1e-9);
        let bound = max_guess_error(1.0 + eps_setting, s_min, eps_setting).expect("valid");
        prop_assert_eq!(factor_exists(s_min, eps_setting).expect("valid"), bound.is_some());
    }
}

// ---------------------------------------------------------------------------------------
// Sibling reference
// ---------------------------------------------------------------------------------------

const GROUPS: [u32; 5] = [0, 0, 0, 1, 1];
const EXEC: [f64; 5] = [10.0, 20.0, 60.0, 5.0, 7.0];
const SIZES: [f64; 5] = [1.0, 2.0, 3.0, 1.0, 1.0];

fn check_siblings(reference: SiblingReference, sizes: Option<&[f64]>, expected: &[f64]) {
    let usual = sibling_usual_times(&GROUPS, &EXEC, reference, sizes).expect("valid");
    assert_eq!(usual.len(), expected.len());
    for (got, want) in usual.iter().zip(expected) {
        assert_relative_eq!(*got, *want, max_relative = 1e-12);
    }
}

#[test]
fn sibling_reference_by_hand() {
    // Group 0 [10, 20, 60]: median 20, mean 30. Group 1 [5, 7]: median 6, mean 6.
    check_siblings(
        SiblingReference::Median,
        None,
        &[20.0, 20.0, 20.0, 6.0, 6.0],
    );
    check_siblings(SiblingReference::Mean, None, &[30.0, 30.0, 30.0, 6.0, 6.0]);
    // Per unit of input, sizes [1, 2, 3 | 1, 1]: rates [10, 10, 20 | 5, 7].
    // Median rate 10 and 6 -> [10, 20, 30 | 6, 6].
    check_siblings(
        SiblingReference::Median,
        Some(&SIZES),
        &[10.0, 20.0, 30.0, 6.0, 6.0],
    );
    // Mean: 90 s / 6 units = 15 and 12 s / 2 units = 6 -> [15, 30, 45 | 6, 6].
    check_siblings(
        SiblingReference::Mean,
        Some(&SIZES),
        &[15.0, 30.0, 45.0, 6.0, 6.0],
    );
}

#[test]
fn sibling_reference_among_some_tasks_by_hand() {
    // Group 0 [10, 20, 60] with task 0 left out: median of [20, 60] = 40, mean 40; task 0
    // is given 40 too. Group 1 [5, 7] with both left out: the group's own, median 6.
    let among = [false, true, true, false, false];
    let usual = |reference, sizes| {
        sibling_usual_times_among(&GROUPS, &EXEC, reference, sizes, &among).expect("valid")
    };
    assert_eq!(
        usual(SiblingReference::Median, None),
        [40.0, 40.0, 40.0, 6.0, 6.0]
    );
    assert_eq!(
        usual(SiblingReference::Mean, None),
        [40.0, 40.0, 40.0, 6.0, 6.0]
    );
    // Per unit, sizes [1, 2, 3 | 1, 1]: rates of tasks 1 and 2 [10, 20], median 15 ->
    // [15, 30, 45 | 6, 6]; mean 80 s / 5 units = 16 -> [16, 32, 48 | 6, 6].
    assert_eq!(
        usual(SiblingReference::Median, Some(&SIZES)),
        [15.0, 30.0, 45.0, 6.0, 6.0]
    );
    assert_eq!(
        usual(SiblingReference::Mean, Some(&SIZES)),
        [16.0, 32.0, 48.0, 6.0, 6.0]
    );
    // Every task in: the same as `sibling_usual_times`.
    assert_eq!(
        sibling_usual_times_among(&GROUPS, &EXEC, SiblingReference::Median, None, &[true; 5]),
        sibling_usual_times(&GROUPS, &EXEC, SiblingReference::Median, None)
    );
    assert_eq!(
        sibling_usual_times_among(&GROUPS, &EXEC, SiblingReference::Median, None, &[true; 4]),
        Err(TruthError::LengthMismatch {
            field: "in_reference",
            len: 4,
            expected: 5
        })
    );
}

#[test]
fn sibling_mean_per_unit_gives_the_dos_index() {
    // Seed 004, Eq. 1, task 2: DoS = (60 / 3) / ((90 / 3) / (6 / 3)) = 20 / 15 = 4/3,
    // and exec / usual = 60 / 45 = 4/3.
    let usual =
        sibling_usual_times(&GROUPS, &EXEC, SiblingReference::Mean, Some(&SIZES)).expect("valid");
    assert_relative_eq!(EXEC[2] / usual[2], 4.0 / 3.0, max_relative = 1e-12);
}

#[test]
fn sibling_reference_degenerate_inputs() {
    assert_eq!(
        sibling_usual_times(&[], &[], SiblingReference::Median, None),
        Ok(vec![])
    );
    // One task: its own time.
    assert_eq!(
        sibling_usual_times(&[4], &[7.0], SiblingReference::Median, None),
        Ok(vec![7.0])
    );
    // All identical: the common time, nobody a straggler.
    let usual =
        sibling_usual_times(&[1, 1, 1], &[3.0; 3], SiblingReference::Mean, None).expect("valid");
    for u in &usual {
        assert_abs_diff_eq!(*u, 3.0, epsilon = 1e-12);
    }
    assert!(
        !usual
            .iter()
            .any(|&u| StragglerRule::default().is_straggler(3.0, u))
    );
}

#[test]
fn sibling_reference_rejects_bad_inputs() {
    assert_eq!(
        sibling_usual_times(&[0, 0], &[1.0], SiblingReference::Median, None),
        Err(TruthError::LengthMismatch {
            field: "exec_secs",
            len: 1,
            expected: 2
        })
    );
    assert_eq!(
        sibling_usual_times(&[0], &[1.0], SiblingReference::Median, Some(&[1.0, 2.0])),
        Err(TruthError::LengthMismatch {
            field: "normalise_by",
            len: 2,
            expected: 1
        })
    );
    assert!(matches!(
        sibling_usual_times(&[0, 0], &[1.0, f64::NAN], SiblingReference::Mean, None),
        Err(TruthError::BadElement {
            field: "exec_secs",
            index: 1,
            ..
        })
    ));
    assert!(matches!(
        sibling_usual_times(
            &[0, 0],
            &[1.0, 2.0],
            SiblingReference::Mean,
            Some(&[1.0, 0.0])
        ),
        Err(TruthError::BadElement {
            field: "normalise_by",
            index: 1,
            ..
        })
    ));
}

/// Inputs near binary64's limits: a finite answer where one exists, an error naming the
/// element where none does; never a NaN or an infinity (the review's repros).
#[test]
fn sibling_reference_near_the_limits_of_binary64() {
    let (median, mean) = (SiblingReference::Median, SiblingReference::Mean);
    // 1 / 5e-324 overflows: the size is refused, not turned into a NaN usual time.
    assert!(matches!(
        sibling_usual_times(&[0], &[1.0], median, Some(&[5e-324])),
        Err(TruthError::BadElement {
            field: "normalise_by",
            index: 0,
            ..
        })
    ));
    // Sums that overflow: the ratio of means, computed from values divided first.
    assert_eq!(
        sibling_usual_times(&[0, 0], &[f64::MAX; 2], mean, None),
        Ok(vec![f64::MAX; 2])
    );
    assert_eq!(
        sibling_usual_times(&[0, 0], &[10.0; 2], mean, Some(&[f64::MAX; 2])),
        Ok(vec![10.0; 2])
    );
    // The second task's usual time, a per-unit median of 5e299 times its size of 1e300,
    // has no binary64 value.
    assert_eq!(
        sibling_usual_times(&[0, 0], &[1.0, 1.0], median, Some(&[1e-300, 1e300])),
        Err(TruthError::Overflow {
            what: "the usual time",
            index: 1,
        })
    );
}

#[test]
fn sibling_usual_times_of_a_run_group_by_stage_and_leave_re_runs_out() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Failed, Killed, Running, Succeeded};
    let task = |i: u32, stage: u32, input_bytes: u64| Task {
        id: TaskId(i),
        key: key(i),
        stage: StageId(stage),
        input_bytes,
    };
    // Stage 0: maps of 10 s (100 B), 40 s (200 B; killed at 20 s at 0.5 when its copy
    // won), and a re-run of 6 s (100 B) after a failure. Stage 1: reduces of 8 and 4 s.
    let run = Run {
        tasks: vec![
            task(0, 0, 100),
            task(1, 0, 200),
            task(2, 0, 100),
            task(3, 1, 50),
            task(4, 1, 50),
        ],
        attempts: vec![
            attempt(0, 0, Original, 0.0, Some(10.0), Succeeded, 1.0),
            attempt(1, 1, Original, 0.0, Some(20.0), Killed, 0.5),
            attempt(2, 1, Speculative, 5.0, Some(20.0), Succeeded, 1.0),
            attempt(3, 2, Original, 0.0, Some(2.0), Failed, 0.1),
            attempt(4, 2, Original, 2.0, Some(8.0), Succeeded, 1.0),
            attempt(5, 3, Original, 20.0, Some(28.0), Succeeded, 1.0),
            attempt(6, 4, Original, 20.0, Some(24.0), Succeeded, 1.0),
        ],
        end_secs: 28.0,
        ..Run::default()
    };
    let of_run = |reference, per_byte| sibling_usual_times_of_run(&run, reference, per_byte);
    // Medians: stage 0 over 10 and 40 (the re-run left out): 25; stage 1: 6.
    assert_eq!(
        of_run(SiblingReference::Median, false),
        Ok(vec![25.0, 25.0, 25.0, 6.0, 6.0])
    );
    // Means per byte: stage 0 (10 + 40) / (100 + 200) = 1/6 s per byte, so 100 B usually
    // take 16.67 s and 200 B 33.33 s; stage 1 (8 + 4) / 100 = 0.12, 6 s for 50 B.
    let per_byte = of_run(SiblingReference::Mean, true).unwrap();
    for (got, expected) in per_byte
        .iter()
        .zip([100.0 / 6.0, 200.0 / 6.0, 100.0 / 6.0, 6.0, 6.0])
    {
        assert_relative_eq!(*got, expected, max_relative = 1e-15);
    }
    // A task whose original never ended has no time; a zero input cannot be divided by.
    let mut unended = run.clone();
    unended.attempts[6] = attempt(6, 4, Original, 20.0, None, Running, 0.5);
    assert_eq!(
        sibling_usual_times_of_run(&unended, SiblingReference::Median, false),
        Err(TruthError::OriginalNotEnded {
            run: 0,
            key: key(4)
        })
    );
    let mut empty_input = run.clone();
    empty_input.tasks[3].input_bytes = 0;
    assert!(matches!(
        sibling_usual_times_of_run(&empty_input, SiblingReference::Mean, true),
        Err(TruthError::BadElement {
            field: "normalise_by",
            index: 3,
            ..
        })
    ));
    let mut orphan = run.clone();
    orphan.attempts[0].task = TaskId(9);
    assert!(matches!(
        sibling_usual_times_of_run(&orphan, SiblingReference::Median, false),
        Err(TruthError::BadRun { run: 0, .. })
    ));
}
