//! Tests of the simulator and of the evaluation built on it: hand-worked runs, policies,
//! determinism, and configuration errors.

mod engines;
mod scale;

use approx::assert_relative_eq;
use straggler_detect::{DefaultDetector, Detector, Dsb, Findings, LateDetector, SlowNodeRule};
use straggler_energy::SlowdownModel;
use straggler_model::{
    AttemptRole, AttemptStatus, Detection, JobId, NodeId, Observation, Run, Snapshot, TaskKind,
};
use straggler_sim::{
    DetectorSpec, EvalConfig, Evaluation, Fig3Config, Noise, Platform, Policy, Scenario, SimConfig,
    SimError, Table7Config, Workload, simulate,
};

/// A platform of `workers` one-core nodes with `containers` slots, a compute-bound job
/// without noise: every time in it can be worked out by hand.
fn exact(workers: u32, containers: u32, maps: u32, reduces: u32) -> SimConfig {
    SimConfig {
        platform: Platform {
            workers,
            cores: 1,
            threads_per_core: 1,
            containers,
        },
        workload: Workload {
            maps,
            reduces,
            map_work_secs: 10.0,
            reduce_work_secs: 4.0,
            ..Workload::default()
        },
        noise: Noise {
            sigma: 0.0,
            outlier_probability: 0.0,
            ..Noise::default()
        },
        slowdown: SlowdownModel::compute_bound(),
        ..SimConfig::default()
    }
}

/// Flags every attempt it sees.
struct All;

impl Detector for All {
    fn name(&self) -> &str {
        "all"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (0..snapshot.len() as u32).for_each(|row| findings.push_row(row));
    }
}

/// Breaks the findings' contract: flags a row past the snapshot, or its rows backwards.
struct Broken {
    backwards: bool,
}

impl Detector for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        let len = snapshot.len() as u32;
        if self.backwards {
            (0..len).rev().for_each(|row| findings.push_row(row));
        } else if len > 0 {
            findings.push_row(len + 5);
        }
    }
}

#[test]
fn findings_that_break_the_contract_are_an_error_naming_the_detector() {
    for backwards in [false, true] {
        let mut config = SimConfig::paper(Policy::Shared);
        config.speculation.lag_secs = 0.0;
        let error = simulate(&config, &Scenario::c1(), 1, Some(&mut Broken { backwards }))
            .expect_err("bad findings");
        let text = error.to_string();
        assert!(text.starts_with("detector broken: row "), "{text}");
        assert_eq!(text.contains("rows must increase"), backwards, "{text}");
    }
}

fn one_core() -> Scenario {
    Scenario::new("one-core", &[100.0])
}

#[test]
fn one_task_alone_takes_its_work() {
    let run = simulate(&exact(1, 1, 1, 0), &one_core(), 1, None).unwrap();
    assert_eq!(run.attempts.len(), 1);
    assert_relative_eq!(run.makespan_secs(), 10.0, max_relative = 1e-12);
    assert_eq!(run.attempts[0].status, AttemptStatus::Succeeded);
}

/// A detection before the timed original's start (of an original that failed, then ran
/// again) counts at that start, as the replay counts it, rather than failing the run's
/// metrics: here the second map (one container), started at 10 s, detected at 5 s.
#[test]
fn a_detection_before_the_timed_originals_start_counts_at_that_start() {
    let config = exact(1, 1, 2, 2);
    let mut run = simulate(&config, &one_core(), 1, None).unwrap();
    let second = run.attempts.iter().find(|a| a.start_secs > 0.0).unwrap();
    assert_relative_eq!(second.start_secs, 10.0, max_relative = 1e-12);
    run.detections.push(Detection {
        task: second.task,
        attempt: second.id,
        time_secs: 5.0,
    });
    let usual = straggler_truth::UsualTimes::from_runs(std::slice::from_ref(&run), 0.5).unwrap();
    let rule = straggler_truth::StragglerRule { factor: 1.2 }
        .check()
        .unwrap();
    let metrics = straggler_sim::RunMetrics::of(&run, &usual, rule, &config).unwrap();
    // No straggler: the detection is a false positive, counted.
    assert_eq!(metrics.0["precision_raw"], Some(0.0));
    assert_eq!(metrics.0["detected"], Some(1.0));
}

/// A run's detection metrics from the library path a scheduler of one's own takes
/// (`straggler_metrics::task_records_of_run`, then `detection_metrics`) are the
/// evaluation's (`RunMetrics::of`), on runs with copies, killed originals and detections.
#[test]
fn records_of_a_run_give_the_evaluations_detection_metrics() {
    let config = SimConfig::default();
    let baselines: Vec<Run> = (0..3)
        .map(|seed| simulate(&config, &Scenario::homogeneous(), seed, None).unwrap())
        .collect();
    let usual = straggler_truth::UsualTimes::from_runs(&baselines, 0.5).unwrap();
    let rule = straggler_truth::StragglerRule::default().check().unwrap();
    for seed in [1, 2] {
        let mut detector = LateDetector::default();
        let run = simulate(&config, &Scenario::c2(), seed, Some(&mut detector)).unwrap();
        assert!(!run.detections.is_empty(), "seed {seed}");
        let evaluation = straggler_sim::RunMetrics::of(&run, &usual, rule, &config).unwrap();
        let usual_secs: Vec<f64> = run
            .tasks
            .iter()
            .map(|task| usual.get(&task.key).unwrap())
            .collect();
        let records = straggler_metrics::task_records_of_run(&run, &usual_secs, |exec, usual| {
            rule.is_straggler(exec, usual)
        })
        .unwrap();
        let m = straggler_metrics::detection_metrics(&records).unwrap();
        for (name, value) in [
            ("precision", m.precision),
            ("precision_raw", m.precision_raw),
            ("recall", m.recall),
            ("detection_latency", m.detection_latency),
            ("undetected_time", m.undetected_time),
            ("fake_positive", m.fake_positive),
        ] {
            assert_eq!(evaluation.0[name], value, "seed {seed}: {name}");
        }
    }
}

/// A detection whose time is NaN (which `max` with the original's start turned into a
/// detection at that start, a perfect one) or whose task is not the run's fails the run's
/// metrics, naming the detection.
#[test]
fn a_detection_that_cannot_be_scored_fails_the_runs_metrics_naming_it() {
    let config = exact(1, 1, 2, 2);
    let run = simulate(&config, &one_core(), 1, None).unwrap();
    let usual = straggler_truth::UsualTimes::from_runs(std::slice::from_ref(&run), 0.5).unwrap();
    let rule = straggler_truth::StragglerRule { factor: 1.2 }
        .check()
        .unwrap();
    let first = &run.attempts[0];
    let nan = Detection {
        task: first.task,
        attempt: first.id,
        time_secs: f64::NAN,
    };
    let unknown = Detection {
        task: straggler_model::TaskId(99),
        time_secs: 5.0,
        ..nan
    };
    for (detection, expected) in [
        (
            nan,
            "detections[0].time_secs must be a finite number, got NaN",
        ),
        (
            unknown,
            "detections[0].task = 99 refers to nothing (there are 4)",
        ),
    ] {
        let mut bad = run.clone();
        bad.detections.insert(0, detection);
        let err = straggler_sim::RunMetrics::of(&bad, &usual, rule, &config).unwrap_err();
        assert!(matches!(err, SimError::Model(_)), "{err:?}");
        assert_eq!(err.to_string(), expected);
    }
}

#[test]
fn two_tasks_sharing_a_core_take_twice_as_long_then_reduces_follow() {
    // Two maps share one core: each runs at rate 1/2, both end at 20 s. Then the two
    // reduces (slowstart 1.0) share it: 2 x 4 = 8 s more, 28 s in all.
    let run = simulate(&exact(1, 2, 2, 2), &one_core(), 1, None).unwrap();
    let ends: Vec<f64> = run.attempts.iter().map(|a| a.end_secs.unwrap()).collect();
    assert_relative_eq!(ends[0], 20.0, max_relative = 1e-12);
    assert_relative_eq!(ends[1], 20.0, max_relative = 1e-12);
    assert_relative_eq!(run.makespan_secs(), 28.0, max_relative = 1e-12);
    // The load timeline: 2 attempts from 0, then 2 reduces from 20, 0 at 28.
    let changes: Vec<(f64, u32)> = run.load[0]
        .changes
        .iter()
        .map(|c| (c.time_secs, c.running))
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(changes[0], (0.0, 2));
    assert_eq!(changes[1].1, 0);
    assert_relative_eq!(changes[1].0, 28.0, max_relative = 1e-12);
}

