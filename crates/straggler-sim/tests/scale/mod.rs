//! Tests of the scale engine and the straggler causes: each injection's effect in a small
//! run, the presets, and the scenario files' errors.

use std::path::Path;

use straggler_detect::conformance::FlagAll;
use straggler_detect::{Detector, Findings, LateDetector};
use straggler_energy::SlowdownModel;
use straggler_model::{AttemptRole, AttemptStatus, NodeId, Run, Snapshot, TaskKind};
use straggler_sim::causes::{Causes, Episode, Failure, Levels, RootCauseMix, Skew, WeakNodes};
use straggler_sim::{
    ClusterSpec, DetectorSpec, JobsSpec, Noise, PRESETS, RunOptions, ScenarioOutcome, ScenarioSpec,
    SimError, SpeculationSpec, simulate_scenario,
};

/// Detection from a job's start, heartbeats and scans every second.
const EVERY_SECOND: SpeculationSpec = SpeculationSpec {
    lag_secs: 0.0,
    scan_interval_secs: 1.0,
    heartbeat_secs: 1.0,
};

/// `nodes` one-core nodes with `containers` slots, one job of `maps` maps of 10 s and no
/// reduce, no noise, compute-bound: times can be worked out by hand.
pub(super) fn exact(nodes: u32, containers: u32, maps: u32) -> ScenarioSpec {
    ScenarioSpec {
        name: "exact".to_owned(),
        cluster: ClusterSpec {
            nodes,
            cores: 1,
            threads_per_core: 1,
            containers,
            core_groups_percent: Vec::new(),
        },
        jobs: JobsSpec {
            maps,
            reduces: 0,
            map_work_secs: 10.0,
            ..JobsSpec::default()
        },
        noise: Noise {
            sigma: 0.0,
            outlier_probability: 0.0,
            ..Noise::default()
        },
        slowdown: SlowdownModel::compute_bound(),
        ..ScenarioSpec::paper()
    }
}

fn recorded(spec: &ScenarioSpec, detector: Option<&mut dyn Detector>) -> (ScenarioOutcome, Run) {
    let options = RunOptions {
        record: true,
        ..RunOptions::default()
    };
    let outcome = simulate_scenario(spec, 1, detector, options).expect("the run finishes");
    let run = outcome.run.clone().expect("a recorded run");
    (outcome, run)
}

/// Makes the node that runs map 0 in `spec` without failures fail at `at_secs` for
/// `down_secs`, and returns it.
fn fail_map_0s_node(spec: &mut ScenarioSpec, at_secs: f64, down_secs: f64) -> NodeId {
    let (_, healthy) = recorded(spec, None);
    let node = healthy
        .attempts
        .iter()
        .find(|a| a.task.0 == 0)
        .map(|a| a.node)
        .expect("map 0 runs");
    spec.causes.failures = vec![Failure {
        node: node.0,
        at_secs,
        down_secs,
    }];
    node
}

#[test]
fn one_job_without_causes_takes_its_work_by_hand() {
    // 2 nodes x 1 container, 4 maps of 10 s: two waves, 20 s.
    let (outcome, run) = recorded(&exact(2, 1, 4), None);
    assert_eq!(outcome.summary.tasks, 4);
    assert!((outcome.summary.makespan_secs - 20.0).abs() < 1e-9);
    assert_eq!(run.attempts.len(), 4);
    assert!(
        run.attempts
            .iter()
            .all(|a| a.status == AttemptStatus::Succeeded)
    );
    // Power: 65 W static + 17 W per busy core, two nodes busy for 20 s.
    assert!((outcome.summary.energy_joules - 2.0 * 82.0 * 20.0).abs() < 1e-6);
}

/// `exact(3, 2, 30)` whose node 0 fails at 15 s, for 600 s.
fn node_0_fails_at_15_s() -> ScenarioSpec {
    let mut spec = exact(3, 2, 30);
    spec.causes.failures = vec![Failure {
        node: 0,
        at_secs: 15.0,
        down_secs: 600.0,
    }];
    spec
}

#[test]
fn a_failed_nodes_tasks_are_lost_and_run_again_elsewhere() {
    let spec = node_0_fails_at_15_s();
    let (outcome, run) = recorded(&spec, None);
    let failed: Vec<_> = run
        .attempts
        .iter()
        .filter(|a| a.status == AttemptStatus::Failed)
        .collect();
    // Node 0 runs two maps from 0 s, sharing its core (rate 1/2 each): both are lost at
    // 15 s with 7.5 s of their 10 s of work done.
    assert_eq!(failed.len(), 2);
    assert_eq!(outcome.summary.failed_attempts, 2);
    for lost in &failed {
        assert_eq!(lost.node.0, 0);
        assert_eq!(lost.end_secs, Some(15.0));
        assert!((lost.progress_at_end - 0.75).abs() < 1e-9);
        let rerun = run
            .attempts
            .iter()
            .find(|a| a.task == lost.task && a.id != lost.id)
            .expect("the task runs again");
        assert_eq!(rerun.role, AttemptRole::Original);
        assert_eq!(rerun.status, AttemptStatus::Succeeded);
        assert_ne!(rerun.node.0, 0);
    }
    // Nothing starts on the node while it is down, and every task succeeds once.
    assert!(
        run.attempts
            .iter()
            .filter(|a| a.node.0 == 0)
            .all(|a| a.start_secs < 15.0 || a.start_secs >= 615.0)
    );
    let succeeded = run
        .attempts
        .iter()
        .filter(|a| a.status == AttemptStatus::Succeeded)
        .count();
    assert_eq!(succeeded, 30);
    // 30 maps of 10 s on 4 containers after 15 s: later than without the failure.
    let (healthy, _) = recorded(&exact(3, 2, 30), None);
    assert!(outcome.summary.makespan_secs > healthy.summary.makespan_secs);
}

/// Flags nothing; keeps each scan's time and the maps waiting in stage 0.
#[derive(Debug, Default)]
struct PendingMaps(Vec<(f64, u32)>);

impl Detector for PendingMaps {
    fn name(&self) -> &str {
        "pending-maps"
    }
    fn scan(&mut self, snapshot: &Snapshot, _: &mut Findings) {
        let stage = straggler_model::StageId(0);
        self.0.push((snapshot.now_secs(), snapshot.pending(stage)));
    }
}

