//! The two engines against each other and against the slowdown model: every attempt's
//! recorded time is what the model's rate over its node's recorded load gives, and on a
//! scenario both engines can run they record the same attempts and energy, but where their
//! documented rules differ (`docs/simulation.md`, "The two engines on one scenario").

use straggler_detect::conformance::FlagAll;
use straggler_detect::{Detector, Findings};
use straggler_energy::{SlowdownModel, run_energy_joules};
use straggler_model::{Attempt, AttemptRole, AttemptStatus, Run, Snapshot, TaskKind};
use straggler_sim::causes::Failure;
use straggler_sim::{
    Policy, RunOptions, Scenario, ScenarioSpec, SimConfig, SpeculationSpec, simulate,
    simulate_scenario,
};

const MAP_SECS: f64 = 10.0;
const REDUCE_SECS: f64 = 4.0;

/// The work, in seconds of a task alone, that the slowdown model gives `attempt` over its
/// node's recorded load: the integral of `rate(node, running)` from its start to its end.
fn integrated_work(run: &Run, attempt: &Attempt, model: &SlowdownModel) -> f64 {
    let node = &run.nodes[attempt.node.index()];
    let end = attempt.end_secs.unwrap_or(run.end_secs);
    run.load[attempt.node.index()]
        .segments(run.end_secs)
        .map(|(from, to, running)| {
            let (from, to) = (from.max(attempt.start_secs), to.min(end));
            model.rate(node, running) * (to - from).max(0.0)
        })
        .sum()
}

/// Every attempt of a noiseless run did its whole work if it succeeded, `progress` of it
/// otherwise, by the model over the recorded load.
fn check_work_by_the_model(run: &Run, model: &SlowdownModel, what: &str) {
    for a in &run.attempts {
        let work = match run.tasks[a.task.index()].key.kind {
            TaskKind::Map => MAP_SECS,
            TaskKind::Reduce => REDUCE_SECS,
        };
        let expected = match a.status {
            AttemptStatus::Succeeded => work,
            _ => work * a.progress_at_end,
        };
        let done = integrated_work(run, a, model);
        assert!(
            (done - expected).abs() <= 1e-9 * work,
            "{what}: {a:?} did {done} s of work, not {expected}"
        );
    }
}

/// `workers` nodes of `cores` cores (half with one active core when `cores` is 2) and
/// `containers` slots, `maps` maps of 10 s: the paper's engine, x100, detection from the
/// start, a heartbeat every second, a scan every `scan_secs`.
fn event(workers: u32, cores: u32, containers: u32, maps: u32, scan_secs: f64) -> SimConfig {
    // `exact`'s times are MAP_SECS and REDUCE_SECS.
    let mut config = super::exact(workers, containers, maps, 0);
    config.platform.cores = cores;
    config.speculation.policy = Policy::Reserved {
        regular_percent: 100,
    };
    config.speculation.lag_secs = 0.0;
    config.speculation.heartbeat_secs = 1.0;
    config.speculation.scan_interval_secs = scan_secs;
    config
}

fn groups(cores: u32) -> Vec<f64> {
    match cores {
        1 => Vec::new(),
        _ => vec![50.0, 50.0],
    }
}

fn scenario(cores: u32) -> Scenario {
    match cores {
        1 => Scenario::new("one-core", &[100.0]),
        _ => Scenario::new("half-slow", &[50.0, 50.0]),
    }
}

/// The same platform and job on the scale engine: the scale tests' `exact` with the
/// event engine's cores, work and scans.
fn fleet(nodes: u32, cores: u32, containers: u32, maps: u32, scan_secs: f64) -> ScenarioSpec {
    let mut spec = super::scale::exact(nodes, containers, maps);
    spec.name = "engines".to_owned();
    spec.cluster.cores = cores;
    spec.cluster.core_groups_percent = groups(cores);
    spec.jobs.map_work_secs = MAP_SECS;
    spec.jobs.reduce_work_secs = REDUCE_SECS;
    spec.speculation = SpeculationSpec {
        lag_secs: 0.0,
        scan_interval_secs: scan_secs,
        heartbeat_secs: 1.0,
    };
    spec
}

/// Flags nothing.
struct Nothing;

impl Detector for Nothing {
    fn name(&self) -> &str {
        "nothing"
    }
    fn scan(&mut self, _: &Snapshot, _: &mut Findings) {}
}