#[test]
fn energy_of_a_hand_worked_run() {
    // One node, one core, one task of 10 s: P = 65 + 1 x 17 = 82 W for 10 s = 820 J.
    let config = exact(1, 1, 1, 0);
    let run = simulate(&config, &one_core(), 1, None).unwrap();
    let joules = straggler_energy::run_energy_joules(&run, &config.power).unwrap();
    assert_relative_eq!(joules, 820.0, max_relative = 1e-9);
}

#[test]
fn scenarios_give_the_papers_group_sizes() {
    let platform = Platform::default();
    let count = |s: Scenario| {
        let cores = s.active_cores(&platform).unwrap();
        (1..=4)
            .map(|i| cores.iter().filter(|&&c| c == i).count())
            .collect::<Vec<_>>()
    };
    assert_eq!(count(Scenario::c1()), [7, 7, 1, 5]);
    assert_eq!(count(Scenario::c2()), [5, 5, 5, 5]);
    assert_eq!(count(Scenario::c3()), [2, 2, 1, 15]);
    assert_eq!(count(Scenario::c4()), [1, 1, 0, 18]);
    // 10 nodes at (35, 35, 5, 25): 3.5, 3.5, 0.5, 2.5 -> largest remainders, ties to G1 first.
    let small = Platform {
        workers: 10,
        ..platform
    };
    let cores = Scenario::c1().active_cores(&small).unwrap();
    let counts: Vec<usize> = (1..=4)
        .map(|g| cores.iter().filter(|&&c| c == g).count())
        .collect();
    assert_eq!(counts, [4, 4, 0, 2]);
}

#[test]
fn bad_configuration_names_the_key() {
    let mut config = SimConfig::default();
    config.speculation.lag_secs = f64::NAN;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert!(err.to_string().contains("speculation.lag_secs"), "{err}");
    // An infinite lag is refused as not finite, not as below the bound it is above.
    config.speculation.lag_secs = f64::INFINITY;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid configuration: speculation.lag_secs = inf: must be a finite number"
    );
    config.speculation.lag_secs = -1.0;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid configuration: speculation.lag_secs = -1: must be >= 0"
    );

    // The power and slowdown models' keys are named under their tables.
    let mut config = SimConfig::default();
    config.power.idle_watts = -5.0;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert!(
        matches!(&err, SimError::InvalidConfig { field, .. } if field == "power.idle_watts"),
        "{err}"
    );
    let mut config = SimConfig::default();
    config.slowdown.smt_gain = f64::NAN;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert!(
        matches!(&err, SimError::InvalidConfig { field, .. } if field == "slowdown.smt_gain"),
        "{err}"
    );

    let mut config = SimConfig::default();
    config.workload.reduce_slowstart = 1.5;
    let err = simulate(&config, &Scenario::c1(), 1, None).unwrap_err();
    assert!(
        err.to_string().contains("workload.reduce_slowstart"),
        "{err}"
    );

    let err = simulate(
        &SimConfig::default(),
        &Scenario::new("bad", &[50.0, 50.0, 10.0, 0.0]),
        1,
        None,
    )
    .unwrap_err();
    assert!(
        matches!(err, SimError::InvalidConfig { .. })
            && err
                .to_string()
                .contains("group_percent (sum) = 110: must be 100"),
        "{err}"
    );
}

#[test]
fn baseline_run_is_complete_and_never_speculates() {
    let run = simulate(&SimConfig::default(), &Scenario::homogeneous(), 3, None).unwrap();
    assert_eq!(run.tasks.len(), 480);
    assert_eq!(run.attempts.len(), 480);
    assert!(run.detections.is_empty());
    assert!(
        run.attempts
            .iter()
            .all(|a| a.status == AttemptStatus::Succeeded)
    );
    // Two map waves then one reduce wave: the makespan is a few map times.
    assert!(
        run.makespan_secs() > 100.0 && run.makespan_secs() < 300.0,
        "{}",
        run.makespan_secs()
    );
    assert!(
        run.load
            .iter()
            .all(|l| l.changes.last().is_some_and(|c| c.running == 0))
    );
}