#[test]
fn snapshots_count_the_maps_waiting_lost_ones_included() {
    // 3 nodes x 2 containers, 30 maps of 20 s each (two share a core): 6 start at 0 s,
    // 24 wait. Node 0 fails at 15 s: its 2 maps wait again, 26. At 20 s the 4 others end
    // and 4 maps start (the 2 lost first): 22 wait.
    let spec = node_0_fails_at_15_s();
    let mut detector = PendingMaps::default();
    recorded(&spec, Some(&mut detector));
    let at = |now: f64| detector.0.iter().find(|s| s.0 == now).map(|s| s.1);
    assert_eq!(
        [at(1.0), at(14.0), at(15.0), at(19.0), at(20.0)],
        [Some(24), Some(24), Some(26), Some(26), Some(22)]
    );
}

#[test]
fn a_skewed_tasks_copy_does_not_win_but_a_slow_originals_copy_does() {
    let mut spec = exact(8, 2, 64);
    spec.causes.skew = Some(Skew {
        probability: 0.2,
        factor: 4.0,
    });
    spec.speculation = EVERY_SECOND;
    let draws: Vec<bool> = (0..64)
        .map(|t| spec.causes.task_draw(1, t).every_attempt > 1.0)
        .collect();
    assert!(draws.iter().any(|&s| s), "the seed skews some task");
    let mut late = LateDetector::default();
    let (outcome, run) = recorded(&spec, Some(&mut late));
    let copied_skewed: Vec<_> = run
        .speculative_attempts()
        .filter(|a| draws[a.task.index()])
        .collect();
    assert!(!copied_skewed.is_empty(), "LATE copies skewed tasks");
    for copy in copied_skewed {
        assert_ne!(copy.status, AttemptStatus::Succeeded, "{copy:?}");
    }
    assert!(outcome.summary.copies > 0);

    // The same slowdown on the original only (a root cause other than skew): copies win.
    let mut spec = exact(8, 2, 64);
    spec.speculation = EVERY_SECOND;
    spec.causes.mix = Some(RootCauseMix {
        probability: 0.2,
        min_factor: 4.0,
        max_factor: 4.0,
        weights: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        ..RootCauseMix::default()
    });
    let mut late = LateDetector::default();
    let (outcome, _) = recorded(&spec, Some(&mut late));
    assert!(
        outcome.summary.successful_copies > 0,
        "{:?}",
        outcome.summary
    );
}

#[test]
fn an_episode_slows_tasks_only_while_it_lasts() {
    // Two one-core nodes, one container each, maps of 10 s back to back. Node 1 has 1
    // background task from 100 s to 150 s: a compute-bound map shares the core, rate 1/2.
    let mut spec = exact(2, 1, 40);
    spec.causes.episodes = vec![Episode {
        node: 1,
        start_secs: 100.0,
        duration_secs: 50.0,
        background_tasks: 1,
    }];
    let (_, run) = recorded(&spec, None);
    for a in run.attempts.iter().filter(|a| a.node.0 == 1) {
        let (start, end) = (a.start_secs, a.end_secs.expect("ended"));
        let elapsed = end - start;
        if end <= 100.0 + 1e-9 || start >= 150.0 - 1e-9 {
            assert!((elapsed - 10.0).abs() < 1e-9, "{a:?}");
        } else {
            assert!(elapsed > 10.0 + 1e-9, "{a:?}");
            // By hand: inside the episode work advances at half speed.
            let inside = (end.min(150.0) - start.max(100.0)).max(0.0);
            assert!((elapsed - inside / 2.0 - 10.0).abs() < 1e-9, "{a:?}");
        }
    }
    for a in run.attempts.iter().filter(|a| a.node.0 == 0) {
        assert!((a.elapsed_secs().expect("ended") - 10.0).abs() < 1e-9);
    }
}

#[test]
fn levels_give_nodes_their_container_counts_and_more_containers_run_slower() {
    let mut spec = ScenarioSpec::esplash();
    spec.causes.episodes.clear();
    spec.causes.failures.clear();
    let (_, run) = recorded(&spec, None);
    let containers: Vec<u32> = run.nodes.iter().map(|n| n.containers).collect();
    assert_eq!(containers, [32, 32, 16, 16, 8, 8, 4, 4]);
    // At most `containers` attempts at once on each node, and that many in the first wave.
    for (n, timeline) in run.load.iter().enumerate() {
        let peak = timeline
            .changes
            .iter()
            .map(|c| c.running)
            .max()
            .unwrap_or(0);
        assert_eq!(peak, containers[n], "node {n}");
    }
    let mean_map_secs = |node: u32| {
        let times: Vec<f64> = run
            .attempts
            .iter()
            .filter(|a| a.node.0 == node && run.tasks[a.task.index()].key.kind == TaskKind::Map)
            .filter_map(|a| a.elapsed_secs())
            .collect();
        times.iter().sum::<f64>() / times.len() as f64
    };
    // 32 containers on 8 cores: about 4 times a map's time on 8 cores with 8 containers.
    assert!(mean_map_secs(0) > 3.0 * mean_map_secs(6));
    assert!(mean_map_secs(2) > mean_map_secs(4));
}

#[test]
fn weak_nodes_run_tasks_slower_than_the_others() {
    let mut spec = exact(10, 1, 200);
    spec.causes.weak_nodes = Some(WeakNodes {
        count: 2,
        ..WeakNodes::default()
    });
    let (_, run) = recorded(&spec, None);
    let mut per_node = [(0.0, 0u32); 10];
    for a in &run.attempts {
        let entry = &mut per_node[a.node.index()];
        entry.0 += a.elapsed_secs().expect("ended");
        entry.1 += 1;
    }
    let means: Vec<f64> = per_node.iter().map(|(s, n)| s / f64::from(*n)).collect();
    let slow = means.iter().filter(|&&m| m > 10.0 * 1.25).count();
    let normal = means.iter().filter(|&&m| (m - 10.0).abs() < 1e-9).count();
    assert_eq!((slow, normal), (2, 8), "{means:?}");
}

