//! Tests of the simulator and of the evaluation built on it: hand-worked runs, policies,
//! determinism, and configuration errors.

mod scale;

use approx::assert_relative_eq;
use straggler_detect::{DefaultDetector, Detector, Findings, LateDetector};
use straggler_energy::SlowdownModel;
use straggler_model::{AttemptRole, AttemptStatus, Run, Snapshot, TaskKind};
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
        matches!(err, SimError::InvalidConfig { .. }) && err.to_string().contains("summing to 100"),
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
    assert!(run.detections.iter().all(|d| d.time_secs >= 45.0));
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
    assert_eq!(results.cells.len(), 2 * 2 * 3 + 2 + 2 * 3);
    let experiments: Vec<&str> = results
        .cells
        .iter()
        .map(|c| c.experiment.as_str())
        .collect();
    assert_eq!(experiments.iter().filter(|&&e| e == "table6").count(), 12);
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

#[test]
fn default_slowdown_ratios_between_groups_match_the_docs() {
    // docs/simulation.md: with 8 attempts, G1, G2, G3 run 3.8, 1.9 and 1.3 times slower
    // than G4 (one decimal).
    let model = SlowdownModel::default();
    let node = |active| {
        straggler_model::Node::new(straggler_model::NodeId(0), 4, 2, 8).with_active_cores(active)
    };
    let g4 = model.rate(&node(4), 8);
    let ratios: Vec<String> = [1, 2, 3]
        .iter()
        .map(|&c| format!("{:.1}", g4 / model.rate(&node(c), 8)))
        .collect();
    assert_eq!(ratios, ["3.8", "1.9", "1.3"]);
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