#[test]
fn same_seed_same_run_other_seed_other_run() {
    let run = |seed| {
        let mut d = DefaultDetector::default();
        simulate(&SimConfig::default(), &Scenario::c2(), seed, Some(&mut d)).unwrap()
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

/// The load the simulator records is the one `Run::load_from_attempts` derives from the
/// attempts, so that a run built from another scheduler's records has its energy computed
/// as a simulated one's.
#[test]
fn recorded_load_is_the_load_of_the_attempts() {
    for seed in [1, 2, 3] {
        let mut d = DefaultDetector::default();
        let run = simulate(&SimConfig::default(), &Scenario::c2(), seed, Some(&mut d)).unwrap();
        assert!(run.speculative_attempts().count() > 0, "seed {seed}");
        assert_eq!(run.load_from_attempts().unwrap(), run.load, "seed {seed}");
    }
}

/// Checks the invariants of a run with speculation: at most one copy per task, every
/// finished task has exactly one succeeded attempt, a killed sibling ends when the winner
/// does, and detections are first detections in time order.
fn check_invariants(run: &Run) {
    for task in &run.tasks {
        let attempts: Vec<_> = run.attempts.iter().filter(|a| a.task == task.id).collect();
        let copies = attempts
            .iter()
            .filter(|a| a.role == AttemptRole::Speculative)
            .count();
        assert!(copies <= 1, "task {} has {copies} copies", task.key);
        let winners: Vec<_> = attempts
            .iter()
            .filter(|a| a.status == AttemptStatus::Succeeded)
            .collect();
        assert_eq!(winners.len(), 1, "task {}", task.key);
        for loser in attempts
            .iter()
            .filter(|a| a.status == AttemptStatus::Killed)
        {
            assert_eq!(loser.end_secs, winners[0].end_secs);
        }
    }
    assert!(
        run.detections
            .windows(2)
            .all(|w| w[0].time_secs <= w[1].time_secs)
    );
    let mut tasks: Vec<_> = run.detections.iter().map(|d| d.task).collect();
    tasks.sort_unstable();
    tasks.dedup();
    assert_eq!(tasks.len(), run.detections.len());
}

/// When the last original map started: from then on no map waits for a container.
fn last_map_start(run: &Run) -> f64 {
    run.attempts
        .iter()
        .filter(|a| {
            a.role == AttemptRole::Original && run.tasks[a.task.index()].key.kind == TaskKind::Map
        })
        .map(|a| a.start_secs)
        .fold(0.0, f64::max)
}

#[test]
fn x100_detects_after_the_lag_but_copies_only_once_no_map_waits() {
    let mut detector = DefaultDetector::default();
    let run = simulate(
        &SimConfig::paper(Policy::X100),
        &Scenario::c2(),
        9,
        Some(&mut detector),
    )
    .unwrap();
    check_invariants(&run);
    let last_map_start = last_map_start(&run);
    let first_detection = run.detections[0].time_secs;
    assert!(
        first_detection >= 20.0 && first_detection < last_map_start,
        "{first_detection} {last_map_start}"
    );
    assert!(run.speculative_attempts().count() > 0);
    assert!(
        run.speculative_attempts()
            .all(|c| c.start_secs >= last_map_start)
    );
}

#[test]
fn shared_launches_copies_during_the_first_wave() {
    let mut detector = LateDetector::default();
    let run = simulate(
        &SimConfig::paper(Policy::Shared),
        &Scenario::c2(),
        9,
        Some(&mut detector),
    )
    .unwrap();
    check_invariants(&run);
    let first_copy = run
        .speculative_attempts()
        .map(|a| a.start_secs)
        .fold(f64::INFINITY, f64::min);
    assert!(first_copy < last_map_start(&run), "first copy {first_copy}");
}

#[test]
fn no_detection_before_the_lag() {
    let mut config = SimConfig::paper(Policy::Shared);
    config.speculation.lag_secs = 45.0;
    let mut detector = DefaultDetector::default();
    let run = simulate(&config, &Scenario::c1(), 2, Some(&mut detector)).unwrap();
    assert!(!run.detections.is_empty());
    assert!(run.detections.iter().all(|d| d.time_secs > 45.0));
    // Table 1: the job must have run *longer* than the lag. Scans every second and a
    // detector that flags every attempt: the first detection is at 46 s, not at 45.
    let run = simulate(&config, &Scenario::c1(), 2, Some(&mut All)).unwrap();
    assert_eq!(run.detections[0].time_secs, 46.0);
}

#[test]
fn a_detector_that_flags_everything_copies_every_task_once() {
    let mut config = exact(2, 2, 4, 0);
    config.speculation.policy = Policy::Shared;
    config.speculation.lag_secs = 0.0;
    let run = simulate(&config, &Scenario::new("two", &[100.0]), 1, Some(&mut All)).unwrap();
    check_invariants(&run);
    assert_eq!(run.detections.len(), 4);
}

#[test]
fn the_oracle_bounds_every_detector() {
    // The oracle knows the stragglers of the undisturbed run of the same seed and flags
    // each at 10% of its time: no detector finds more of them, and almost all it flags
    // are stragglers of the run it is evaluated on (copies change a few tasks' times).
    let results = small_eval().run().unwrap();
    let mean = |scenario: &str, detector: &str, metric: &str| {
        let cell = results.cell("table6", scenario, "x100", detector).unwrap();
        cell.metrics[metric].mean.unwrap()
    };
    for scenario in ["C2", "C4"] {
        let oracle_recall = mean(scenario, "oracle", "recall");
        assert!(mean(scenario, "oracle", "precision") >= 0.8, "{scenario}");
        assert!(oracle_recall >= 0.9, "{scenario}: recall {oracle_recall}");
        for detector in ["default", "hierarchical", "late"] {
            assert!(
                oracle_recall >= mean(scenario, detector, "recall"),
                "{scenario} {detector}"
            );
        }
    }
}

/// Table 6 in C2 and C4, Figure 3 at two lags in C2, Table 7 with two policies in C2.
fn small_eval() -> Evaluation {
    Evaluation::paper().with_config(EvalConfig {
        repetitions: 3,
        baseline_runs: 3,
        scenarios: vec![Scenario::c2(), Scenario::c4()],
        fig3: Fig3Config {
            lags_secs: vec![0.0, 60.0],
            scenarios: vec![Scenario::c2()],
            ..Fig3Config::default()
        },
        table7: Table7Config {
            scenarios: vec![Scenario::c2()],
            policies: vec![
                Policy::X100,
                Policy::Reserved {
                    regular_percent: 50,
                },
            ],
        },
        ..EvalConfig::default()
    })
}

#[test]
fn a_policy_in_the_configs_sim_is_refused_each_cell_sets_its_own() {
    // Each cell sets its own policy, and the baselines (the usual times) run under x100
    // with all 160 containers for regular tasks; a `sim` naming x50 would be ignored, so
    // it is refused rather than silently dropped.
    let mut config = EvalConfig::default();
    config.sim.speculation.policy = Policy::Reserved {
        regular_percent: 50,
    };
    let err = Evaluation::paper().with_config(config).run().unwrap_err();
    assert!(
        matches!(&err, SimError::InvalidConfig { field, value, .. }
            if field == "sim.speculation.policy" && value == "x50"),
        "{err}"
    );
}

#[test]
fn evaluation_is_the_same_on_one_thread_and_on_two() {
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let results = pool.install(|| small_eval().run()).unwrap();
        serde_json::to_string(&results).unwrap()
    };
    assert_eq!(on(1), on(2));
}

#[test]
fn evaluation_results_have_the_schema_and_every_cell() {
    let results = small_eval().run().unwrap();
    assert_eq!(results.schema, "stragglers.eval/1");
    // Four detectors: the paper's three and the oracle.
    assert_eq!(results.cells.len(), 2 * 2 * 4 + 2 + 2 * 4);
    let experiments: Vec<&str> = results
        .cells
        .iter()
        .map(|c| c.experiment.as_str())
        .collect();
    assert_eq!(experiments.iter().filter(|&&e| e == "table6").count(), 16);
    let fig3 = results.cell("fig3", "C2", "x100", "default").unwrap();
    assert_eq!(fig3.params["speculative_lag_secs"], 0.0);
    assert!(results.cell("table7", "C2", "x50", "late").is_some());
    assert_eq!(results.baseline.quantiles.len(), 5);
    let json = serde_json::to_value(&results).unwrap();
    let cell = &json["cells"][0];
    for key in [
        "experiment",
        "scenario",
        "policy",
        "detector",
        "params",
        "repetitions",
        "metrics",
    ] {
        assert!(cell.get(key).is_some(), "cell lacks {key}");
    }
    for name in [
        "precision",
        "precision_raw",
        "recall",
        "detection_latency",
        "undetected_time",
        "fake_positive",
        "execution_time_secs",
        "energy_joules",
        "speculative_copies",
        "successful_copies",
        "unsuccessful_copies",
        "execution_time_norm",
        "energy_norm",
        "predicted_time_overhead",
        "predicted_energy_overhead",
        "killed_original_time_gap",
        "label_disagreements",
    ] {
        let metric = &cell["metrics"][name];
        assert!(
            metric.get("mean").is_some() && metric.get("ci95").is_some(),
            "{name}: {metric}"
        );
    }
    assert_eq!(cell["params"]["speculative_lag_secs"], 20.0);
}

#[test]
fn custom_detectors_run_through_the_evaluation() {
    let never = DetectorSpec::new("never", "flags nothing", || {
        struct Never;
        impl Detector for Never {
            fn name(&self) -> &str {
                "never"
            }
            fn scan(&mut self, _: &Snapshot, _: &mut Findings) {}
        }
        Box::new(Never)
    });
    let results = small_eval().with_detectors(vec![never]).run().unwrap();
    let cell = results.cell("table6", "C2", "x100", "never").unwrap();
    assert_eq!(cell.metrics["recall"].mean, Some(0.0));
    assert_eq!(cell.metrics["precision"].mean, None);
    assert_eq!(cell.metrics["speculative_copies"].mean, Some(0.0));
}

/// A second detector of a name already given, or a name that is no name, is refused:
/// before, the cells of a second "late" repeated the built-in's without running it, and
/// the table showed the built-in's numbers under it.
#[test]
fn detectors_of_one_name_or_of_no_name_are_refused() {
    let made = |name: &'static str| {
        DetectorSpec::new(name, "a detector of the user's", || {
            panic!("never made: the evaluation refuses its name")
        })
    };
    for (name, expected) in [
        ("late", "a name no other detector has"),
        ("Upper Case", "a name in lower case without whitespace"),
        ("", "a name in lower case without whitespace"),
    ] {
        let mut detectors = DetectorSpec::paper_and_oracle();
        detectors.push(made(name));
        let err = small_eval().with_detectors(detectors).run().unwrap_err();
        assert!(
            matches!(&err, SimError::InvalidConfig { field, value, expected: e }
                if field == "detectors" && *value == format!("{name:?}") && e == expected),
            "{err}"
        );
    }
}

/// A run that fails names its cell, repetition and seed, so that it can be run again
/// alone; before, an evaluation's error named only the detector.
#[test]
fn a_failed_run_names_its_cell_repetition_and_seed() {
    struct PastTheEnd;
    impl Detector for PastTheEnd {
        fn name(&self) -> &str {
            "past-the-end"
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            findings.push_row(snapshot.len() as u32);
        }
    }
    let spec = DetectorSpec::new("past-the-end", "flags a row past the end", || {
        Box::new(PastTheEnd)
    });
    let err = small_eval().with_detectors(vec![spec]).run().unwrap_err();
    let SimError::Run {
        cell,
        repetition,
        seed,
        error,
    } = &err
    else {
        panic!("not a run's error: {err}");
    };
    assert!(cell.ends_with(" past-the-end"), "{cell}");
    assert!(*repetition < 3, "{repetition}");
    let text = err.to_string();
    assert!(
        text.contains(&format!("repetition {repetition} (seed {seed})")),
        "{text}"
    );
    assert!(
        error.to_string().contains("flagged in a snapshot of"),
        "{error}"
    );
}

/// A detector that panics fails its run with an error naming the cell and seed; before,
/// the panic unwound through the pool and the process ended with a backtrace that named
/// neither.
#[test]
fn a_detector_that_panics_fails_its_run_with_an_error() {
    struct PanicsOnAnEnd;
    impl Detector for PanicsOnAnEnd {
        fn name(&self) -> &str {
            "panics-on-an-end"
        }
        fn scan(&mut self, _: &Snapshot, _: &mut Findings) {}
        fn observe(&mut self, observation: &Observation) {
            if let Observation::AttemptEnded(end) = observation
                && end.status == AttemptStatus::Succeeded
            {
                panic!("an end I did not expect");
            }
        }
    }
    let spec = DetectorSpec::new("panics-on-an-end", "panics on an attempt's end", || {
        Box::new(PanicsOnAnEnd)
    });
    let mut detectors = DetectorSpec::paper_and_oracle();
    detectors.push(spec);
    let Err(err) = small_eval().with_detectors(detectors).run() else {
        panic!("the evaluation ran through");
    };
    let SimError::Run { cell, error, .. } = &err else {
        panic!("not a run's error: {err}");
    };
    assert!(cell.ends_with(" panics-on-an-end"), "{cell}");
    assert_eq!(
        error.to_string(),
        "the run panicked: an end I did not expect",
        "{err}"
    );
}