#[test]
fn the_root_cause_mix_makes_about_five_percent_stragglers() {
    let mut spec = exact(20, 1, 2000);
    spec.causes.mix = Some(RootCauseMix::default());
    let outcome = simulate_scenario(&spec, 3, None, RunOptions::default()).expect("finishes");
    let s = outcome.summary;
    let share = s.injected_stragglers as f64 / s.tasks as f64;
    assert!((0.035..0.065).contains(&share), "{share}");
    // Without noise, the injected stragglers (at least 1.5x) are the labelled ones.
    assert_eq!(s.stragglers, s.injected_stragglers);
}

#[test]
fn a_cause_drawn_with_a_factor_of_one_injects_no_straggler() {
    // 10 nodes of one container, 200 maps of 10 s, no noise: a task's time is its work.
    let mut spec = exact(10, 1, 200);
    let injected = |spec: &ScenarioSpec| {
        let outcome = simulate_scenario(spec, 3, None, RunOptions::default()).expect("finishes");
        outcome.summary
    };
    // Every task is drawn data skew, by a factor of 1: none is slowed, none injected.
    spec.causes.skew = Some(Skew {
        probability: 1.0,
        factor: 1.0,
    });
    let s = injected(&spec);
    assert_eq!((s.injected_stragglers, s.stragglers), (0, 0), "{s:?}");
    // The same with the root-cause mix drawing every task, its factors all 1.
    spec.causes.mix = Some(RootCauseMix {
        probability: 1.0,
        min_factor: 1.0,
        max_factor: 1.0,
        ..RootCauseMix::default()
    });
    let s = injected(&spec);
    assert_eq!((s.injected_stragglers, s.stragglers), (0, 0), "{s:?}");
    // A mix that slows (by 1.5 at least) a fifth of the tasks beside the skew of 1: the
    // tasks it draws are counted, the others not, though the skew gave them all a cause.
    // Without noise, they are the labelled stragglers.
    spec.causes.mix = Some(RootCauseMix {
        probability: 0.2,
        ..RootCauseMix::default()
    });
    let s = injected(&spec);
    let slowed = (0..200u64)
        .filter(|&task| spec.causes.task_draw(3, task).slows())
        .count() as u64;
    assert!((20..60).contains(&slowed), "{slowed}");
    assert_eq!(
        (s.injected_stragglers, s.stragglers),
        (slowed, slowed),
        "{s:?}"
    );
}

#[test]
fn a_detector_that_flags_everything_copies_each_task_once_on_another_node() {
    let mut spec = exact(4, 2, 16);
    spec.speculation.lag_secs = 0.0;
    let (outcome, run) = recorded(&spec, Some(&mut FlagAll));
    let copies: Vec<_> = run.speculative_attempts().collect();
    assert_eq!(outcome.summary.copies, copies.len() as u64);
    let mut tasks: Vec<u32> = copies.iter().map(|c| c.task.0).collect();
    tasks.sort_unstable();
    tasks.dedup();
    assert_eq!(tasks.len(), copies.len(), "one copy per task at most");
    for c in copies {
        let original = run
            .attempts
            .iter()
            .find(|a| a.task == c.task && a.role == AttemptRole::Original)
            .expect("an original");
        assert_ne!(original.node, c.node);
    }
}

/// Whether every copy of `run` keeps off the nodes that ran an earlier attempt of its task.
fn copies_avoid_every_earlier_attempts_node(run: &Run) -> bool {
    run.speculative_attempts().all(|copy| {
        run.attempts
            .iter()
            .filter(|a| a.task == copy.task && a.id != copy.id)
            .filter(|a| a.start_secs <= copy.start_secs)
            .all(|a| a.node != copy.node)
    })
}

#[test]
fn a_copy_keeps_off_the_node_of_an_original_lost_to_a_failure() {
    // 3 nodes of one container, 2 maps of 10 s, heartbeats and scans every second, every
    // running attempt flagged. Map 0 starts at 0 s on node X, map 1 on node Y; node Z is
    // free. X goes down at 0.5 s and is back at 1.5 s: map 0 runs again on Z from 0.5 s.
    // At 1 s no container is free. At 2 s X's is: map 0 (8.5 s left, by its progress)
    // comes first, but X ran its lost original, so X goes to map 1's copy; map 0's copy
    // waits for a container of a node that never ran it (Y's, at 10 s).
    let mut spec = exact(3, 1, 2);
    spec.speculation = EVERY_SECOND;
    let lost_node = fail_map_0s_node(&mut spec, 0.5, 1.0);
    let (outcome, run) = recorded(&spec, Some(&mut FlagAll));
    assert_eq!(outcome.summary.failed_attempts, 1);
    assert!(copies_avoid_every_earlier_attempts_node(&run));
    let copy_of = |task: u32| {
        run.speculative_attempts()
            .find(|c| c.task.0 == task)
            .expect("a copy of the task")
    };
    let (lost_copy, other_copy) = (copy_of(0), copy_of(1));
    assert_eq!((other_copy.node, other_copy.start_secs), (lost_node, 2.0));
    assert_ne!(lost_copy.node, lost_node);
    assert_eq!(lost_copy.start_secs, 10.0);
}

#[test]
fn a_copy_that_fits_nowhere_does_not_hold_back_the_others() {
    // 2 one-core nodes of 4 containers, 5 maps of 10 s: the first fill puts maps 0-3 on
    // node 0 and map 4 on node 1 (or the reverse order of nodes: one node full, three
    // containers free on the other). Every map is flagged at the first scan; the copies of
    // the full node's maps fit on the other node, the other node's map's copy fits
    // nowhere. Whatever the order of the candidates, three copies start at that scan.
    let mut spec = exact(2, 4, 5);
    spec.speculation.lag_secs = 0.0;
    let (_, run) = recorded(&spec, Some(&mut FlagAll));
    let mut starts: Vec<f64> = run.speculative_attempts().map(|c| c.start_secs).collect();
    starts.sort_by(f64::total_cmp);
    assert!(starts.len() >= 3, "{starts:?}");
    assert_eq!(starts[..3], [starts[0]; 3], "{starts:?}");
}