/// What both engines record of an attempt, node named by its active cores (the engines
/// number nodes and tasks differently): start, end, cores, role, status, progress.
type Record = (f64, f64, u32, AttemptRole, AttemptStatus, f64);

fn records(run: &Run) -> Vec<Record> {
    let mut records: Vec<Record> = run
        .attempts
        .iter()
        .map(|a| {
            (
                a.start_secs,
                a.end_secs.unwrap_or(f64::NAN),
                run.nodes[a.node.index()].active_cores,
                a.role,
                a.status,
                a.progress_at_end,
            )
        })
        .collect();
    records.sort_by(|a, b| {
        (a.0, a.1, a.2)
            .partial_cmp(&(b.0, b.1, b.2))
            .expect("finite times")
            .then((a.3 as u8).cmp(&(b.3 as u8)))
    });
    records
}

/// Both engines' records, detections and energy in joules.
struct Both {
    event: (Vec<Record>, usize, f64),
    fleet: (Vec<Record>, usize, f64),
}

/// Workers, cores, containers, maps, scan interval.
type Case = (u32, u32, u32, u32, f64);

fn both(
    (workers, cores, containers, maps, scan_secs): Case,
    seed: u64,
    detector: fn() -> Box<dyn Detector>,
) -> Both {
    let config = event(workers, cores, containers, maps, scan_secs);
    let run = simulate(&config, &scenario(cores), seed, Some(detector().as_mut()))
        .expect("the paper's engine's run");
    let joules = run_energy_joules(&run, &config.power).expect("the run's energy");
    check_work_by_the_model(&run, &config.slowdown, "paper's engine");
    let event = (records(&run), run.detections.len(), joules);
    let spec = fleet(workers, cores, containers, maps, scan_secs);
    let options = RunOptions {
        record: true,
        ..RunOptions::default()
    };
    let outcome = simulate_scenario(&spec, seed, Some(detector().as_mut()), options)
        .expect("the scale engine's run");
    let run = outcome.run.expect("a recorded run");
    check_work_by_the_model(&run, &spec.slowdown, "scale engine");
    let fleet = (
        records(&run),
        run.detections.len(),
        outcome.summary.energy_joules,
    );
    Both { event, fleet }
}

#[test]
fn the_engines_agree_where_their_rules_do() {
    // Every map flagged at every scan; the placements of both engines coincide: a node's
    // containers fill at once, the copies find one node with room.
    let cases: [(Case, f64, usize); 4] = [
        // 1-core node S and 2-core node F, 2 containers each, 4 maps: S's at rate 1/2 to
        // 20 s, F's at rate 1 to 10 s. S's maps are copied on F at 10 s, alone at rate 1:
        // they tie with their originals at 20 s and lose at progress 1. Energy: S 82 W for
        // 20 s, F 99 W for 20 s: 1640 + 1980 = 3620 J.
        ((2, 2, 2, 4, 1.0), 3620.0, 4),
        // One node: no copy can run beside its original; 3 maps on 2 containers of one
        // core: two to 20 s, the third alone to 30 s; 82 W x 30 s.
        ((1, 1, 2, 3, 1.0), 2460.0, 3),
        // Three one-container nodes, 5 maps: the first wave to 10 s, the second two maps
        // to 20 s; at 11 s one of them is copied on the free node and killed at 20 s at
        // progress 9/10, the other finds no room. 82 W x (30 + 20 + 9) s = 4838 J.
        ((3, 1, 1, 5, 1.0), 4838.0, 5),
        // Two 1-core and two 2-core nodes, 9 maps on 8 containers: the engines' shared
        // figure, not worked by hand.
        ((4, 2, 2, 9, 1.0), 7240.0, 9),
    ];
    for (case, joules, detections) in cases {
        for seed in 0..3 {
            let both = both(case, seed, || Box::new(FlagAll));
            assert_eq!(both.event.0, both.fleet.0, "{case:?}, seed {seed}");
            assert_eq!((both.event.1, both.fleet.1), (detections, detections));
            assert!((both.event.2 - joules).abs() < 1e-9, "{}", both.event.2);
            assert!((both.fleet.2 - joules).abs() < 1e-9, "{}", both.fleet.2);
        }
    }
}