#[test]
fn default_slowdown_ratios_between_groups_match_the_docs() {
    // With 8 attempts, G1, G2, G3 run 4.0, 2.0 and 1.3 times slower than G4 (one
    // decimal): G4 1.554, G1 5.76 + 0.1 x 1.02 x 8/2 = 6.168 (3.97), G2 2.88 + 0.1 x 1.06
    // x 8/4 = 3.092 (1.99), G3 1.92 + 0.1 x 1.10 x 8/6 = 2.0667 (1.33), as
    // docs/simulation.md says.
    let model = SlowdownModel::default();
    let node = |active| {
        straggler_model::Node::new(straggler_model::NodeId(0), 4, 2, 8).with_active_cores(active)
    };
    let g4 = model.rate(&node(4), 8);
    let ratios: Vec<String> = [1, 2, 3]
        .iter()
        .map(|&c| format!("{:.1}", g4 / model.rate(&node(c), 8)))
        .collect();
    assert_eq!(ratios, ["4.0", "2.0", "1.3"]);
    // docs/simulation.md: a map of 40 s of work takes about 62 s on a full G4 node.
    let map_secs = straggler_sim::Workload::default().map_work_secs / g4;
    assert_eq!(format!("{map_secs:.0}"), "62");
}

#[test]
fn detectors_see_only_attempts_that_have_reported_progress() {
    // Heartbeats every 3 s: at a scan at time t every row started at or before the last
    // heartbeat, floor(t / 3) * 3.
    struct Ages(Vec<(f64, f64)>);
    impl Detector for Ages {
        fn name(&self) -> &str {
            "ages"
        }
        fn scan(&mut self, snapshot: &Snapshot, _: &mut Findings) {
            let latest = snapshot
                .start_secs()
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            self.0.push((snapshot.now_secs(), latest));
        }
    }
    let mut ages = Ages(Vec::new());
    simulate(&SimConfig::default(), &Scenario::c2(), 4, Some(&mut ages)).unwrap();
    assert!(ages.0.len() > 100);
    for (now, latest_start) in ages.0 {
        assert!(
            latest_start <= (now / 3.0).floor() * 3.0,
            "scan at {now} sees an attempt started at {latest_start}"
        );
    }
}

#[test]
fn a_copy_that_loses_is_killed_with_the_progress_it_reached() {
    // One node, one core, two containers, one map of 10 s; Shared, lag 0, a detector that
    // flags everything. The map runs alone at rate 1 and first reports at 3 s (3 s done);
    // the scan at 3 s detects it and its copy starts then. Two attempts share the core at
    // rate 1/2: the original's last 7 s of work take 14 s, it ends at 17 s; the copy has
    // done 14 x 1/2 = 7 s of its 10 s and is killed then, at progress 0.7.
    // The copy runs beside its original, so the placement rule is lifted.
    let mut config = exact(1, 2, 1, 0);
    config.speculation.policy = Policy::Shared;
    config.speculation.lag_secs = 0.0;
    config.copies.placement.avoid_original_node = false;
    let run = simulate(&config, &one_core(), 1, Some(&mut All)).unwrap();
    assert_eq!(run.detections.len(), 1);
    assert_relative_eq!(run.detections[0].time_secs, 3.0);
    let (original, copy) = (&run.attempts[0], &run.attempts[1]);
    assert_eq!(
        (original.status, copy.status),
        (AttemptStatus::Succeeded, AttemptStatus::Killed)
    );
    assert_relative_eq!(original.end_secs.unwrap(), 17.0, max_relative = 1e-12);
    assert_relative_eq!(copy.start_secs, 3.0);
    assert_relative_eq!(copy.end_secs.unwrap(), 17.0, max_relative = 1e-12);
    assert_relative_eq!(copy.progress_at_end, 0.7, max_relative = 1e-12);
}

/// Flags every row from `from_secs` on, and records the progress reports it observes, and
/// the first observation.
struct ReportRecorder {
    from_secs: f64,
    reports: Vec<(u32, f64, f64)>,
    first: Option<Observation>,
}

impl Detector for ReportRecorder {
    fn name(&self) -> &str {
        "report-recorder"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        if snapshot.now_secs() >= self.from_secs {
            (0..snapshot.len() as u32).for_each(|row| findings.push_row(row));
        }
    }
    fn observe(&mut self, observation: &Observation) {
        self.first.get_or_insert(*observation);
        if let Observation::Progress(report) = observation {
            self.reports
                .push((report.attempt.0, report.time_secs, report.progress));
        }
    }
}

#[test]
fn per_attempt_reports_come_a_heartbeat_after_each_launch() {
    // One core, two containers, one map of 10 s; scans every second, reports every 3 s;
    // the copy starts at the scan at 4 s, beside its original, both then at rate 1/2.
    // Per attempt: the original reports at 3 s (3 s done, 0.3) and 6 s (3 + 1 + 2 x 1/2 =
    // 5 s, 0.5); the copy at 7 s (3 x 1/2 = 1.5 s, 0.15). At common instants the copy
    // reports at 6 s, 2 s after its launch (1 s done, 0.1).
    let run = |per_attempt: bool| {
        let mut config = exact(1, 2, 1, 0);
        config.speculation.policy = Policy::Shared;
        config.speculation.lag_secs = 0.0;
        config.speculation.per_attempt_reports = per_attempt;
        config.copies.placement.avoid_original_node = false;
        let mut recorder = ReportRecorder {
            from_secs: 4.0,
            reports: Vec::new(),
            first: None,
        };
        simulate(&config, &one_core(), 1, Some(&mut recorder)).unwrap();
        // The job's submission comes first, at the start of the run.
        assert_eq!(
            recorder.first,
            Some(Observation::JobSubmitted {
                job: JobId(0),
                time_secs: 0.0
            })
        );
        recorder.reports
    };
    let first = |reports: &[(u32, f64, f64)], attempt: u32, n: usize| {
        reports
            .iter()
            .filter(|r| r.0 == attempt)
            .take(n)
            .map(|r| (r.1, r.2))
            .collect::<Vec<_>>()
    };
    let own = run(true);
    let original = first(&own, 0, 2);
    assert_relative_eq!(original[0].0, 3.0);
    assert_relative_eq!(original[0].1, 0.3, max_relative = 1e-12);
    assert_relative_eq!(original[1].0, 6.0);
    assert_relative_eq!(original[1].1, 0.5, max_relative = 1e-12);
    let copy = first(&own, 1, 1);
    assert_relative_eq!(copy[0].0, 7.0);
    assert_relative_eq!(copy[0].1, 0.15, max_relative = 1e-12);
    let common = first(&run(false), 1, 1);
    assert_relative_eq!(common[0].0, 6.0);
    assert_relative_eq!(common[0].1, 0.1, max_relative = 1e-12);
}

#[test]
fn tiny_tasks_finish_and_the_time_limit_is_exact() {
    // Work much smaller than an ulp of the clock must still complete (it once stopped time).
    let mut config = SimConfig::default();
    config.workload.reduce_work_secs = 0.01;
    let mut detector = DefaultDetector::default();
    let run = simulate(&config, &Scenario::c2(), 0, Some(&mut detector)).unwrap();
    assert!(
        run.attempts
            .iter()
            .all(|a| a.status != AttemptStatus::Running)
    );

    let makespan = simulate(&SimConfig::default(), &Scenario::homogeneous(), 3, None)
        .unwrap()
        .makespan_secs();
    let mut config = SimConfig {
        time_limit_secs: makespan + 0.5,
        ..SimConfig::default()
    };
    assert!(simulate(&config, &Scenario::homogeneous(), 3, None).is_ok());
    config.time_limit_secs = makespan - 0.5;
    let err = simulate(&config, &Scenario::homogeneous(), 3, None).unwrap_err();
    assert!(
        matches!(
            err,
            SimError::DidNotFinish { done, total: 480, .. } if done < 480
        ),
        "{err}"
    );
}

#[test]
fn waiting_for_pending_tasks_delays_detection_until_every_map_started() {
    let mut config = SimConfig::paper(Policy::X100);
    config.speculation.wait_for_pending_tasks = true;
    let mut detector = DefaultDetector::default();
    let run = simulate(&config, &Scenario::c2(), 9, Some(&mut detector)).unwrap();
    let last = last_map_start(&run);
    assert!(!run.detections.is_empty());
    assert!(
        run.detections.iter().all(|d| d.time_secs >= last),
        "a detection before {last}"
    );
}

// ---- Section 7: reservation policies, copy controls, killed originals ----

/// The copies of a run with, for each, its original's node.
fn copies_with_original_node(run: &Run) -> Vec<(&straggler_model::Attempt, u32)> {
    run.speculative_attempts()
        .map(|copy| {
            let original = run
                .attempts
                .iter()
                .find(|a| a.task == copy.task && a.role == AttemptRole::Original)
                .expect("a copied task has an original");
            (copy, original.node.0)
        })
        .collect()
}