#[test]
fn same_seed_same_summary() {
    let spec = ScenarioSpec::dsb();
    let mut a = LateDetector::default();
    let mut b = LateDetector::default();
    let first = simulate_scenario(&spec, 5, Some(&mut a), RunOptions::default()).expect("runs");
    let second = simulate_scenario(&spec, 5, Some(&mut b), RunOptions::default()).expect("runs");
    assert_eq!(first, second);
    let other = simulate_scenario(&spec, 6, None, RunOptions::default()).expect("runs");
    assert_ne!(first.summary.makespan_secs, other.summary.makespan_secs);
}

#[test]
fn presets_load_check_and_run_small() {
    for name in PRESETS {
        let spec = ScenarioSpec::preset(name).expect("a preset");
        spec.check().expect("presets are valid");
        assert_eq!(spec.name, name);
    }
    let dc = ScenarioSpec::datacenter();
    assert_eq!(dc.cluster.nodes, 12_000);
    assert_eq!(dc.task_count(), 25_600_000);
    assert!(matches!(
        ScenarioSpec::preset("nope"),
        Err(SimError::UnknownPreset { .. })
    ));
    for name in ["paper", "esplash", "dsb"] {
        let spec = ScenarioSpec::preset(name).expect("a preset");
        let mut late = LateDetector::default();
        let outcome =
            simulate_scenario(&spec, 1, Some(&mut late), RunOptions::default()).expect("runs");
        assert_eq!(outcome.summary.tasks, spec.task_count());
    }
}

#[test]
fn every_detector_learns_and_flags_stragglers_on_the_dsb_preset() {
    // Ten jobs at once on drifting nodes: the stateful detectors need the attempts that
    // ended (Spark's median, Hadoop's finished tasks, DSB's and eSplash's node history),
    // Hadoop's estimators the progress reports. `dos-index-10` looks for stragglers ten
    // times slower than their stage, which the drift of these nodes does not make.
    let spec = ScenarioSpec::dsb();
    for detector in DetectorSpec::all() {
        if detector.name() == "dos-index-10" {
            continue;
        }
        let mut made = detector.make();
        let outcome = simulate_scenario(&spec, 2019, Some(made.as_mut()), RunOptions::default());
        let summary = outcome.expect("runs").summary;
        assert!(summary.true_detections > 0, "{summary:?}");
    }
}

#[test]
fn the_esplash_preset_loses_attempts_to_its_failure() {
    let spec = ScenarioSpec::esplash();
    let outcome = simulate_scenario(&spec, 1, None, RunOptions::default()).expect("runs");
    assert!(outcome.summary.failed_attempts > 0, "{:?}", outcome.summary);
    assert!(outcome.summary.makespan_secs > 1020.0);
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/scenarios")
        .join(name)
}

#[test]
fn the_example_scenario_file_loads_and_equals_the_esplash_preset_but_for_phases() {
    let path = fixture("esplash-failure.toml");
    let spec = ScenarioSpec::from_toml_file(&path).expect("the fixture loads");
    let mut expected = ScenarioSpec::esplash();
    expected.name = "esplash-failure".to_owned();
    expected.time_limit_secs = 1e6;
    expected.causes.reduce_phases = Some(Default::default());
    assert_eq!(spec, expected);
}

fn toml_error(text: &str) -> (usize, String, String) {
    match ScenarioSpec::from_toml_str(text, "test.toml") {
        Err(SimError::ConfigFile {
            file,
            line,
            key,
            message,
        }) => {
            assert_eq!(file, "test.toml");
            (line, key, message)
        }
        other => panic!("expected a scenario file error, got {other:?}"),
    }
}

#[test]
fn scenario_file_errors_name_the_key_and_the_file() {
    let (line, key, message) = toml_error("name = \"x\"\n[cluster]\nnodes = 4\nnodez = 3\n");
    assert_eq!((line, key.as_str()), (4, "cluster.nodez"), "{message}");
    assert!(message.contains("unknown field"), "{message}");

    let (line, key, _) =
        toml_error("name = \"x\"\n[cluster]\nnodes = 4\n[jobs]\nmaps = \"many\"\n");
    assert_eq!((line, key.as_str()), (5, "jobs.maps"));

    let (_, key, message) = toml_error("name = \"x\"\n[cluster]\ncores = 4\n");
    assert_eq!(key, "cluster.nodes", "{message}");

    let (_, key, _) = toml_error(
        "name = \"x\"\n[cluster]\nnodes = 4\n[causes.skew]\nprobability = 1.5\nfactor = 2.0\n",
    );
    assert_eq!(key, "causes.skew.probability");

    // A value out of range names its key and the line that writes it, once.
    let (line, key, message) = toml_error(
        "name = \"x\"\n[cluster]\nnodes = 4\n[[causes.failures]]\nnode = 9\nat_secs = 1.0\n",
    );
    assert_eq!((line, key.as_str()), (5, "causes.failures[0].node"));
    assert!(!message.contains("causes.failures"), "{message}");

    // A key of an array of tables carries its index.
    let (line, key, _) = toml_error(
        "name = \"x\"\n[cluster]\nnodes = 4\n[[causes.episodes]]\nnode = 1\nstart_secs = 1.0\n\
         [[causes.episodes]]\nnode = 1\nstart_secs = 1.0\nspeed = 2\n",
    );
    assert_eq!((line, key.as_str()), (10, "causes.episodes[1].speed"));

    // Core groups are named by the key that writes them.
    let (line, key, _) = toml_error(
        "name = \"x\"\n[cluster]\nnodes = 4\ncores = 4\ncore_groups_percent = [50, 50]\n",
    );
    assert_eq!((line, key.as_str()), (5, "cluster.core_groups_percent"));

    // A header with a comment still names its keys.
    let (line, key, _) = toml_error("name = \"x\"\n[cluster] # the machines\nnodes = 0\n");
    assert_eq!((line, key.as_str()), (3, "cluster.nodes"));

    // A name every summary prints: not empty, no terminal escapes.
    for name in ["\"\"", "\"  \"", "\"a\\u001b[2Jb\""] {
        let (line, key, message) = toml_error(&format!("name = {name}\n[cluster]\nnodes = 4\n"));
        assert_eq!((line, key.as_str()), (1, "name"), "{message}");
    }

    // A missing table is named alone, at no line.
    let (line, key, _) = toml_error("name = \"x\"\n");
    assert_eq!((line, key.as_str()), (0, "cluster"));

    let err = ScenarioSpec::from_toml_file(Path::new("/no/such/file.toml"))
        .expect_err("a missing file is an error");
    assert!(err.to_string().contains("/no/such/file.toml"), "{err}");
}