#[test]
fn a_copy_without_room_starts_at_the_next_event_in_one_engine_the_next_scan_in_the_other() {
    // The first case above, a scan every 4 s: at 4 s every map is flagged and no
    // container is free. F's maps end at 10 s. The paper's engine keeps the candidates
    // and starts S's copies on F at 10 s, a completion (they tie with their originals at
    // 20 s); the scale engine places copies only at a scan, at 12 s: they are killed at
    // 20 s at progress 8/10. F idles on [10, 12): 3620 J against 1640 + 99 x 18 = 3422 J.
    let both = both((2, 2, 2, 4, 4.0), 1, || Box::new(FlagAll));
    let copies = |records: &[Record]| -> Vec<(f64, f64, f64)> {
        records
            .iter()
            .filter(|r| r.3 == AttemptRole::Speculative)
            .map(|r| (r.0, r.1, r.5))
            .collect()
    };
    assert_eq!(copies(&both.event.0), [(10.0, 20.0, 1.0); 2]);
    let fleet = copies(&both.fleet.0);
    assert_eq!(fleet.len(), 2);
    for (start, end, progress) in fleet {
        assert_eq!((start, end), (12.0, 20.0));
        assert!((progress - 0.8).abs() < 1e-12);
    }
    assert!((both.event.2 - 3620.0).abs() < 1e-9);
    assert!((both.fleet.2 - 3422.0).abs() < 1e-9);
}

#[test]
fn one_engine_fills_a_node_first_the_other_spreads_the_tasks() {
    // Two one-core nodes of 2 containers, 2 maps: the paper's engine fills its first node
    // (both maps at rate 1/2, to 20 s), the scale engine takes the nodes in turn (one map
    // each, to 10 s). The energy is the same, 82 W x 20 s: one busy core.
    let both = both((2, 1, 2, 2, 1.0), 1, || Box::new(Nothing));
    let ends = |records: &[Record]| records.iter().map(|r| r.1).collect::<Vec<_>>();
    assert_eq!(ends(&both.event.0), [20.0, 20.0]);
    assert_eq!(ends(&both.fleet.0), [10.0, 10.0]);
    assert!((both.event.2 - 1640.0).abs() < 1e-9);
    assert!((both.fleet.2 - 1640.0).abs() < 1e-9);
}

#[test]
fn times_are_the_slowdown_models_over_the_recorded_load() {
    // Copies (two per task in the paper's engine), kills, reduces, every policy, node
    // failures in the scale engine: the work each attempt did by the model over its node's
    // recorded load is its work (or its progress of it), so no rate is missed at a change
    // of load and no attempt ends early or late.
    let model = SlowdownModel::compute_bound();
    // Runs whose failure ends both an original and a copy on the failed node.
    let mut both_roles_lost = 0;
    for seed in 0..8 {
        for (workers, cores, containers, maps) in [(2, 2, 3, 7), (3, 2, 2, 9), (4, 2, 4, 13)] {
            for policy in [
                Policy::Shared,
                Policy::Reserved {
                    regular_percent: 100,
                },
                Policy::Reserved {
                    regular_percent: 50,
                },
            ] {
                let mut config = event(workers, cores, containers, maps, 1.0);
                config.workload.reduces = 3;
                config.speculation.policy = policy;
                config.copies.max_copies_per_task = 2;
                let run = simulate(&config, &scenario(cores), seed, Some(&mut FlagAll)).unwrap();
                check_work_by_the_model(&run, &model, &format!("seed {seed}, {policy:?}"));
            }
            for at_secs in [3.5, 12.0, 20.0] {
                let mut spec = fleet(workers, cores, containers, maps, 1.0);
                spec.causes.failures = vec![Failure {
                    node: 1,
                    at_secs,
                    down_secs: 7.0,
                }];
                let options = RunOptions {
                    record: true,
                    ..RunOptions::default()
                };
                let outcome = simulate_scenario(&spec, seed, Some(&mut FlagAll), options).unwrap();
                let run = outcome.run.unwrap();
                check_work_by_the_model(&run, &model, &format!("seed {seed}, failure {at_secs}"));
                let mut succeeded: Vec<u32> = run
                    .attempts
                    .iter()
                    .filter(|a| a.status == AttemptStatus::Succeeded)
                    .map(|a| a.task.0)
                    .collect();
                succeeded.sort_unstable();
                assert_eq!(succeeded, (0..maps).collect::<Vec<_>>(), "each task once");
                let lost = |role| {
                    run.attempts
                        .iter()
                        .any(|a| a.status == AttemptStatus::Failed && a.role == role)
                };
                if lost(AttemptRole::Original) && lost(AttemptRole::Speculative) {
                    both_roles_lost += 1;
                }
            }
        }
    }
    // 14 of the 72 failure runs: the case is covered.
    assert!(both_roles_lost > 0);
}