fn first_copy_start(run: &Run) -> f64 {
    run.speculative_attempts()
        .map(|a| a.start_secs)
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn reservation_is_applied_to_the_cluster_not_per_node() {
    let platform = Platform::default();
    let order: Vec<usize> = (0..20).rev().collect();
    let regular = |percent| {
        Policy::Reserved {
            regular_percent: percent,
        }
        .regular_limits(&platform, &order)
    };
    // floor(x% of 160): 160, 152, 144, 120, 80 regular containers.
    for (percent, total) in [(100, 160), (95, 152), (90, 144), (75, 120), (50, 80)] {
        assert_eq!(regular(percent).iter().sum::<u32>(), total, "x{percent}");
    }
    // x95: the 8 reserved containers go to the first 8 nodes of the order (19 down to 12).
    let x95 = regular(95);
    assert!(x95[12..].iter().all(|&l| l == 7) && x95[..12].iter().all(|&l| l == 8));
    assert_ne!(x95, regular(90));
    assert_eq!(
        Policy::Shared.regular_limits(&platform, &order),
        vec![8; 20]
    );
}

/// `Policy::regular_limits` is total: no worker, a share above 100% or of 0%, an order
/// past the last node, a platform of the largest counts give limits, no panic.
#[test]
fn regular_limits_are_total_for_any_platform() {
    let reserved = |regular_percent| Policy::Reserved { regular_percent };
    let no_worker = Platform {
        workers: 0,
        ..Platform::default()
    };
    for policy in [Policy::X100, reserved(50), reserved(0), Policy::Shared] {
        assert_eq!(
            policy.regular_limits(&no_worker, &[0, 1]),
            Vec::<u32>::new()
        );
    }
    let two = Platform {
        workers: 2,
        containers: 7,
        ..Platform::default()
    };
    // 14 containers, 7 regular: 3 reserved on each node and the 7th on the first of the
    // order, here past the last node: skipped.
    assert_eq!(reserved(50).regular_limits(&two, &[5, 0]), [4, 4]);
    assert_eq!(reserved(50).regular_limits(&two, &[1, 0]), [4, 3]);
    assert_eq!(reserved(0).regular_limits(&two, &[]), [0, 0]);
    for percent in [101, u32::MAX] {
        assert_eq!(reserved(percent).regular_limits(&two, &[0, 1]), [7, 7]);
    }
    let widest = Platform {
        workers: 2,
        containers: u32::MAX,
        ..Platform::default()
    };
    assert_eq!(
        reserved(u32::MAX).regular_limits(&widest, &[0]),
        [u32::MAX, u32::MAX]
    );
    assert_eq!(
        reserved(50).regular_limits(&widest, &[1]),
        [u32::MAX / 2 + 1, u32::MAX / 2]
    );
}

/// `Scenario::homogeneous_on` and `Scenario::active_cores` allocate per core and per
/// worker: counts above the limits are errors naming the key, not allocations that abort.
#[test]
fn scenarios_refuse_counts_above_the_limits_before_allocating() {
    let cores = Platform {
        cores: u32::MAX,
        ..Platform::default()
    };
    let err = Scenario::homogeneous_on(&cores).expect_err("u32::MAX cores");
    assert_above_limit(&err, "platform.cores", 1024);
    let workers = Platform {
        workers: u32::MAX,
        ..Platform::default()
    };
    let err = Scenario::c1()
        .active_cores(&workers)
        .expect_err("u32::MAX workers");
    assert_above_limit(&err, "platform.workers", 1_000_000);
    let most = Platform {
        workers: 1_000_000,
        ..Platform::default()
    };
    assert_eq!(Scenario::c1().active_cores(&most).unwrap().len(), 1_000_000);
}

/// The most attempts running at once over a run, of those `counted` (an attempt's end
/// frees its container before a start at the same instant takes it).
fn most_running(run: &Run, counted: impl Fn(&straggler_model::Attempt) -> bool) -> usize {
    let mut events: Vec<(f64, i32)> = Vec::new();
    for attempt in run.attempts.iter().filter(|a| counted(a)) {
        events.push((attempt.start_secs, 1));
        events.push((attempt.end_secs.expect("a finished run"), -1));
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut running, mut most) = (0i32, 0i32);
    for (_, change) in events {
        running += change;
        most = most.max(running);
    }
    most as usize
}

#[test]
fn a_reservation_holds_over_a_whole_run() {
    // Default in C2 under x50: at no instant do more than 80 originals run (the regular
    // containers), nor more than 8 attempts on a node, nor more than 160 in all; and the
    // reserved containers are used, by copies (more than 160 - 80 = 80 attempts at once
    // would need them). Under x100 the originals fill all 160.
    let run_under = |policy| {
        simulate(
            &SimConfig::paper(policy),
            &Scenario::c2(),
            7,
            Some(&mut DefaultDetector::default()),
        )
        .unwrap()
    };
    let run = run_under(Policy::Reserved {
        regular_percent: 50,
    });
    let original = |a: &straggler_model::Attempt| a.role == AttemptRole::Original;
    assert_eq!(most_running(&run, original), 80);
    assert!(most_running(&run, |_| true) > 80);
    assert!(most_running(&run, |_| true) <= 160);
    for node in 0..20 {
        let on_node = most_running(&run, |a| a.node == NodeId(node));
        assert!(on_node <= 8, "node {node}: {on_node} at once");
    }
    assert_eq!(most_running(&run_under(Policy::X100), original), 160);
}

#[test]
fn x50_launches_copies_earlier_than_x100() {
    let run = |policy| {
        simulate(
            &SimConfig::paper(policy),
            &Scenario::c2(),
            7,
            Some(&mut DefaultDetector::default()),
        )
        .unwrap()
    };
    let x100 = first_copy_start(&run(Policy::X100));
    let x50 = first_copy_start(&run(Policy::Reserved {
        regular_percent: 50,
    }));
    // x100 waits for the last map to start; x50 copies right after the first detections,
    // which come after the 20 s lag and the first progress reports.
    assert!((20.0..30.0).contains(&x50), "x50 first copy at {x50}");
    assert!(x100 > 2.0 * x50, "x100 first copy at {x100}, x50 at {x50}");
}

#[test]
fn a_blacklisted_node_receives_no_copy() {
    let mut config = SimConfig::paper(Policy::Shared);
    config.copies.placement.blacklist = vec![0, 1, 2, 3, 4];
    let run = simulate(&config, &Scenario::c2(), 3, Some(&mut All)).unwrap();
    check_invariants(&run);
    assert!(run.speculative_attempts().count() > 50);
    assert!(run.speculative_attempts().all(|a| a.node.0 >= 5));
    // Regular tasks still run there.
    assert!(
        run.attempts
            .iter()
            .any(|a| a.role == AttemptRole::Original && a.node.0 < 5)
    );
}

/// Flags every attempt and reports node 0 slow.
struct AllAndNodeZeroSlow;

impl Detector for AllAndNodeZeroSlow {
    fn name(&self) -> &str {
        "all-node-0-slow"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (0..snapshot.len() as u32).for_each(|row| findings.push_row(row));
        findings.push_slow_node(straggler_model::NodeId(0));
    }
}

#[test]
fn nodes_the_detector_reports_slow_receive_no_copy_when_asked() {
    let mut config = SimConfig::paper(Policy::Shared);
    let on_node_zero = |config: &SimConfig| {
        let run = simulate(config, &Scenario::c2(), 3, Some(&mut AllAndNodeZeroSlow)).unwrap();
        run.speculative_attempts().filter(|a| a.node.0 == 0).count()
    };
    assert!(on_node_zero(&config) > 0);
    config.copies.placement.avoid_slow_nodes = true;
    assert_eq!(on_node_zero(&config), 0);
}

/// Reports `node` slow at the scans in `[from_secs, until_secs)` under `rule`, and flags
/// every attempt.
struct Judge {
    rule: SlowNodeRule,
    node: u32,
    from_secs: f64,
    until_secs: f64,
}

impl Detector for Judge {
    fn name(&self) -> &str {
        "judge"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (0..snapshot.len() as u32).for_each(|row| findings.push_row(row));
        let now = snapshot.now_secs();
        if now >= self.from_secs && now < self.until_secs {
            findings.push_slow_node(NodeId(self.node));
        }
    }
    fn slow_node_rule(&self) -> SlowNodeRule {
        self.rule
    }
}

/// The attempts of `run` of `role` (any role if `None`) started on `node` in `(from, to)`.
fn started_on(run: &Run, node: u32, role: Option<AttemptRole>, from: f64, to: f64) -> usize {
    run.attempts
        .iter()
        .filter(|a| a.node.0 == node && role.is_none_or(|r| a.role == r))
        .filter(|a| a.start_secs > from && a.start_secs < to)
        .count()
}

#[test]
fn a_node_under_no_new_work_receives_no_task_and_no_copy_until_the_rule_lifts() {
    // Node 0 is reported slow by the scans from 20 s (the lag) to 99 s, under DSB's rule:
    // from the scan at 20 s until the scan at 100 s no attempt, original or copy, starts
    // there; before and after, it works as any node. x50: copies launch from 20 s on the
    // reserved containers while the second wave of maps starts on the others.
    let mut config = SimConfig::paper(Policy::Reserved {
        regular_percent: 50,
    });
    let run_with = |config: &SimConfig| {
        let mut judge = Judge {
            rule: SlowNodeRule::NoNewWork,
            node: 0,
            from_secs: 20.0,
            until_secs: 100.0,
        };
        let run = simulate(config, &Scenario::c2(), 3, Some(&mut judge)).unwrap();
        check_invariants(&run);
        run
    };
    let run = run_with(&config);
    assert!(started_on(&run, 0, None, -1.0, 20.0) > 0);
    assert_eq!(started_on(&run, 0, None, 20.0, 100.0), 0);
    assert!(started_on(&run, 0, Some(AttemptRole::Original), 100.0, f64::INFINITY) > 0);
    let elsewhere: usize = (1..20)
        .map(|n| started_on(&run, n, Some(AttemptRole::Original), 20.0, 100.0))
        .sum();
    assert!(elsewhere > 0);
    // The same run with the rule not followed: node 0 gets tasks and copies meanwhile.
    config.copies.placement.follow_slow_node_rule = false;
    let ignored = run_with(&config);
    assert!(started_on(&ignored, 0, Some(AttemptRole::Original), 20.0, 100.0) > 0);
    assert!(started_on(&ignored, 0, Some(AttemptRole::Speculative), 20.0, 100.0) > 0);
    // avoid_slow_nodes alone keeps the copies off, not the tasks.
    config.copies.placement.avoid_slow_nodes = true;
    let copies_only = run_with(&config);
    assert_eq!(
        started_on(&copies_only, 0, Some(AttemptRole::Speculative), 20.0, 100.0),
        0
    );
    assert!(started_on(&copies_only, 0, Some(AttemptRole::Original), 20.0, 100.0) > 0);
}

/// Reports every node slow at every scan under `NoNewWork`; flags nothing.
struct BlockEveryNode;

impl Detector for BlockEveryNode {
    fn name(&self) -> &str {
        "block-every-node"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        (0..snapshot.node_count()).for_each(|node| findings.push_slow_node(NodeId(node)));
    }
    fn slow_node_rule(&self) -> SlowNodeRule {
        SlowNodeRule::NoNewWork
    }
}

#[test]
fn a_detector_blocking_every_node_ends_the_run_at_the_time_limit() {
    // Two one-container nodes, eight maps of 10 s: waves start at 0, 10 and 20 s. Scans
    // count from the lag, 20 s; at 20 s the third wave is placed before the scan, which
    // then blocks both nodes for good. The third wave ends at 30 s, 6 of 8 tasks done; the
    // clock runs on, scan by scan, to the limit: a typed error, not a hang.
    let mut config = exact(2, 1, 8, 0);
    config.time_limit_secs = 100.0;
    let err = simulate(&config, &one_core(), 0, Some(&mut BlockEveryNode)).unwrap_err();
    assert!(
        matches!(
            err,
            SimError::DidNotFinish {
                limit_secs: 100.0,
                done: 6,
                total: 8
            }
        ),
        "{err}"
    );
    // The rule not followed, the same detector lets the job finish in four waves.
    config.copies.placement.follow_slow_node_rule = false;
    let run = simulate(&config, &one_core(), 0, Some(&mut BlockEveryNode)).unwrap();
    assert_relative_eq!(run.makespan_secs(), 40.0, max_relative = 1e-12);
}

#[test]
fn a_node_under_no_copies_receives_tasks_but_no_copy() {
    // eSplash's and LATE's rule: node 0, reported slow at every scan, still receives new
    // regular tasks, never a copy.
    let mut config = SimConfig::paper(Policy::Shared);
    let run_with = |config: &SimConfig| {
        let mut judge = Judge {
            rule: SlowNodeRule::NoCopies,
            node: 0,
            from_secs: 0.0,
            until_secs: f64::INFINITY,
        };
        simulate(config, &Scenario::c2(), 3, Some(&mut judge)).unwrap()
    };
    let run = run_with(&config);
    check_invariants(&run);
    assert!(run.speculative_attempts().count() > 50);
    assert_eq!(
        started_on(&run, 0, Some(AttemptRole::Speculative), -1.0, f64::INFINITY),
        0
    );
    assert!(started_on(&run, 0, Some(AttemptRole::Original), 20.0, f64::INFINITY) > 0);
    config.copies.placement.follow_slow_node_rule = false;
    let ignored = run_with(&config);
    assert!(
        started_on(
            &ignored,
            0,
            Some(AttemptRole::Speculative),
            -1.0,
            f64::INFINITY
        ) > 0
    );
}

/// Runs a detector and records the slow nodes of each of its scans.
struct Recorder<D> {
    inner: D,
    scans: Vec<(f64, Vec<NodeId>)>,
}

impl<D: Detector> Detector for Recorder<D> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        self.inner.scan(snapshot, findings);
        self.scans
            .push((snapshot.now_secs(), findings.slow_nodes().to_vec()));
    }
    fn observe(&mut self, observation: &straggler_model::Observation) {
        self.inner.observe(observation);
    }
    fn reset(&mut self) {
        self.inner.reset();
        self.scans.clear();
    }
    fn slow_node_rule(&self) -> SlowNodeRule {
        self.inner.slow_node_rule()
    }
}