/// Checks that a valid scenario with the lines `table` added from line 4 on is refused
/// with exactly the message `expected` (file, line, dotted key, value).
fn check_table_error(table: &str, expected: &str) {
    let text = format!("name = \"x\"\n[cluster]\nnodes = 4\n{table}\n");
    let err = ScenarioSpec::from_toml_str(&text, "test.toml").expect_err(table);
    assert!(matches!(err, SimError::ConfigFile { .. }), "{err:?}");
    assert_eq!(err.to_string(), expected, "{table}");
}

#[test]
fn power_errors_name_the_file_the_line_and_the_key() {
    check_table_error(
        "[power]\nstatic_watts = 65\nidle_watts = -5",
        "test.toml: line 6: key `power.idle_watts`: -5: must be >= 0",
    );
    check_table_error(
        "[power]\nidle_watts = nan",
        "test.toml: line 5: key `power.idle_watts`: NaN: must be a finite number",
    );
    check_table_error(
        "[power]\ndynamic_watts = inf",
        "test.toml: line 5: key `power.dynamic_watts`: inf: must be a finite number",
    );
}

#[test]
fn slowdown_errors_name_the_file_the_line_and_the_key() {
    check_table_error(
        "[slowdown]\ncompute_fraction = 2",
        "test.toml: line 5: key `slowdown.compute_fraction`: 2: must be in [0, 1]",
    );
    check_table_error(
        "[slowdown]\n\nsmt_gain = -1",
        "test.toml: line 6: key `slowdown.smt_gain`: -1: must be in [0, 1]",
    );
    check_table_error(
        "[slowdown]\nmemory_contention = inf",
        "test.toml: line 5: key `slowdown.memory_contention`: inf: must be a finite number",
    );
}

#[test]
fn an_element_of_an_array_is_named_at_the_line_of_its_key() {
    check_table_error(
        "[causes.levels]\ncontainers = [4, 0]",
        "test.toml: line 5: key `causes.levels.containers[1]`: 0: must be >= 1",
    );
    check_table_error(
        "[causes.mix]\nprobability = 0.1\nweights = [nan, 23, 23, 14, 7, 3]",
        "test.toml: line 6: key `causes.mix.weights[0]`: NaN: must be a finite number",
    );
    check_table_error(
        "[causes.mix]\nweights = [0, 0, 0, 0, 0, 0]",
        "test.toml: line 5: key `causes.mix.weights (sum)`: 0: must be > 0",
    );
}

/// A weak node's drift step below a millisecond is refused at its line: the audit's file
/// (`step_secs = 1e-300`) ran for hours, each step rescheduled at the instant it ran.
#[test]
fn a_drift_step_below_a_millisecond_is_refused_at_its_line() {
    check_table_error(
        "[jobs]\nmaps = 8\nreduces = 0\n[causes.weak_nodes]\ncount = 1\nstep_secs = 0.0001",
        "test.toml: line 9: key `causes.weak_nodes.step_secs`: 0.0001: must be >= 0.001",
    );
    let text = "name = \"x\"\n[cluster]\nnodes = 4\n[jobs]\nmaps = 8\nreduces = 0\n\
                [causes.weak_nodes]\ncount = 1\nstep_secs = 1e-300\n";
    let err = ScenarioSpec::from_toml_str(text, "test.toml").expect_err("a step of 1e-300 s");
    assert!(
        matches!(&err, SimError::ConfigFile { line: 9, key, message, .. }
            if key == "causes.weak_nodes.step_secs" && message.ends_with("must be >= 0.001")),
        "{err}"
    );
}

/// A run whose tasks cannot finish ticks up to its time limit, heartbeats and scans, and a
/// weak node's drift steps: more than 10^9 ticks are refused, at the line of the first key
/// the file writes (the audit's 1 ms intervals under the default limit of 10^7 s took 1.4
/// hours of ticks before the time limit's error).
#[test]
fn more_than_a_billion_ticks_up_to_the_time_limit_are_refused() {
    check_table_error(
        "[speculation]\nheartbeat_secs = 0.001\nscan_interval_secs = 0.001",
        "test.toml: line 5: key `time_limit_secs / speculation.heartbeat_secs`: 1e10: must be \
         at most 1e9 ticks (see docs/simulation.md, Limits)",
    );
    check_table_error(
        "[speculation]\nscan_interval_secs = 0.005",
        "test.toml: line 5: key `time_limit_secs / speculation.scan_interval_secs`: 2e9: must \
         be at most 1e9 ticks (see docs/simulation.md, Limits)",
    );
    check_table_error(
        "[causes.weak_nodes]\ncount = 2\nstep_secs = 0.01",
        "test.toml: line 5: key `causes.weak_nodes.count * time_limit_secs / \
         causes.weak_nodes.step_secs`: 2e9: must be at most 1e9 ticks (see \
         docs/simulation.md, Limits)",
    );
    // At the bound, and every preset (`datacenter`: 10^7 s / 10 s), are accepted.
    let text = "name = \"x\"\ntime_limit_secs = 1e6\n[cluster]\nnodes = 4\n\
                [speculation]\nheartbeat_secs = 0.001\nscan_interval_secs = 0.001\n";
    ScenarioSpec::from_toml_str(text, "test.toml").expect("10^9 ticks");
    for name in PRESETS {
        ScenarioSpec::preset(name).unwrap().check().expect(name);
    }
}

/// The scale engine keeps a task's time as an f32: the audit's scenario (maps of 2e38 s,
/// three times as long when skewed) counted 17 stragglers where 14 tasks were slowed, their
/// times infinite. Its time limit is refused: at most 1e30 s, every task's time stays
/// within f32's range.
#[test]
fn a_time_limit_beyond_what_an_f32_task_time_holds_is_refused() {
    let text = "name = \"x\"\ntime_limit_secs = 1e39\n[cluster]\nnodes = 4\n[jobs]\n\
                maps = 20\nreduces = 0\nmap_work_secs = 2e38\n[speculation]\n\
                heartbeat_secs = 1e37\nscan_interval_secs = 1e37\n[causes.skew]\n\
                probability = 0.3\nfactor = 3\n";
    let err = ScenarioSpec::from_toml_str(text, "test.toml").expect_err("a limit of 1e39 s");
    assert!(
        matches!(&err, SimError::ConfigFile { line: 2, key, message, .. }
            if key == "time_limit_secs"
                && message.ends_with("must be in (0, 1e30] (the scale engine keeps a task's \
                                      time as an f32; see docs/simulation.md, Limits)")),
        "{err}"
    );
    // At the bound, the skewed tasks are the stragglers the summary counts.
    let mut spec = exact(20, 1, 20);
    spec.time_limit_secs = 1e30;
    spec.jobs.map_work_secs = 1e29;
    spec.speculation = SpeculationSpec {
        lag_secs: 0.0,
        scan_interval_secs: 1e27,
        heartbeat_secs: 1e27,
    };
    spec.causes.skew = Some(Skew {
        probability: 0.3,
        factor: 3.0,
    });
    let outcome = simulate_scenario(&spec, 1, None, RunOptions::default()).expect("runs");
    let summary = &outcome.summary;
    assert!(summary.injected_stragglers > 0, "{summary:?}");
    assert_eq!(
        summary.stragglers, summary.injected_stragglers,
        "{summary:?}"
    );
}

#[test]
fn levels_and_causes_are_checked() {
    let mut spec = exact(4, 1, 4);
    spec.causes = Causes {
        levels: Some(Levels {
            containers: vec![2, 0],
        }),
        ..Causes::default()
    };
    let err = spec.check().expect_err("a level without containers");
    assert!(
        err.to_string().contains("causes.levels.containers[1]"),
        "{err}"
    );
}

/// Records the progress of every reduce row it sees.
#[derive(Debug, Default)]
struct SeeReduces {
    seen: Vec<(f64, f64)>,
}

impl Detector for SeeReduces {
    fn name(&self) -> &str {
        "see-reduces"
    }
    fn scan(&mut self, snapshot: &Snapshot, _findings: &mut Findings) {
        for (row, &stage) in snapshot.stage_indices().iter().enumerate() {
            if snapshot.stages()[stage as usize].kind == TaskKind::Reduce {
                self.seen
                    .push((snapshot.now_secs(), snapshot.progress()[row]));
            }
        }
    }
}

#[test]
fn a_detector_sees_a_reduces_progress_in_three_unequal_phases() {
    // One node, one container: the map runs 0-10 s, the reduce (10 s of work) 10-20 s.
    let mut spec = exact(1, 1, 1);
    spec.jobs.reduces = 1;
    spec.jobs.reduce_work_secs = 10.0;
    spec.speculation = EVERY_SECOND;
    let mut linear = SeeReduces::default();
    simulate_scenario(&spec, 1, Some(&mut linear), RunOptions::default()).expect("runs");
    spec.causes.reduce_phases = Some(Default::default()); // copy 0.6, sort 0.1, reduce 0.3
    let mut phased = SeeReduces::default();
    simulate_scenario(&spec, 1, Some(&mut phased), RunOptions::default()).expect("runs");
    let at = |seen: &[(f64, f64)], t: f64| {
        seen.iter()
            .find(|(now, _)| (now - t).abs() < 1e-9)
            .map(|&(_, p)| p)
            .expect("a scan at that time")
    };
    // 3 s into the reduce: 30% of the work; by hand (0 + 0.3 / 0.6) / 3 = 1/6.
    assert!((at(&linear.seen, 13.0) - 0.3).abs() < 1e-9);
    assert!((at(&phased.seen, 13.0) - 1.0 / 6.0).abs() < 1e-9);
    // 9 s in: 90%; (2 + 0.2 / 0.3) / 3 = 8/9.
    assert!((at(&phased.seen, 19.0) - 8.0 / 9.0).abs() < 1e-9);
}

#[test]
fn a_task_whose_original_and_copy_are_both_lost_runs_again() {
    // One map on 3 nodes of 2 containers; every task is copied at the first scan (1 s).
    let mut spec = exact(3, 2, 1);
    spec.speculation = EVERY_SECOND;
    let (_, healthy) = recorded(&spec, Some(&mut FlagAll));
    let node_of = |role: AttemptRole| {
        healthy
            .attempts
            .iter()
            .find(|a| a.role == role)
            .map(|a| a.node.0)
            .expect("an attempt of that role")
    };
    let (original, copy) = (
        node_of(AttemptRole::Original),
        node_of(AttemptRole::Speculative),
    );
    // The original's node goes down at 5 s (the copy keeps running), the copy's at 6 s.
    spec.causes.failures = vec![
        Failure {
            node: original,
            at_secs: 5.0,
            down_secs: 100.0,
        },
        Failure {
            node: copy,
            at_secs: 6.0,
            down_secs: 100.0,
        },
    ];
    let (outcome, run) = recorded(&spec, Some(&mut FlagAll));
    assert_eq!(outcome.summary.failed_attempts, 2);
    let winner = run
        .attempts
        .iter()
        .find(|a| a.status == AttemptStatus::Succeeded)
        .expect("the task runs again and finishes");
    assert!(winner.start_secs >= 6.0);
    assert_eq!(winner.role, AttemptRole::Original);
}