#[test]
fn dsb_blacklisted_nodes_receive_no_new_attempt_while_blacklisted() {
    // An attempt that starts at t was placed under the blacklist of the last scan before
    // t, or, at a scan's instant, under that one or the one before (containers are filled
    // before and after a scan).
    for (policy, scenario) in [
        (Policy::X100, Scenario::c1()),
        (Policy::Shared, Scenario::c2()),
    ] {
        let mut recorder = Recorder {
            inner: Dsb::default(),
            scans: Vec::new(),
        };
        let run = simulate(&SimConfig::paper(policy), &scenario, 4, Some(&mut recorder)).unwrap();
        check_invariants(&run);
        let scans = &recorder.scans;
        let listed = |i: usize, node: NodeId| scans[i].1.contains(&node);
        let mut blacklisted_starts = 0;
        for attempt in &run.attempts {
            let before = scans.partition_point(|(t, _)| *t < attempt.start_secs);
            let Some(last) = before.checked_sub(1) else {
                continue;
            };
            let at_scan = scans
                .get(before)
                .is_some_and(|(t, _)| *t == attempt.start_secs);
            let under_last = listed(last, attempt.node);
            if under_last && (!at_scan || listed(before, attempt.node)) {
                blacklisted_starts += 1;
            }
        }
        assert_eq!(blacklisted_starts, 0, "{}", policy.name());
        // Not vacuous: DSB blacklisted nodes for a while.
        let blacklisting_scans = scans.iter().filter(|(_, nodes)| !nodes.is_empty()).count();
        assert!(blacklisting_scans > 10, "{}", policy.name());
    }
}

#[test]
fn copies_never_run_beside_their_original_by_default() {
    let config = SimConfig::paper(Policy::Shared);
    let run = simulate(&config, &Scenario::c1(), 5, Some(&mut All)).unwrap();
    let copies = copies_with_original_node(&run);
    assert!(copies.len() > 50);
    assert!(
        copies
            .iter()
            .all(|(copy, original)| copy.node.0 != *original)
    );
}

#[test]
fn copies_run_only_on_nodes_at_or_above_the_level() {
    let mut config = SimConfig::paper(Policy::Shared);
    config.copies.placement.min_active_cores = 3;
    let run = simulate(&config, &Scenario::c2(), 5, Some(&mut All)).unwrap();
    assert!(run.speculative_attempts().count() > 50);
    assert!(
        run.speculative_attempts()
            .all(|a| run.nodes[a.node.index()].active_cores >= 3)
    );
}