#[test]
fn a_lost_original_whose_copy_runs_is_not_run_again_and_the_copy_ends_the_task() {
    // 3 one-core nodes of one container, 2 maps of 10 s, every attempt flagged at every
    // scan. Map 0 starts on node X, map 1 on Y at 0 s; at 1 s both are flagged (progress
    // 0.1, 9 s left each: the older attempt, map 0's, first) and map 0's copy takes Z's
    // container, from 1 s to 11 s; map 1's finds none. X fails at 5 s: map 0's original
    // ends Failed at progress 0.5 and is not run again, its copy runs. Map 1 ends at 10 s
    // on Y, map 0's copy at 11 s: a successful copy. Map 0's time is its lost original's,
    // estimated from its progress (5 / 0.5 = 10 s, as a killed original's): no straggler.
    // Energy at 82 W per busy one-core node: X 5 s, Y 10 s, Z 10 s, 82 x 25 = 2050 J.
    let mut spec = exact(3, 1, 2);
    spec.speculation = EVERY_SECOND;
    fail_map_0s_node(&mut spec, 5.0, 100.0);
    let (outcome, run) = recorded(&spec, Some(&mut FlagAll));
    let of_map_0: Vec<_> = run
        .attempts
        .iter()
        .filter(|a| a.task.0 == 0)
        .map(|a| {
            (
                a.role,
                a.status,
                a.start_secs,
                a.end_secs,
                a.progress_at_end,
            )
        })
        .collect();
    assert_eq!(
        of_map_0,
        [
            (
                AttemptRole::Original,
                AttemptStatus::Failed,
                0.0,
                Some(5.0),
                0.5
            ),
            (
                AttemptRole::Speculative,
                AttemptStatus::Succeeded,
                1.0,
                Some(11.0),
                1.0
            ),
        ]
    );
    let s = &outcome.summary;
    assert_eq!(
        (s.attempts, s.failed_attempts, s.copies, s.successful_copies),
        (3, 1, 1, 1)
    );
    assert_eq!((s.makespan_secs, s.stragglers), (11.0, 0));
    assert!(
        (s.energy_joules - 2050.0).abs() < 1e-9,
        "{}",
        s.energy_joules
    );
}

#[test]
fn a_node_is_up_again_only_once_every_failure_covering_it_has_ended() {
    // One node, one container, one map of 10 s (rate 1 alone on its core). The map starts
    // at 0 s and is lost at 2 s; the node is down from 2 s to 22 s whatever shorter
    // failures fall within (a nested one, 5 s to 6 s) or follow on at once (2 s to 12 s,
    // then 12 s to 22 s): the map runs again from 22 s and ends at 32 s.
    let failure = |at_secs, down_secs| Failure {
        node: 0,
        at_secs,
        down_secs,
    };
    for failures in [
        vec![failure(2.0, 20.0)],
        vec![failure(2.0, 20.0), failure(5.0, 1.0)],
        vec![failure(5.0, 1.0), failure(2.0, 20.0)],
        vec![failure(2.0, 10.0), failure(12.0, 10.0)],
    ] {
        let mut spec = exact(1, 1, 1);
        spec.causes.failures = failures.clone();
        let (outcome, run) = recorded(&spec, None);
        assert_eq!(outcome.summary.failed_attempts, 1, "{failures:?}");
        let starts: Vec<f64> = run.attempts.iter().map(|a| a.start_secs).collect();
        assert_eq!(starts, [0.0, 22.0], "{failures:?}");
        assert!(
            (outcome.summary.makespan_secs - 32.0).abs() < 1e-9,
            "{failures:?}: {}",
            outcome.summary.makespan_secs
        );
    }
}

#[test]
fn mix_weights_need_exactly_six_numbers() {
    let file = |weights: &str| {
        format!("name = \"x\"\n[cluster]\nnodes = 4\n[causes.mix]\nweights = {weights}\n")
    };
    let spec = ScenarioSpec::from_toml_str(&file("[30, 23, 23, 14, 7, 3.5]"), "test.toml")
        .expect("six numbers load");
    let weights = spec.causes.mix.expect("a mix").weights;
    assert_eq!(weights, [30.0, 23.0, 23.0, 14.0, 7.0, 3.5]);
    let text = "name = \"x\"\n[cluster]\nnodes = 4\n[causes.mix]\nprobability = 0.1\n";
    let spec = ScenarioSpec::from_toml_str(text, "test.toml").expect("default weights");
    assert_eq!(
        spec.causes.mix,
        Some(RootCauseMix {
            probability: 0.1,
            ..RootCauseMix::default()
        })
    );
    // Extra elements, even ones that are not numbers, are not dropped.
    for weights in [
        "[1, 2, 3, 4, 5, 6, 7]",
        "[1, 2, 3, 4, 5, 6, \"x\"]",
        "[1, 2, 3, 4, 5]",
        "[]",
        "5",
    ] {
        let (line, key, message) = toml_error(&file(weights));
        assert_eq!((line, key.as_str()), (5, "causes.mix.weights"), "{weights}");
        assert!(
            message.contains("exactly 6 numbers"),
            "{weights}: {message}"
        );
    }
}

#[test]
fn a_scenario_file_is_read_up_to_16_mib() {
    let dir = std::env::temp_dir().join(format!("straggler-sim-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let limit = straggler_sim::limits::MAX_CONFIG_FILE_BYTES as usize;
    assert_eq!(limit, 16 << 20);
    // A valid file padded with comment lines to `size` bytes.
    let padded = |size: usize| {
        let mut text = String::from("name = \"big\"\n[cluster]\nnodes = 4\n");
        let line = format!("#{}\n", "x".repeat(1022));
        while text.len() + line.len() <= size {
            text.push_str(&line);
        }
        text.push_str(&"#".repeat(size - text.len()));
        assert_eq!(text.len(), size);
        text
    };
    let at_limit = dir.join("at-limit.toml");
    std::fs::write(&at_limit, padded(limit)).unwrap();
    let spec = ScenarioSpec::from_toml_file(&at_limit).expect("16 MiB is read");
    assert_eq!(spec.cluster.nodes, 4);

    let above = dir.join("above.toml");
    std::fs::write(&above, padded(limit + 1)).unwrap();
    let err = ScenarioSpec::from_toml_file(&above).expect_err("one byte more is refused");
    let named = |file: &str| file.ends_with("above.toml");
    assert!(
        matches!(&err, SimError::ConfigFile { file, line: 0, .. } if named(file)),
        "{err:?}"
    );
    assert!(err.to_string().contains("larger than 16 MiB"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A change that puts a count of a scenario above its limit.
type Oversize = fn(&mut ScenarioSpec);

#[test]
fn counts_above_their_limits_are_errors_naming_the_key_and_the_limit() {
    let cases: [(&str, u64, Oversize); 9] = [
        ("cluster.nodes", 1_000_000, |s| s.cluster.nodes = 1_000_001),
        ("cluster.containers", 10_000, |s| {
            s.cluster.containers = 10_001
        }),
        ("causes.levels.containers[1]", 10_000, |s| {
            s.causes.levels = Some(Levels {
                containers: vec![8, 10_001],
            })
        }),
        ("cluster.nodes * cluster.containers", 10_000_000, |s| {
            s.cluster.nodes = 2_000;
            s.cluster.containers = 5_001;
        }),
        ("jobs.count", 1_000_000, |s| s.jobs.count = 1_000_001),
        ("jobs.maps", 1_000_000, |s| s.jobs.maps = 1_000_001),
        ("jobs.reduces", 1_000_000, |s| s.jobs.reduces = 1_000_001),
        (
            "jobs.count * (jobs.maps + jobs.reduces)",
            100_000_000,
            |s| {
                s.jobs.count = 200;
                s.jobs.maps = 500_000;
                s.jobs.reduces = 1;
            },
        ),
        ("causes.episodes[0].background_tasks", 1_000, |s| {
            s.causes.episodes = vec![Episode {
                node: 0,
                start_secs: 1.0,
                duration_secs: 1.0,
                background_tasks: 1_001,
            }]
        }),
    ];
    for (key, limit, oversize) in cases {
        let mut spec = exact(4, 1, 4);
        oversize(&mut spec);
        super::assert_above_limit(&spec.check().expect_err(key), key, limit);
    }
    // In a file, at the line that writes the key.
    let (line, key, message) = toml_error("name = \"x\"\n[cluster]\nnodes = 4294967295\n");
    assert_eq!((line, key.as_str()), (3, "cluster.nodes"));
    assert!(
        message.starts_with("4294967295: must be at most 1000000"),
        "{message}"
    );
}

/// Flags the original of one task from a time on.
struct FlagTaskFrom {
    task: u32,
    from_secs: f64,
}

impl Detector for FlagTaskFrom {
    fn name(&self) -> &str {
        "flag-task-from"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        if snapshot.now_secs() >= self.from_secs {
            (0..snapshot.len())
                .filter(|&row| snapshot.tasks()[row].0 == self.task)
                .for_each(|row| findings.push_row(row as u32));
        }
    }
}

#[test]
fn a_tie_between_an_original_and_its_copy_goes_to_the_original_on_either_node() {
    // Two compute-bound nodes of 2 containers: S has 1 active core, F 2. Two jobs of 4
    // maps of 10 s, the second arriving at 15 s. S runs two maps of job 0 at rate 1/2 (to
    // 20 s), F the other two at rate 1 (to 10 s). Map `a` of S is flagged from 10 s: its
    // copy runs alone on F from 10 s at rate 1 and ends at 20 s, with its original. At 15 s
    // a map `m` of job 1 starts on F's other container (2 attempts on 2 cores: rate 1), to
    // 25 s. At 20 s the original wins (the older attempt, as in the paper's engine) and the
    // copy is killed at progress 1; `m` goes on to 25 s. Job 1's other maps start at 20 s:
    // two on S (rate 1/2, to 40 s), one on F (rate 1, to 30 s).
    // Energy (65 W + 17 W per busy core): S runs 1 core for 40 s, 82 x 40 = 3280 J; F
    // draws 99 W (2 busy cores) on [0, 10) and [15, 25), 82 W on [10, 15) and [25, 30):
    // 99 x 20 + 82 x 10 = 2800 J; 6080 J in all.
    // Seeds 0 and 1 put S at node index 0, then 1: the node order settled the tie, and the
    // node of the killed copy, read after the kill, ended `m` at 20 s with half its work.
    let mut spec = exact(2, 2, 4);
    spec.cluster.cores = 2;
    spec.cluster.core_groups_percent = vec![50.0, 50.0];
    spec.jobs.count = 2;
    spec.jobs.arrival_window_secs = 30.0;
    spec.speculation = EVERY_SECOND;
    let mut slow_nodes = Vec::new();
    for seed in [0, 1] {
        let options = || RunOptions {
            record: true,
            ..RunOptions::default()
        };
        let plain = simulate_scenario(&spec, seed, None, options()).unwrap();
        let plain = plain.run.unwrap();
        let slow = plain
            .nodes
            .iter()
            .position(|n| n.active_cores == 1)
            .unwrap();
        slow_nodes.push(slow);
        let a = plain
            .attempts
            .iter()
            .find(|x| x.node.index() == slow)
            .unwrap()
            .task;
        let mut flag = FlagTaskFrom {
            task: a.0,
            from_secs: 10.0,
        };
        let outcome = simulate_scenario(&spec, seed, Some(&mut flag), options()).unwrap();
        let run = outcome.run.unwrap();
        let of_a: Vec<_> = run.attempts.iter().filter(|x| x.task == a).collect();
        assert_eq!(of_a.len(), 2, "seed {seed}: {of_a:?}");
        let (original, copy) = (of_a[0], of_a[1]);
        assert_eq!(
            (original.role, original.status, original.end_secs),
            (AttemptRole::Original, AttemptStatus::Succeeded, Some(20.0)),
            "seed {seed}"
        );
        assert_eq!(
            (copy.role, copy.status, copy.start_secs, copy.end_secs),
            (
                AttemptRole::Speculative,
                AttemptStatus::Killed,
                10.0,
                Some(20.0)
            ),
            "seed {seed}"
        );
        assert!((copy.progress_at_end - 1.0).abs() < 1e-12);
        let m = run.attempts.iter().find(|x| x.start_secs == 15.0).unwrap();
        assert_eq!((m.node, m.end_secs), (copy.node, Some(25.0)), "seed {seed}");
        assert_eq!(outcome.summary.successful_copies, 0);
        assert_eq!(outcome.summary.makespan_secs, 40.0);
        assert!(
            (outcome.summary.energy_joules - 6080.0).abs() < 1e-9,
            "{}",
            outcome.summary.energy_joules
        );
    }
    assert_eq!(slow_nodes, [0, 1]);
}