#[test]
fn hadoop_caps_bound_the_running_copies_of_each_kind() {
    let mut config = SimConfig::paper(Policy::Shared);
    config.copies.caps = Some(straggler_sim::CopyCaps {
        running_fraction: 0.0,
        total_fraction: 0.0,
        minimum_allowed: 3,
    });
    let run = simulate(&config, &Scenario::c2(), 5, Some(&mut All)).unwrap();
    check_invariants(&run);
    let copies: Vec<_> = run.speculative_attempts().collect();
    assert!(copies.len() > 10);
    for copy in &copies {
        let kind = run.tasks[copy.task.index()].key.kind;
        let running = copies
            .iter()
            .filter(|c| run.tasks[c.task.index()].key.kind == kind)
            .filter(|c| c.start_secs <= copy.start_secs && c.end_secs.unwrap() > copy.start_secs)
            .count();
        assert!(
            running <= 3,
            "{running} copies running at {}",
            copy.start_secs
        );
    }
    // The default caps: max(10, 0.01 x 320, 0.1 x running maps) = 16 with 160 maps running.
    let caps = straggler_sim::CopyCaps::default();
    assert_relative_eq!(caps.allowed(320, 160), 16.0);
    assert_relative_eq!(caps.allowed(320, 40), 10.0);
}

#[test]
fn copies_per_task_and_launches_per_scan_are_bounded() {
    let copies_per_task = |config: &SimConfig| {
        let run = simulate(config, &Scenario::c2(), 5, Some(&mut All)).unwrap();
        let mut counts = vec![0u32; run.tasks.len()];
        for copy in run.speculative_attempts() {
            counts[copy.task.index()] += 1;
        }
        (run, counts)
    };
    let mut config = SimConfig::paper(Policy::Shared);
    let (_, counts) = copies_per_task(&config);
    assert_eq!(counts.iter().max(), Some(&1));
    config.copies.max_copies_per_task = 2;
    let (_, counts) = copies_per_task(&config);
    assert_eq!(counts.iter().max(), Some(&2));

    config.copies.max_copies_per_task = 1;
    config.copies.launches_per_scan = Some(1);
    let (run, _) = copies_per_task(&config);
    let mut starts: Vec<f64> = run.speculative_attempts().map(|a| a.start_secs).collect();
    starts.sort_by(f64::total_cmp);
    assert!(starts.len() > 10);
    // One candidate per scan (every second), so no two copies start within the same second
    // of scans: at most two copies start in any window [k, k + 1).
    for window in starts.windows(3) {
        assert!(window[2] - window[0] > 1.0 - 1e-9, "{window:?}");
    }
}

/// Flags task 0's original only.
struct FirstTask;

impl Detector for FirstTask {
    fn name(&self) -> &str {
        "first-task"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        for (i, (task, role)) in snapshot.tasks().iter().zip(snapshot.roles()).enumerate() {
            if task.0 == 0 && *role == AttemptRole::Original {
                findings.push_row(i as u32);
            }
        }
    }
}

#[test]
fn a_killed_originals_exact_time_differs_from_its_estimate() {
    // Two one-core nodes, two containers each; one map (10 s) and one reduce (4 s), the
    // reduce released at once (slowstart 0): both start at 0 on the first node, X, at rate
    // 1/2. The first report and scan at 3 s flag the map (1.5 s done); its copy starts on
    // the other node, alone at rate 1, and ends at 13 s. On X the reduce ends at 8 s (4 s
    // of work at 1/2), then the map runs alone: 4 s done at 8 s, 9 s at 13 s, when it is
    // killed at progress 0.9. Estimated from progress: 13 / 0.9 = 14.44 s. Exact: its last
    // 1 s of work on the idle node X ends at 14 s.
    let mut config = exact(2, 2, 1, 1);
    config.workload.reduce_slowstart = 0.0;
    config.speculation.policy = Policy::Shared;
    config.speculation.lag_secs = 0.0;
    let outcome =
        straggler_sim::simulate_outcome(&config, &one_core(), 1, Some(&mut FirstTask)).unwrap();
    let run = &outcome.run;
    let original = &run.attempts[0];
    assert_eq!(original.status, AttemptStatus::Killed);
    assert_relative_eq!(original.end_secs.unwrap(), 13.0, max_relative = 1e-12);
    assert_relative_eq!(original.progress_at_end, 0.9, max_relative = 1e-12);
    let estimated = run.original_times().unwrap()[0].unwrap().exec_secs;
    assert_relative_eq!(estimated, 13.0 / 0.9, max_relative = 1e-12);
    let exact_secs = outcome.killed_original_exact_secs[0].unwrap();
    assert_relative_eq!(exact_secs, 14.0, max_relative = 1e-12);
    assert_eq!(outcome.killed_original_exact_secs[1], None);

    // Labelled against its usual time, 14 s (the same job without speculation: the map
    // ends at 14 s), with a factor 1.02: a straggler by the estimate (1.03), not by the
    // exact time (1.0).
    let baseline = simulate(&config, &one_core(), 1, None).unwrap();
    assert_relative_eq!(
        baseline.attempts[0].end_secs.unwrap(),
        14.0,
        max_relative = 1e-12
    );
    let usual = straggler_truth::UsualTimes::from_runs(&[baseline], 0.5).unwrap();
    let rule = straggler_truth::StragglerRule { factor: 1.02 }
        .check()
        .unwrap();
    let metrics = |killed_original_time| {
        let labels = straggler_sim::Labelling {
            usual: &usual,
            rule,
            killed_original_time,
            baseline_energy_joules: 1.0,
        };
        straggler_sim::RunMetrics::of_outcome(&outcome, &labels, &config).unwrap()
    };
    let estimated = metrics(straggler_sim::KilledOriginalTime::EstimatedFromProgress);
    let exact_labels = metrics(straggler_sim::KilledOriginalTime::Exact);
    assert_eq!(estimated.0["stragglers"], Some(1.0));
    assert_eq!(exact_labels.0["stragglers"], Some(0.0));
    assert_eq!(estimated.0["label_disagreements"], Some(1.0));
    assert_relative_eq!(
        estimated.0["killed_original_time_gap"].unwrap(),
        (13.0 / 0.9 - 14.0) / 14.0,
        max_relative = 1e-9
    );

    // The Section 4.2 predictor on the estimated labels: alpha = 1/2 (the map of two
    // tasks), p = r = 1, DL = 3 / 14 (detected at 3 s, usual 14 s). P1 = 1/2, P4 = 1/2:
    // time per task 1/2 (1 + 3/14) + 1/2, energy 1/2 (2 + 3/14) + 1/2.
    let m = &estimated.0;
    assert_relative_eq!(
        m["detection_latency"].unwrap(),
        3.0 / 14.0,
        max_relative = 1e-9
    );
    let time = 0.5 * (1.0 + 3.0 / 14.0) + 0.5;
    let energy = 0.5 * (2.0 + 3.0 / 14.0) + 0.5;
    assert_relative_eq!(
        m["predicted_time_overhead"].unwrap(),
        time - 1.0,
        max_relative = 1e-9
    );
    assert_relative_eq!(
        m["predicted_energy_overhead"].unwrap(),
        energy - 1.0,
        max_relative = 1e-9
    );
    // Simulated: the map took 13 s (its copy won), the reduce 8 s, usual 14 s and 8 s;
    // each task's time in its usual time, averaged, as the prediction is (a ratio of the
    // sums, 21 / 22, would weigh the longer task more).
    assert_relative_eq!(
        m["simulated_time_overhead"].unwrap(),
        (13.0 / 14.0 + 8.0 / 8.0) / 2.0 - 1.0,
        max_relative = 1e-9
    );
}

#[test]
fn times_and_energies_are_normalised_to_default_under_x100() {
    let results = small_eval().run().unwrap();
    for experiment in ["table6", "table7"] {
        let reference = results.cell(experiment, "C2", "x100", "default").unwrap();
        assert_eq!(reference.metrics["execution_time_norm"].mean, Some(1.0));
        assert_eq!(reference.metrics["energy_norm"].mean, Some(1.0));
    }
    // Figure 3's Default at lag 0 against Figure 3's Default at the configured lag (20 s),
    // which it does not have: undefined.
    let fig3 = results.cell("fig3", "C2", "x100", "default").unwrap();
    assert_eq!(fig3.metrics["execution_time_norm"].mean, None);
    // Table 7 under x50 against Table 7's x100: the ratio of the mean times is close to
    // the mean of the per-repetition ratios.
    let x50 = results.cell("table7", "C2", "x50", "late").unwrap();
    let x100 = results.cell("table7", "C2", "x100", "default").unwrap();
    let ratio = x50.metrics["execution_time_secs"].mean.unwrap()
        / x100.metrics["execution_time_secs"].mean.unwrap();
    let norm = x50.metrics["execution_time_norm"].mean.unwrap();
    assert!((norm - ratio).abs() < 0.05, "{norm} vs {ratio}");
}

/// A change that makes a configuration invalid.
type Spoil = fn(&mut SimConfig);

#[test]
fn bad_copy_controls_name_the_key() {
    let cases: [(&str, Spoil); 6] = [
        ("copies.max_copies_per_task", |c| {
            c.copies.max_copies_per_task = 0
        }),
        ("copies.launches_per_scan", |c| {
            c.copies.launches_per_scan = Some(0)
        }),
        ("copies.caps.running_fraction", |c| {
            c.copies.caps = Some(straggler_sim::CopyCaps {
                running_fraction: f64::NAN,
                ..Default::default()
            })
        }),
        ("copies.placement.min_active_cores", |c| {
            c.copies.placement.min_active_cores = 5
        }),
        ("copies.placement.blacklist", |c| {
            c.copies.placement.blacklist = vec![3, 20]
        }),
        ("speculation.policy.regular_percent", |c| {
            c.speculation.policy = Policy::Reserved { regular_percent: 0 }
        }),
    ];
    for (key, spoil) in cases {
        let mut config = SimConfig::default();
        spoil(&mut config);
        let err = config.check().unwrap_err();
        assert!(
            matches!(err, SimError::InvalidConfig { .. }) && err.to_string().contains(key),
            "{key}: {err}"
        );
    }
    // x5 leaves 8 of 160 containers regular: a node without any is refused.
    let mut config = SimConfig::default();
    config.speculation.policy = Policy::Reserved { regular_percent: 5 };
    let err = config.check().unwrap_err();
    assert!(
        err.to_string().contains("at least one container per node"),
        "{err}"
    );
}

/// A change that puts a count of an evaluation above its limit.
type Oversize = fn(&mut EvalConfig);

#[test]
fn evaluation_counts_above_their_limits_are_refused_before_any_run() {
    let cases: [(&str, u64, Oversize); 11] = [
        ("repetitions", 1_000, |c| c.repetitions = 1_001),
        ("baseline_runs", 1_000, |c| c.baseline_runs = 1_001),
        ("sim.workload.maps", 1_000_000, |c| {
            c.sim.workload.maps = 1_000_001
        }),
        ("sim.workload.reduces", 1_000_000, |c| {
            c.sim.workload.reduces = 1_000_001
        }),
        (
            "baseline_runs * (sim.workload.maps + sim.workload.reduces)",
            20_000_000,
            |c| {
                c.baseline_runs = 100;
                c.sim.workload.maps = 200_000;
                c.sim.workload.reduces = 1;
            },
        ),
        ("sim.platform.workers", 1_000_000, |c| {
            c.sim.platform.workers = 1_000_001
        }),
        ("sim.platform.cores", 1_024, |c| {
            c.scenarios.clear();
            c.fig3.lags_secs.clear();
            c.table7.policies.clear();
            c.sim.platform.cores = 4_000_000_000
        }),
        ("sim.platform.containers", 10_000, |c| {
            c.sim.platform.containers = 10_001
        }),
        (
            "sim.platform.workers * sim.platform.containers",
            10_000_000,
            |c| {
                c.sim.platform.workers = 100_000;
                c.sim.platform.containers = 101;
            },
        ),
        // 4 x 2 x 4 Table 6 cells, 4 x 200 Figure 3 cells, 6 x 4 Table 7 cells.
        (CELL_RUNS, 500_000, |c| {
            c.repetitions = 1_000;
            c.fig3.lags_secs = (0..200).map(f64::from).collect();
        }),
        // 4 x 10^7 Figure 3 cells at one repetition: refused before they are planned (each
        // would hold a configuration of its own).
        (CELL_RUNS, 500_000, |c| {
            c.repetitions = 1;
            c.fig3.lags_secs = (0..10_000_000).map(f64::from).collect();
        }),
    ];
    for (key, limit, oversize) in cases {
        let mut config = EvalConfig::default();
        oversize(&mut config);
        // Were the count let through, the baseline runs would stop at once.
        config.sim.time_limit_secs = 1e-3;
        let err = Evaluation::paper()
            .with_config(config)
            .run()
            .expect_err(key);
        assert_above_limit(&err, key, limit);
    }
}

/// The count of runs an evaluation keeps, as its error names it.
const CELL_RUNS: &str = "repetitions * (detectors * (scenarios * policies + table7.scenarios * \
                         table7.policies) + fig3.scenarios * fig3.lags_secs)";

/// Asserts that `err` refuses `key` for a count above `limit`, naming both.
fn assert_above_limit(err: &SimError, key: &str, limit: impl std::fmt::Display) {
    assert!(
        matches!(err, SimError::InvalidConfig { field, .. } if field == key),
        "{key}: {err}"
    );
    assert!(
        err.to_string()
            .contains(&format!("must be at most {limit} ")),
        "{key}: {err}"
    );
}

#[test]
fn figures_4_to_6_say_why_time_and_energy_are_not_normalised_without_default() {
    let title = |list: &[&str]| {
        let specs: Vec<DetectorSpec> = (DetectorSpec::all().into_iter())
            .filter_map(|spec| {
                let name = spec.name().to_owned();
                list.iter()
                    .find_map(|&wanted| match wanted.split_once('(') {
                        Some((base, set)) if base == name => {
                            Some(spec.tuned_from(set.trim_end_matches(')')).unwrap())
                        }
                        None if wanted == name => Some(spec.clone()),
                        _ => None,
                    })
            })
            .collect();
        let results = small_eval().with_detectors(specs).run().unwrap();
        let table = straggler_sim::report::figures4to6(&results);
        let normalised = table.rows.iter().all(|row| row[3] != "n/a");
        (table.title, normalised)
    };
    let (with_default, normalised) = title(&["default", "late"]);
    assert!(!with_default.contains("no `default`"), "{with_default}");
    assert!(normalised);
    let (tuned_only, normalised) = title(&["default(gap = 0.1)", "late"]);
    assert!(
        tuned_only.ends_with(
            "; n/a under Time and Energy: no `default` among the detectors to normalise by (a tuned Default is another detector)"
        ),
        "{tuned_only}"
    );
    assert!(!normalised);
    // Default runs, but Table 7 has no x100 cell to divide by.
    let mut evaluation = small_eval();
    evaluation.config_mut().table7.policies = vec![Policy::Shared];
    let table = straggler_sim::report::figures4to6(&evaluation.run().unwrap());
    assert!(
        table
            .title
            .ends_with("; n/a under Time and Energy: Table 7 runs no x100 to normalise by"),
        "{}",
        table.title
    );
}

#[test]
fn an_evaluation_runs_on_workers_of_any_number_of_cores() {
    // The baselines run on the platform's own workers, every core active.
    let mut config = EvalConfig {
        repetitions: 1,
        baseline_runs: 1,
        scenarios: vec![Scenario::new("half", &[50.0, 50.0])],
        policies: vec![Policy::X100],
        fig3: Fig3Config {
            lags_secs: vec![],
            ..Fig3Config::default()
        },
        table7: Table7Config {
            policies: vec![],
            ..Table7Config::default()
        },
        ..EvalConfig::default()
    };
    config.sim.platform.cores = 2;
    config.sim.workload.maps = 80;
    config.sim.workload.reduces = 20;
    assert_eq!(
        Scenario::homogeneous_on(&config.sim.platform)
            .unwrap()
            .group_percent,
        [0.0, 100.0]
    );
    let results = Evaluation::paper().with_config(config).run().unwrap();
    assert!(results.cells.iter().all(|cell| cell.scenario == "half"));
    assert_eq!(results.baseline.runs, 1);
}

#[test]
fn figure_3s_detector_may_be_named_with_parameters() {
    let late = (DetectorSpec::all().into_iter())
        .find(|d| d.name() == "late")
        .unwrap();
    let tuned = late.tuned_from("alpha = 0.5").unwrap();
    let run = |fig3: &str, detectors: Vec<DetectorSpec>| {
        let mut evaluation = small_eval().with_detectors(detectors);
        evaluation.config_mut().table7.policies.clear();
        evaluation.config_mut().fig3.detector = fig3.to_owned();
        evaluation.run()
    };
    // Written as --detectors takes it: the evaluation's detector of that name.
    let results = run("late(alpha = 0.5)", vec![late.clone(), tuned.clone()]).unwrap();
    let fig3: Vec<&str> = (results.cells.iter())
        .filter(|c| c.experiment == "fig3")
        .map(|c| c.detector.as_str())
        .collect();
    assert!(
        !fig3.is_empty() && fig3.iter().all(|&d| d == "late(alpha=0.5)"),
        "{fig3:?}"
    );
    // Not among the evaluation's: made from the built-in.
    let results = run("default(gap = 0.1)", vec![late.clone()]).unwrap();
    assert!(
        results
            .cells
            .iter()
            .any(|c| c.detector == "default(gap=0.1)")
    );
    for (name, expected) in [
        ("nope", "parameters in parentheses or not"),
        (
            "late(alpha = -1)",
            "parameter alpha = -1: must be finite and >= 0",
        ),
    ] {
        let err = run(name, vec![late.clone()]).unwrap_err().to_string();
        assert!(
            err.contains("fig3.detector") && err.contains(expected),
            "{err}"
        );
    }
}
